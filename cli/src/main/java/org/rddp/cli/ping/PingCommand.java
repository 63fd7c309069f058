package org.rddp.cli.ping;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.Listener;
import org.rddp.verbs.RdmaDevice;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rddp ping}: rping's client and server (same options, same protocol: see {@link Ping}), over either
 * transport. Over MPA it talks to rdma-core's {@code rping} on any iWARP device (siw, hardware RNICs).
 */
@Command(name = "ping", sortOptions = false,
        description = "rping's ping-pong: the server RDMA Reads the client's buffer and RDMA Writes it back.")
public final class PingCommand implements Callable<Integer> {
    @ArgGroup(multiplicity = "1")
    Role role;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "-a", description = "address: to listen on (server) or of the server (client); "
            + "default: 127.0.0.1")
    InetAddress address = InetAddress.getLoopbackAddress();

    @Option(names = "-p", defaultValue = "" + Ping.DEFAULT_PORT, description = "port; default: ${DEFAULT-VALUE}")
    int port = Ping.DEFAULT_PORT;

    @Option(names = "-C", defaultValue = "0", description = "pings (client); 0: until interrupted")
    int count;

    @Option(names = "-S", defaultValue = "" + Ping.DEFAULT_SIZE, description = "ping data size, "
            + Ping.MIN_SIZE + ".." + Ping.MAX_SIZE + "; default: ${DEFAULT-VALUE}")
    int size = Ping.DEFAULT_SIZE;

    @Option(names = "-V", description = "validate ping data (client: what came back; server: what it read)")
    boolean verify;

    @Option(names = "-v", description = "display ping data")
    boolean verbose;

    @Option(names = "--timeout", defaultValue = "30", description = "seconds to wait for each step; "
            + "default: ${DEFAULT-VALUE}")
    int timeoutSeconds = 30;

    @Mixin
    TransportOptions transport;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Client or server. */
    static final class Role {
        @Option(names = "-s", required = true, description = "server side")
        boolean server;

        @Option(names = "-c", required = true, description = "client side")
        boolean client;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        RdmaDevice device = new RdmaDevice("rddp0");
        try (Ping ping = new Ping(device, size, timeout)) {
            return role.server ? serve(ping, out, err) : ping(ping, out, err, timeout);
        }
    }

    private int ping(Ping ping, PrintWriter out, PrintWriter err, Duration timeout) throws Exception {
        try (ConnectionManager manager = transport.open(TransportOptions.localFor(address))) {
            ping.armReceive();
            Connection connection;
            try {
                connection = manager.connect(ping.queuePair(), new InetSocketAddress(address, port),
                        transport.connectOptions()).get(transport.setupTimeoutSeconds + 5L, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                err.println("rddp ping: connect error: " + why(e.getCause()));
                return 1;
            }
            out.println("client: connected to " + address.getHostAddress() + ":" + port + " "
                    + TransportOptions.describe(connection));
            out.flush();
            int pings = count == 0 ? Integer.MAX_VALUE : count;
            try {
                ping.client(pings, verify, verbose ? out::println : line -> { });
            } catch (PeerException e) {
                err.println("rddp ping: client failed: " + e.getMessage());
                return 1;
            }
            out.println("client: " + count + " pings of " + size + " octets" + (verify ? ", data verified" : ""));
            if (transport.mptcp) { // the subflows it had: what Multipath TCP really used
                out.println("client: paths at the end: " + ping.queuePair().paths().get(timeout.toMillis(),
                        TimeUnit.MILLISECONDS));
            }
            if (!ping.disconnect(timeout)) { // before the manager closes: that would abort the connection
                err.println("rddp ping: the server did not answer the disconnect within " + timeoutSeconds + " s");
            }
            return 0;
        }
    }

    private int serve(Ping ping, PrintWriter out, PrintWriter err) throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        AtomicBoolean taken = new AtomicBoolean();
        try (ConnectionManager manager = TransportOptions.watchRefusals(transport.open(address), "ping", err,
                reason -> accepted.completeExceptionally(new IOException("refused the client's connection: "
                        + reason)));
                Listener listener = manager.listen(new InetSocketAddress(address, port), request -> {
                    if (!taken.compareAndSet(false, true)) {
                        request.reject(org.rddp.wire.PrivateData.EMPTY); // one client at a time, as rping
                        return;
                    }
                    ping.armReceive();
                    request.accept(ping.queuePair(), transport.acceptOptions()).whenComplete((connection, failure) -> {
                        if (failure != null) {
                            accepted.completeExceptionally(failure);
                        } else {
                            accepted.complete(connection);
                        }
                    });
                })) {
            out.println("server: listening on " + listener.address() + transport.encapsulation(manager));
            out.flush();
            Connection connection;
            try {
                connection = accepted.get(); // rping's server, too, waits for its one client as long as it takes
            } catch (ExecutionException e) {
                err.println("rddp ping: accept error: " + why(e.getCause()));
                return 1;
            }
            out.println("server: connected " + TransportOptions.describe(connection));
            out.flush();
            try {
                int served = ping.server(verify, verbose ? out::println : line -> { });
                out.println("server: client disconnected after " + served + " pings"
                        + (verify ? ", data verified" : ""));
                return 0;
            } catch (PeerException e) {
                err.println("rddp ping: server failed: " + e.getMessage());
                return 1;
            }
        }
    }

    /** A failure's message, or its kind when it has none. */
    static String why(Throwable failure) {
        return failure.getMessage() != null ? failure.getMessage() : failure.toString();
    }
}
