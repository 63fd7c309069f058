package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.work.QpState;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.testing.InMemoryTransport;

/**
 * What a peer that breaks the EXS protocol gets: the connection ends with a clear error on every outstanding
 * operation and a CLOSE event saying why, memory outside what was advertised or posted is never touched, and the
 * listener keeps serving.
 */
class HostilePeerTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final byte CANARY = (byte) 0x5A;

    private InMemoryTransport transport;
    private Exs exs;
    private ExsQueue queue;
    private ExsSocket listening;
    private SocketAddress address;
    private KeptEvents events;

    @BeforeEach
    void listen() throws Exception {
        transport = new InMemoryTransport(4096, 64);
        exs = Exs.init(transport.responder());
        queue = exs.createQueue();
        events = new KeptEvents(queue, BOUND);
        address = transport.nextAddress();
        listening = exs.socket(queue);
        listening.setOption(ExsOption.CREDITS, 2);
        listening.bind(address);
        listening.listen(4);
    }

    @AfterEach
    void stop() {
        transport.close();
    }

    /** A raw peer connected to an accepted EXS socket. */
    private record Pair(RawPeer peer, ExsSocket socket) {
    }

    private Pair connect() throws Exception {
        listening.accept("accept");
        RawPeer peer = RawPeer.connect(transport.initiator(), address, RawPeer.hello(2, 64));
        ExsEvent accepted = next(ExsEvent.Type.ACCEPT);
        assertThat(accepted.error()).isNull();
        return new Pair(peer, accepted.socket());
    }

    @Test
    void advertisementsBeyondTheCreditsEndTheConnection() throws Exception {
        Pair pair = connect();
        ExsMemory sink = exs.register(Arena.ofAuto().allocate(64));
        for (int sequence = 0; sequence < 3; sequence++) {
            pair.peer.send(RawPeer.advertisement(0, sequence, 16, pair.peer.block.rkey(), 0, 0));
        }
        ExsEvent closed = next(ExsEvent.Type.CLOSE);
        assertThat(closed.error()).hasMessageContaining("beyond the 2 credits");
        assertThat(pair.socket.state()).isEqualTo(ExsSocket.State.CLOSED);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> pair.socket.recv(sink, 0, 8, null))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed (")
                .hasMessageContaining("beyond the 2 credits");
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (pair.peer.qp.state() == QpState.RTS && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the peer learns of the aborted stream on its own thread
        }
        assertThat(pair.peer.qp.state()).as("the peer's end of the connection").isNotEqualTo(QpState.RTS);
    }

    @Test
    void anAcknowledgementOfNothingEndsTheConnectionAndFailsWhatIsOutstanding() throws Exception {
        Pair pair = connect();
        ExsMemory sink = exs.register(Arena.ofAuto().allocate(64));
        pair.socket.recv(sink, 0, 64, "waiting");
        byte[] ack = new byte[16];
        new ExsMessage.Acknowledgement(0, 7, 10, 0).encode(MemorySegment.ofArray(ack), 0);
        pair.peer.send(ack);
        ExsEvent failed = next(ExsEvent.Type.RECV);
        assertThat(failed.context()).isEqualTo("waiting");
        assertThat(failed.error()).hasMessageContaining("an acknowledgement of advertisement 7, which is not "
                + "outstanding");
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("broke the EXS protocol");
    }

    @Test
    void garbageAndAnUnknownTypeEndTheConnection() throws Exception {
        Pair pair = connect();
        pair.peer.send(new byte[] {ExsMessage.VERSION, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("unknown type 9");
        Pair second = connect(); // the listener serves the next peer
        second.peer.send(new byte[] {7});
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("shorter than any header");
    }

    @Test
    void anAdvertisementOfMemoryThePeerNeverRegisteredFailsTheReceiveAndTouchesNothingElse() throws Exception {
        Pair pair = connect();
        MemorySegment memory = Arena.ofAuto().allocate(3 * 64);
        memory.fill(CANARY);
        ExsMemory registered = exs.register(memory);
        pair.socket.recv(registered, 64, 64, "into the middle");
        pair.peer.send(RawPeer.advertisement(0, 0, 64, 0x7777_7700, 0, 0));
        ExsEvent failed = next(ExsEvent.Type.RECV);
        assertThat(failed.context()).isEqualTo("into the middle");
        assertThat(failed.error()).isNotNull();
        // the peer's Terminate or the failed read's completion, whichever is seen first, says why
        assertThat(next(ExsEvent.Type.CLOSE).error().getMessage())
                .containsAnyOf("Invalid STag", "a read of the peer's data failed");
        MemorySegment canaries = Arena.ofAuto().allocate(3 * 64).fill(CANARY);
        assertThat(memory.mismatch(canaries)).as("no octet changed").isEqualTo(-1);
    }

    @Test
    void aReadOutsideTheAdvertisedBlockGetsNothingOfIt() throws Exception {
        Pair pair = connect();
        MemorySegment memory = ExsSuite.pattern(4096, 17);
        ExsMemory registered = exs.register(memory);
        pair.socket.send(registered, 1024, 100, "offered"); // more than the immediate 64: read through a window
        WorkCompletion advert = pair.peer.next(BOUND);
        assertThat(advert.opcode()).isEqualTo(WcOpcode.RECV);
        ExsMessage.Advertisement offered = (ExsMessage.Advertisement) ExsMessage.decode(
                pair.peer.received(advert), 0, (int) advert.byteLength());
        assertThat(offered.length()).isEqualTo(100);
        assertThat(pair.peer.read(offered.stag(), offered.taggedOffset() + 50, 100)).isZero(); // 50 past its end
        WorkCompletion read = pair.peer.next(BOUND);
        assertThat(read.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(read.status()).isNotEqualTo(WcStatus.SUCCESS);
        MemorySegment untouched = Arena.ofAuto().allocate(4096);
        assertThat(pair.peer.sink.memory().mismatch(untouched)).as("nothing was read").isEqualTo(-1);
        ExsEvent failed = next(ExsEvent.Type.SEND);
        assertThat(failed.context()).isEqualTo("offered");
        assertThat(failed.error()).isNotNull();
        assertThat(next(ExsEvent.Type.CLOSE).error()).isNotNull();
    }

    @Test
    void aBlockIsClosedToThePeerOnceItsSendEndsEvenIfTheAcknowledgementLeftTheWindowOpen() throws Exception {
        Pair pair = connect();
        ExsMemory registered = exs.register(ExsSuite.pattern(4096, 19));
        pair.socket.send(registered, 0, 1000, "offered");
        WorkCompletion advert = pair.peer.next(BOUND);
        ExsMessage.Advertisement offered = (ExsMessage.Advertisement) ExsMessage.decode(
                pair.peer.received(advert), 0, (int) advert.byteLength());
        assertThat(pair.peer.read(offered.stag(), offered.taggedOffset(), 1000)).isZero();
        WorkCompletion read = pair.peer.next(BOUND);
        assertThat(read.status()).isEqualTo(WcStatus.SUCCESS);
        byte[] ack = new byte[16];
        new ExsMessage.Acknowledgement(0, offered.sequence(), 1000, 0).encode(MemorySegment.ofArray(ack), 0);
        pair.peer.send(ack); // a plain Send: it does not invalidate the window, as an EXS receiver's would
        ExsEvent sent = next(ExsEvent.Type.SEND);
        assertThat(sent.error()).isNull();
        assertThat(pair.peer.read(offered.stag(), offered.taggedOffset(), 1000)).isZero();
        WorkCompletion again = null;
        for (WorkCompletion completion = pair.peer.next(BOUND); completion != null;
                completion = pair.peer.next(BOUND)) {
            if (completion.opcode() == WcOpcode.RDMA_READ) {
                again = completion;
                break;
            }
        }
        assertThat(again).as("the second read's completion").isNotNull();
        assertThat(again.status()).as("a read of the block after its send ended").isNotEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void aPeerThatVanishesMidTransferFailsWhatIsOutstanding() throws Exception {
        Pair pair = connect();
        ExsMemory registered = exs.register(ExsSuite.pattern(4096, 3));
        pair.socket.send(registered, 0, 4096, "offered");
        pair.socket.recv(registered, 0, 16, "waiting");
        assertThat(pair.peer.next(BOUND).opcode()).isEqualTo(WcOpcode.RECV); // the advertisement came
        pair.peer.qp.modify(QpState.ERROR);
        List<ExsEvent> failed = List.of(next(ExsEvent.Type.SEND), next(ExsEvent.Type.RECV));
        for (ExsEvent event : failed) {
            assertThat(event.error()).as("%s", event).hasMessageContaining("the connection failed");
        }
        assertThat(next(ExsEvent.Type.CLOSE).error()).hasMessageContaining("the connection failed");
    }

    @Test
    void aStrangerIsRefusedAndTheListenerServesTheNextPeer() throws Exception {
        listening.accept("accept");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RawPeer.connect(transport.initiator(), address,
                "GET / HTTP/1.1".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .hasMessageContaining("reject");
        RawPeer peer = RawPeer.connect(transport.initiator(), address, RawPeer.hello(2, 64));
        ExsEvent accepted = next(ExsEvent.Type.ACCEPT);
        assertThat(accepted.context()).isEqualTo("accept");
        assertThat(accepted.error()).isNull();
        assertThat(peer.qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void aCloseThePeerNeverFinishesIsAbortedAtItsDeadline() throws Exception {
        Pair pair = connect();
        ExsMemory sink = exs.register(Arena.ofAuto().allocate(64));
        pair.socket.recv(sink, 0, 64, "waiting");
        pair.socket.setOption(ExsOption.CLOSE_TIMEOUT, 200); // settable while connected
        transport.initiator().lastInitiatorEnd().stall(); // the peer takes nothing in: its side never closes
        pair.socket.close("closing");
        assertThat(pair.socket.state()).isEqualTo(ExsSocket.State.CLOSING);
        ExsEvent failed = next(ExsEvent.Type.RECV);
        assertThat(failed.context()).isEqualTo("waiting");
        assertThat(failed.error()).hasMessageContaining("did not finish closing within 200 ms");
        ExsEvent closed = next(ExsEvent.Type.CLOSE);
        assertThat(closed.context()).isEqualTo("closing");
        assertThat(closed.error()).hasMessageContaining("did not finish closing within 200 ms: aborted");
        assertThat(pair.socket.state()).isEqualTo(ExsSocket.State.CLOSED);
        awaitPeerLeftRts(pair.peer);
        assertThat(connect().socket.state()).as("the listener serves the next peer")
                .isEqualTo(ExsSocket.State.CONNECTED);
    }

    @Test
    void aCloseTimeoutOfZeroAbortsAtOnce() throws Exception {
        Pair pair = connect();
        ExsMemory sink = exs.register(Arena.ofAuto().allocate(64));
        pair.socket.recv(sink, 0, 64, "waiting");
        pair.socket.setOption(ExsOption.CLOSE_TIMEOUT, 0);
        pair.socket.close("closing");
        assertThat(pair.socket.state()).isEqualTo(ExsSocket.State.CLOSED);
        assertThat(next(ExsEvent.Type.RECV).error()).hasMessageContaining("aborted by its close");
        ExsEvent closed = next(ExsEvent.Type.CLOSE);
        assertThat(closed.context()).isEqualTo("closing");
        assertThat(closed.error()).as("an abort the user asked for").isNull();
        awaitPeerLeftRts(pair.peer);
    }

    @Test
    void aQueueWithAThreadOfItsOwnAbortsAStalledCloseWithNobodyWaiting() throws Exception {
        ExsQueue own = exs.createQueue(ExsQueue.Driver.THREAD);
        try {
            SocketAddress at = transport.nextAddress();
            ExsSocket listener = exs.socket(own);
            listener.setOption(ExsOption.CLOSE_TIMEOUT, 100);
            listener.bind(at);
            listener.listen(1);
            var accepted = listener.acceptAsync();
            RawPeer peer = RawPeer.connect(transport.initiator(), at, RawPeer.hello(2, 64));
            ExsSocket socket = accepted.get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).socket();
            assertThat(socket.option(ExsOption.CLOSE_TIMEOUT)).as("inherited from the listener").isEqualTo(100);
            transport.initiator().lastInitiatorEnd().stall();
            var closing = socket.closeAsync();
            org.assertj.core.api.Assertions.assertThat(closing).failsWithin(BOUND)
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withMessageContaining("did not finish closing within 100 ms");
            awaitPeerLeftRts(peer);
        } finally {
            own.close();
        }
    }

    @Test
    void optionsAreCheckedAndTheNegotiatedOnesFixedOnceConnected() throws Exception {
        Pair pair = connect();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> pair.socket.setOption(ExsOption.CLOSE_TIMEOUT, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLOSE_TIMEOUT is 0 to 3600000");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> pair.socket.setOption(ExsOption.CREDITS, 4))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot set CREDITS")
                .hasMessageContaining("is connected");
        assertThat(pair.socket.option(ExsOption.CLOSE_TIMEOUT)).isEqualTo(ExsOption.CLOSE_TIMEOUT.defaultValue());
    }

    /** Waits until the raw peer learns that its connection went down (on its own thread). */
    private static void awaitPeerLeftRts(RawPeer peer) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (peer.qp.state() == QpState.RTS && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(peer.qp.state()).as("the peer's end of the connection").isNotEqualTo(QpState.RTS);
    }

    /** The next event of {@code type}, keeping the others. */
    private ExsEvent next(ExsEvent.Type type) throws InterruptedException {
        return events.next(type);
    }
}
