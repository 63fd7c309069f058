package org.rddp.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.RdmaDevice;

/**
 * Both ends of one perftest-style run in this process, on loopback, over the transport {@code transport} makes:
 * the server on a thread of its own, the client on the caller's. What {@code rddp compare} measures RDDP with.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // the server thread hands whatever ended it to the caller
final class PerfPair {
    private PerfPair() {
    }

    /** Runs {@code settings}; returns the client's results. */
    static List<PerfResult> run(TransportOptions transport, PerfSession.Settings settings) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        RdmaDevice device = new RdmaDevice("rddp-loopback");
        PerfSession server = new PerfSession(device, settings, false, line -> { }, line -> { });
        PerfSession client = new PerfSession(device, settings, true, line -> { }, line -> { });
        BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        List<PerfResult> results = new ArrayList<>();
        try (ConnectionManager serverSide = transport.open(loopback);
                Listener listener = serverSide.listen(new InetSocketAddress(loopback, 0), requests::add);
                ConnectionManager clientSide = transport.open(loopback)) {
            CompletableFuture<Void> served = new CompletableFuture<>();
            Thread.ofPlatform().name("rddp-perf-server").daemon().start(() -> {
                try {
                    ConnectionRequest control = requests.take();
                    control.accept(server.controlQueuePair(), transport.acceptOptions())
                            .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
                    server.server(requests, transport.acceptOptions(), result -> { });
                    served.complete(null);
                } catch (Exception | Error e) { // handed to the caller, whatever it was
                    served.completeExceptionally(e);
                }
            });
            client.client(clientSide, listener.address(), transport.connectOptions(), results::add);
            try {
                served.get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        return results;
    }
}
