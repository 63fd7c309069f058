package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.loop.Progress;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.testing.InMemoryTransport;

/**
 * Acknowledgements that answer several immediate messages at once (version 2's More field), against a raw peer:
 * what an EXS receiver sends when it takes several immediate messages in one pass, what an EXS sender makes of one,
 * and what it refuses.
 */
class AcknowledgementTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    private InMemoryTransport transport;
    private Exs exs;
    private ExsQueue queue;
    private KeptEvents events;

    @AfterEach
    void stop() {
        if (transport != null) {
            transport.close();
        }
    }

    /** A raw peer connected to an accepted EXS socket of 8 credits, the transport as {@code progress} says. */
    private ExsSocket connect(Progress progress, RawPeer[] peer) throws Exception {
        transport = new InMemoryTransport(4096, 64, progress);
        exs = Exs.init(transport.responder());
        queue = exs.createQueue();
        events = new KeptEvents(queue, BOUND);
        return connectAgain(peer);
    }

    @Test
    void immediateMessagesTakenInOnePassAreAnsweredByOneAcknowledgement() throws Exception {
        // one thread drives both ends: the four messages are all there when the receiver next looks
        RawPeer[] peer = new RawPeer[1];
        ExsSocket socket = connect(Progress.manual(), peer);
        ExsMemory sink = exs.register(Arena.ofAuto().allocate(4 * 16));
        for (int i = 0; i < 4; i++) {
            socket.recv(sink, i * 16L, 16, i);
        }
        for (int sequence = 0; sequence < 4; sequence++) {
            byte[] advert = RawPeer.advertisement(ExsMessage.IMMEDIATE, sequence, 16, 0, 0, 0);
            byte[] message = java.util.Arrays.copyOf(advert, advert.length + 16);
            java.util.Arrays.fill(message, advert.length, message.length, (byte) (0x40 + sequence));
            assertThat(peer[0].send(message)).isZero();
        }
        for (int i = 0; i < 4; i++) {
            ExsEvent received = next(ExsEvent.Type.RECV);
            assertThat(received.error()).isNull();
            assertThat(received.context()).isEqualTo(i);
            assertThat(sink.segment().asSlice(i * 16L, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                    .containsOnly((byte) (0x40 + i));
        }
        List<Acknowledgement> acks = acknowledgements(peer[0]);
        assertThat(acks).containsExactly(new Acknowledgement(0, 3, 16, Acknowledgement.OK, 3));
    }

    @Test
    void aSenderTakesOneAcknowledgementForSeveralImmediateMessages() throws Exception {
        RawPeer[] peer = new RawPeer[1];
        ExsSocket socket = connect(Progress.automatic(), peer);
        ExsMemory source = exs.register(ExsSuite.pattern(3 * 32, 5));
        for (int i = 0; i < 3; i++) {
            socket.send(source, i * 32L, 32, "immediate " + i);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(advertisement(peer[0]).immediate()).isTrue();
        }
        peer[0].send(ack(new Acknowledgement(0, 2, 32, Acknowledgement.OK, 2)));
        for (int i = 0; i < 3; i++) {
            ExsEvent sent = next(ExsEvent.Type.SEND);
            assertThat(sent.error()).isNull();
            assertThat(sent.context()).isEqualTo("immediate " + i);
            assertThat(sent.length()).isEqualTo(32);
        }
        socket.send(source, 0, 32, "again"); // the three credits came back
        assertThat(advertisement(peer[0]).sequence()).isEqualTo(3);
    }

    @Test
    void anAcknowledgementAnsweringABlockToReadOrNothingEndsTheConnection() throws Exception {
        RawPeer[] peer = new RawPeer[1];
        ExsSocket socket = connect(Progress.automatic(), peer);
        ExsMemory source = exs.register(ExsSuite.pattern(1024, 6));
        socket.send(source, 0, 512, "to be read"); // over the 64 immediate octets: a window is advertised
        socket.send(source, 512, 32, "immediate");
        assertThat(advertisement(peer[0]).immediate()).isFalse();
        assertThat(advertisement(peer[0]).immediate()).isTrue();
        peer[0].send(ack(new Acknowledgement(0, 1, 32, Acknowledgement.OK, 1)));
        List<ExsEvent> failed = List.of(next(ExsEvent.Type.SEND), next(ExsEvent.Type.SEND));
        assertThat(failed).allSatisfy(event -> assertThat(event.error()).isNotNull());
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("of which 0 is not an immediate one");

        ExsSocket second = connectAgain(peer);
        second.send(source, 0, 16, "one");
        advertisement(peer[0]);
        peer[0].send(ack(new Acknowledgement(0, 0, 16, Acknowledgement.OK, 1)));
        assertThat(next(ExsEvent.Type.SEND).error()).isNotNull();
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("of which -1 is not outstanding");
    }

    /** A raw peer on the transport, accepted by a new listener. */
    private ExsSocket connectAgain(RawPeer[] peer) throws Exception {
        SocketAddress address = transport.nextAddress();
        ExsSocket listening = exs.socket(queue);
        listening.setOption(ExsOption.CREDITS, 8);
        listening.bind(address);
        listening.listen(1);
        listening.accept("accept");
        peer[0] = RawPeer.connect(transport.initiator(), address, RawPeer.hello(8, 64));
        ExsEvent accepted = next(ExsEvent.Type.ACCEPT);
        assertThat(accepted.error()).isNull();
        return accepted.socket();
    }

    private static byte[] ack(Acknowledgement ack) {
        byte[] octets = new byte[ExsMessage.ACKNOWLEDGEMENT_LENGTH];
        ack.encode(MemorySegment.ofArray(octets), 0);
        return octets;
    }

    /** The next advertisement the raw peer receives (its send completions pass). */
    private static ExsMessage.Advertisement advertisement(RawPeer peer) throws Exception {
        for (WorkCompletion completion = peer.next(BOUND); completion != null; completion = peer.next(BOUND)) {
            if (completion.opcode() == WcOpcode.RECV) {
                assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
                return (ExsMessage.Advertisement) ExsMessage.decode(peer.received(completion), 0,
                        (int) completion.byteLength());
            }
        }
        throw new AssertionError("no advertisement within " + BOUND);
    }

    /** Every acknowledgement the raw peer has received or receives now (the EXS side has nothing else to send). */
    private static List<Acknowledgement> acknowledgements(RawPeer peer) throws Exception {
        List<Acknowledgement> acks = new ArrayList<>();
        for (WorkCompletion completion = peer.poll(); completion != null; completion = peer.poll()) {
            if (completion.opcode() == WcOpcode.RECV) {
                acks.add((Acknowledgement) ExsMessage.decode(peer.received(completion), 0,
                        (int) completion.byteLength()));
            }
        }
        return acks;
    }

    /** The next event of {@code type}, keeping the others. */
    private ExsEvent next(ExsEvent.Type type) throws InterruptedException {
        return events.next(type);
    }
}
