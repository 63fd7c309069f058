package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.verbs.testing.TransportFixture;

/** The EXS suite over SCTP (usrsctp over UDP) on loopback, and many sockets on one association. */
class ExsUsrsctpTest extends ExsSuite {
    @Override
    TransportFixture transport() throws Exception {
        return Transports.usrsctp();
    }

    @Test
    void manySocketsShareOneAssociationEachMovingItsOwnData() throws Exception {
        int sockets = 200; // at 16 credits, more than a queue of the default size holds
        int size = 20_000;
        Exs serverExs = Exs.init(transport.responder());
        Exs clientExs = Exs.init(transport.initiator());
        int completions = 32_768;
        assertThat(sockets * (8 * ExsOption.CREDITS.defaultValue() + 4)).isBetween(ExsQueue.DEFAULT_COMPLETIONS,
                completions);
        ExsQueue serverQueue = serverExs.createQueue(ExsQueue.Driver.CALLER, completions);
        ExsQueue clientQueue = clientExs.createQueue(ExsQueue.Driver.CALLER, completions);
        SocketAddress address = transport.nextAddress();
        ExsSocket listening = serverExs.socket(serverQueue);
        listening.bind(address);
        listening.listen(sockets);
        Events server = new Events(serverQueue);
        Events client = new Events(clientQueue);
        List<ExsSocket> clients = new ArrayList<>();
        for (int i = 0; i < sockets; i++) {
            listening.accept(i);
            ExsSocket socket = clientExs.socket(clientQueue);
            socket.connect(address, i);
            clients.add(socket);
        }
        Map<ExsSocket, ExsMemory> sinks = new HashMap<>();
        for (int i = 0; i < sockets; i++) {
            assertThat(client.next(ExsEvent.Type.CONNECT, server).error()).isNull();
            ExsEvent accepted = server.next(ExsEvent.Type.ACCEPT, client);
            assertThat(accepted.error()).isNull();
            ExsMemory sink = serverExs.register(Arena.ofAuto().allocate(size));
            sinks.put(accepted.socket(), sink);
            accepted.socket().recv(sink, 0, size, accepted.socket());
        }
        List<ExsMemory> sources = new ArrayList<>();
        for (int i = 0; i < sockets; i++) {
            ExsMemory source = clientExs.register(pattern(size, 1000 + i));
            sources.add(source);
            clients.get(i).send(source, 0, size, i);
        }
        List<ExsMemory> received = new ArrayList<>();
        for (int i = 0; i < sockets; i++) {
            ExsEvent event = server.next(ExsEvent.Type.RECV, client);
            assertThat(event.error()).isNull();
            assertThat(event.length()).isEqualTo(size);
            received.add(sinks.get((ExsSocket) event.context()));
        }
        for (int i = 0; i < sockets; i++) {
            assertThat(client.next(ExsEvent.Type.SEND, server).error()).isNull();
        }
        for (ExsMemory sink : received) { // each socket's data is one client's, and every client's arrived
            long matches = sources.stream().filter(source -> source.segment().mismatch(sink.segment()) == -1)
                    .count();
            assertThat(matches).isEqualTo(1);
        }
        assertThat(received).doesNotHaveDuplicates();
        assertThat(((SctpConnectionManager) transport.initiator()).associationCount()).isEqualTo(1);
        assertThat(((SctpConnectionManager) transport.responder()).associationCount()).isEqualTo(1);
    }

    /** One queue's events, taken while both sides' queues are driven. */
    private static final class Events {
        private final ExsQueue queue;
        private final List<ExsEvent> kept = new ArrayList<>();

        Events(ExsQueue queue) {
            this.queue = queue;
        }

        ExsEvent next(ExsEvent.Type type, Events other) throws InterruptedException {
            long deadline = System.nanoTime() + Ends.BOUND.toNanos();
            while (System.nanoTime() < deadline) {
                for (int i = 0; i < kept.size(); i++) {
                    if (kept.get(i).type() == type) {
                        return kept.remove(i);
                    }
                }
                take();
                other.take();
            }
            throw new AssertionError("no " + type + " event within " + Ends.BOUND + "; kept " + kept);
        }

        void take() throws InterruptedException {
            ExsEvent[] into = new ExsEvent[64];
            int taken = queue.dequeue(into, 0, java.time.Duration.ZERO);
            kept.addAll(java.util.Arrays.asList(into).subList(0, taken));
        }
    }
}
