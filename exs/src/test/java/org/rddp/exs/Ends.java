package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Two EXS ends connected over a transport fixture: a client and the server's accepted socket, each with its own
 * queue, both driven by the test's thread, which dequeues from both until what it waits for came.
 */
final class Ends implements AutoCloseable {
    static final Duration BOUND = Duration.ofSeconds(10);

    final Exs clientExs;
    final Exs serverExs;
    final ExsQueue clientQueue;
    final ExsQueue serverQueue;
    final ExsSocket listening;
    final ExsSocket client;
    final ExsSocket server;
    private final List<ExsEvent> clientEvents = new ArrayList<>();
    private final List<ExsEvent> serverEvents = new ArrayList<>();

    /** Connects, with {@code clientOptions} and {@code serverOptions} applied to the two sockets first. */
    Ends(TransportFixture transport, Consumer<ExsSocket> clientOptions, Consumer<ExsSocket> serverOptions)
            throws IOException, InterruptedException {
        clientExs = Exs.init(transport.initiator());
        serverExs = Exs.init(transport.responder());
        clientQueue = clientExs.createQueue();
        serverQueue = serverExs.createQueue();
        SocketAddress address = transport.nextAddress();
        listening = serverExs.socket(serverQueue);
        serverOptions.accept(listening);
        listening.bind(address);
        listening.listen(4);
        listening.accept("accept");
        client = clientExs.socket(clientQueue);
        clientOptions.accept(client);
        client.connect(address, "connect");
        ExsEvent connected = next(clientQueue, ExsEvent.Type.CONNECT);
        assertThat(connected.error()).as("the connect's error").isNull();
        ExsEvent accepted = next(serverQueue, ExsEvent.Type.ACCEPT);
        assertThat(accepted.error()).as("the accept's error").isNull();
        assertThat(accepted.context()).isEqualTo("accept");
        server = accepted.socket();
        assertThat(server.state()).isEqualTo(ExsSocket.State.CONNECTED);
        assertThat(client.state()).isEqualTo(ExsSocket.State.CONNECTED);
    }

    Ends(TransportFixture transport) throws IOException, InterruptedException {
        this(transport, socket -> { }, socket -> { });
    }

    /** The next event of {@code type} on {@code queue}, while both queues are driven; others are kept. */
    ExsEvent next(ExsQueue queue, ExsEvent.Type type) throws InterruptedException {
        List<ExsEvent> kept = queue == clientQueue ? clientEvents : serverEvents;
        long deadline = System.nanoTime() + BOUND.toNanos();
        ExsEvent[] into = new ExsEvent[16];
        while (true) {
            for (int i = 0; i < kept.size(); i++) {
                if (kept.get(i).type() == type) {
                    return kept.remove(i);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + type + " event within " + BOUND + "; kept " + kept);
            }
            drive(clientQueue, clientEvents, into);
            drive(serverQueue, serverEvents, into);
        }
    }

    /** The events of {@code queue} kept so far and whatever is there now, taken. */
    List<ExsEvent> drain(ExsQueue queue) throws InterruptedException {
        drive(clientQueue, clientEvents, new ExsEvent[16]);
        drive(serverQueue, serverEvents, new ExsEvent[16]);
        List<ExsEvent> kept = queue == clientQueue ? clientEvents : serverEvents;
        List<ExsEvent> all = new ArrayList<>(kept);
        kept.clear();
        return all;
    }

    private static void drive(ExsQueue queue, List<ExsEvent> kept, ExsEvent[] into) throws InterruptedException {
        int taken = queue.dequeue(into, 0, Duration.ZERO);
        for (int i = 0; i < taken; i++) {
            kept.add(into[i]);
        }
    }

    @Override
    public void close() {
    }
}
