package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.rddp.engine.EnginePair.emptySend;
import static org.rddp.engine.EnginePair.fill;
import static org.rddp.engine.EnginePair.mismatch;
import static org.rddp.engine.EnginePair.nonZero;
import static org.rddp.engine.EnginePair.read;
import static org.rddp.engine.EnginePair.send;
import static org.rddp.engine.EnginePair.write;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;
import static org.rddp.engine.StagResolver.REMOTE_READ;
import static org.rddp.engine.StagResolver.REMOTE_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.error.DdpError;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RdmapOpcode;

/**
 * Sends, RDMA Writes and RDMA Reads between two engines (RFC 5040 §5, RFC 5041 §5): the payload lands where it was
 * aimed and nowhere else, messages are cut to the LLP's MULPDU and scattered across a receive's elements, completions
 * come in send-queue order with their status and length, Reads stay within ORD, Send with Invalidate and local
 * invalidation revoke a window, a stalled peer back-pressures the sender without loss, tagged payload placed out of
 * order is still delivered in order, and a graceful disconnect or an abort ends both sides with everything flushed.
 */
class EngineTransferTest {
    private static final int PER_SEGMENT = EnginePair.MULPDU - DdpSegment.UNTAGGED_HEADER_LENGTH;

    @Test
    void sendsFillTheReceivesInPostingOrderAndCompleteOnBothSides() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged inbox = pair.b.memory.region(128, LOCAL_WRITE);
            TestMemory.Tagged source = pair.a.memory.region(104, 0);
            fill(source.memory(), 1);
            pair.b.postReceive(1, inbox, 0, 64).postReceive(2, inbox, 64, 64);
            pair.start();
            pair.a.post(send(11, source, 0, 40)).post(send(12, source, 40, 64));
            pair.settle();

            assertThat(pair.b.queues.receivesDone).containsExactly(
                    new ReceiveDone(1, WcStatus.SUCCESS, 40, RdmapOpcode.SEND, 0),
                    new ReceiveDone(2, WcStatus.SUCCESS, 64, RdmapOpcode.SEND, 0));
            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(11, WorkOpcode.SEND, WcStatus.SUCCESS, 40),
                    new SendDone(12, WorkOpcode.SEND, WcStatus.SUCCESS, 64));
            assertThat(mismatch(source.memory().asSlice(0, 40), inbox.memory().asSlice(0, 40))).isEqualTo(-1);
            assertThat(nonZero(inbox.memory().asSlice(40, 24))).as("the first receive past its Send").isEqualTo(-1);
            assertThat(mismatch(source.memory().asSlice(40, 64), inbox.memory().asSlice(64, 64))).isEqualTo(-1);
            assertThat(pair.a.queues.events).extracting(TestQueues.Event::event).containsExactly(QpEvent.ESTABLISHED);
            assertThat(pair.b.queues.events).extracting(TestQueues.Event::event).containsExactly(QpEvent.ESTABLISHED);
            assertThat(pair.a.state()).isEqualTo(QpState.RTS);
            assertThat(pair.b.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void aLongSendIsCutToTheMulpduGatheredAndScatteredAcrossElements() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            int size = 3000;
            TestMemory.Tagged first = pair.a.memory.region(1000, 0);
            TestMemory.Tagged second = pair.a.memory.region(2000, 0);
            fill(first.memory(), 2);
            fill(second.memory(), 3);
            TestMemory.Tagged low = pair.b.memory.region(2000, LOCAL_WRITE);
            TestMemory.Tagged high = pair.b.memory.region(1000, LOCAL_WRITE);
            ReceiveWork receive = new ReceiveWork(3);
            receive.wrId = 7;
            receive.sges.set(0, low.stag(), 0, 500);
            receive.sges.set(1, high.stag(), 0, 1000);
            receive.sges.set(2, low.stag(), 500, 1500);
            pair.b.queues.receives.add(receive);
            pair.start();
            SendWork message = EnginePair.work(8, WorkOpcode.SEND, 2);
            message.sges.set(0, first.stag(), 0, 1000);
            message.sges.set(1, second.stag(), 0, 2000);
            long before = pair.a.end.segmentsSent();
            pair.a.post(message);
            pair.settle();

            assertThat(pair.a.end.segmentsSent() - before).isEqualTo((size + PER_SEGMENT - 1) / PER_SEGMENT);
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(7, WcStatus.SUCCESS, size,
                    RdmapOpcode.SEND, 0));
            MemorySegment sent = MemorySegment.ofArray(new byte[size]);
            MemorySegment.copy(first.memory(), 0, sent, 0, 1000);
            MemorySegment.copy(second.memory(), 0, sent, 1000, 2000);
            MemorySegment landed = MemorySegment.ofArray(new byte[size]);
            MemorySegment.copy(low.memory(), 0, landed, 0, 500);
            MemorySegment.copy(high.memory(), 0, landed, 500, 1000);
            MemorySegment.copy(low.memory(), 500, landed, 1500, 1500);
            assertThat(mismatch(sent, landed)).as("first octet that differs").isEqualTo(-1);
            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(8, WorkOpcode.SEND, WcStatus.SUCCESS,
                    size));
        }
    }

    @Test
    void anRdmaWritePlacesAtItsToAndNowhereElse() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            int size = 5000;
            TestMemory.Tagged sink = pair.b.memory.region(6000, LOCAL_WRITE | REMOTE_WRITE);
            TestMemory.Tagged doorbell = pair.b.memory.region(8, LOCAL_WRITE);
            TestMemory.Tagged source = pair.a.memory.region(size, 0);
            fill(source.memory(), 4);
            pair.b.postReceive(1, doorbell, 0, 8);
            pair.start();
            pair.a.post(write(1, source, 0, size, sink.stag(), 100)).post(emptySend(2));
            pair.settle();

            assertThat(mismatch(source.memory(), sink.memory().asSlice(100, size))).isEqualTo(-1);
            assertThat(nonZero(sink.memory().asSlice(0, 100))).as("before the TO").isEqualTo(-1);
            assertThat(nonZero(sink.memory().asSlice(100 + size))).as("past the Write").isEqualTo(-1);
            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(1, WorkOpcode.RDMA_WRITE, WcStatus.SUCCESS, size),
                    new SendDone(2, WorkOpcode.SEND, WcStatus.SUCCESS, 0));
            assertThat(pair.b.queues.receivesDone).as("a Write consumes no receive").containsExactly(
                    new ReceiveDone(1, WcStatus.SUCCESS, 0, RdmapOpcode.SEND, 0));
            assertThat(pair.b.queues.sendsDone).isEmpty();
        }
    }

    @Test
    void anRdmaReadFetchesTheDataAndCompletesWithItsLength() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            int size = 3000;
            TestMemory.Tagged readable = pair.b.memory.region(4000, REMOTE_READ);
            fill(readable.memory(), 5);
            TestMemory.Tagged sink = pair.a.memory.region(size + 20, LOCAL_WRITE);
            pair.start();
            pair.a.post(read(1, sink, 10, size, readable.stag(), 500));
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(1, WorkOpcode.RDMA_READ,
                    WcStatus.SUCCESS, size));
            assertThat(mismatch(readable.memory().asSlice(500, size), sink.memory().asSlice(10, size)))
                    .isEqualTo(-1);
            assertThat(nonZero(sink.memory().asSlice(0, 10))).isEqualTo(-1);
            assertThat(nonZero(sink.memory().asSlice(10 + size))).isEqualTo(-1);
            assertThat(pair.b.queues.sendsDone).as("the responder's answer is no work of its own").isEmpty();
            assertThat(pair.b.queues.receivesDone).isEmpty();
        }
    }

    /** RFC 5040 §5.5: local completions in the order the work was submitted, whatever finishes first. */
    @Test
    void completionsFollowTheSendQueuesOrder() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged readable = pair.b.memory.region(64, REMOTE_READ);
            TestMemory.Tagged writable = pair.b.memory.region(64, LOCAL_WRITE | REMOTE_WRITE);
            pair.b.postReceive(3, writable, 0, 0);
            TestMemory.Tagged local = pair.a.memory.region(128, LOCAL_WRITE);
            pair.start();
            pair.b.end.stall(); // the Read's answer waits; the Write and the Send behind it are sent meanwhile
            pair.a.post(read(1, local, 0, 64, readable.stag(), 0)).post(write(2, local, 64, 64, writable.stag(), 0))
                    .post(emptySend(3));
            pair.settle();
            assertThat(pair.a.end.segmentsSent()).as("all three went out").isEqualTo(3);
            assertThat(pair.a.queues.sendsDone).as("none reported ahead of the Read").isEmpty();

            pair.b.end.resume();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status).containsExactly(
                    tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS), tuple(3L, WcStatus.SUCCESS));
        }
    }

    /** RFC 5040 §6.1: no more Read Requests outstanding than the ORD; the rest wait in the send queue. */
    @Test
    void readsStayWithinOrd() {
        try (EnginePair pair = EnginePair.of(LlpParameters.of(2, 2), LlpParameters.of(2, 2), EnginePair.MULPDU,
                32)) {
            TestMemory.Tagged readable = pair.b.memory.region(500, REMOTE_READ);
            fill(readable.memory(), 6);
            TestMemory.Tagged sink = pair.a.memory.region(500, LOCAL_WRITE);
            pair.start();
            pair.b.end.stall();
            for (int i = 0; i < 5; i++) {
                pair.a.post(read(i, sink, i * 100L, 100, readable.stag(), i * 100L));
            }
            pair.settle();
            assertThat(pair.a.end.segmentsSent()).as("Read Requests out").isEqualTo(2);

            pair.b.end.resume();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status).containsExactly(
                    tuple(0L, WcStatus.SUCCESS), tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.SUCCESS),
                    tuple(3L, WcStatus.SUCCESS), tuple(4L, WcStatus.SUCCESS));
            assertThat(mismatch(readable.memory(), sink.memory())).isEqualTo(-1);
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
        }
    }

    /** RFC 5041 §5.2: a zero-length Write or Read checks no STag of the peer's. */
    @Test
    void zeroLengthWritesAndReadsCheckNoStag() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged local = pair.a.memory.region(8, LOCAL_WRITE);
            pair.start();
            pair.a.post(write(1, local, 0, 0, 0x7777_7700, 0)).post(read(2, local, 0, 0, 0x7777_7700, 0));
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(1, WorkOpcode.RDMA_WRITE, WcStatus.SUCCESS, 0),
                    new SendDone(2, WorkOpcode.RDMA_READ, WcStatus.SUCCESS, 0));
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
            assertThat(pair.b.state()).isEqualTo(QpState.RTS);
        }
    }

    /**
     * A Send with Invalidate revokes the window it names (RFC 5040 §5.3) and the receive reports it; a Write to the
     * window after it is refused with a tagged buffer error (RFC 5041 §7.2).
     */
    @Test
    void aSendWithInvalidateRevokesTheWindowItNames() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged backing = pair.b.memory.region(64, LOCAL_WRITE);
            TestMemory.Tagged window = pair.b.memory.window(backing.memory(), REMOTE_WRITE);
            TestMemory.Tagged inbox = pair.b.memory.region(8, LOCAL_WRITE);
            pair.b.postReceive(1, inbox, 0, 8);
            TestMemory.Tagged source = pair.a.memory.region(16, 0);
            fill(source.memory(), 7);
            pair.start();
            SendWork invalidate = EnginePair.work(2, WorkOpcode.SEND_WITH_INVALIDATE, 1);
            invalidate.remoteStag = window.stag();
            pair.a.post(write(1, source, 0, 8, window.stag(), 0)).post(invalidate);
            pair.settle();
            assertThat(mismatch(source.memory().asSlice(0, 8), backing.memory().asSlice(0, 8))).isEqualTo(-1);
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.SUCCESS, 0,
                    RdmapOpcode.SEND_WITH_INVALIDATE, window.stag()));

            pair.a.post(write(3, source, 8, 8, window.stag(), 8));
            pair.settle();
            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
            assertThat(nonZero(backing.memory().asSlice(8))).as("nothing placed after the invalidation")
                    .isEqualTo(-1);
        }
    }

    /**
     * A Write that an LLP could place ahead of its turn (RFC 5043 §10) is not placed into a window early: a Send with
     * Invalidate before it may revoke the window, and RFC 5042 §6.4 has the ULP rely on nothing landing after that.
     */
    @Test
    void aWriteBehindASendWithInvalidateIsNotPlacedEarlyIntoTheWindow() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged backing = pair.b.memory.region(64, LOCAL_WRITE);
            TestMemory.Tagged window = pair.b.memory.window(backing.memory(), REMOTE_WRITE);
            TestMemory.Tagged inbox = pair.b.memory.region(8, LOCAL_WRITE);
            pair.b.postReceive(1, inbox, 0, 8);
            TestMemory.Tagged source = pair.a.memory.region(64, 0);
            fill(source.memory(), 8);
            pair.start();
            pair.b.end.stall(); // both arrive before the responder looks at either: it sees the Write first
            pair.b.end.reorderTagged(true);
            SendWork invalidate = EnginePair.work(1, WorkOpcode.SEND_WITH_INVALIDATE, 1);
            invalidate.remoteStag = window.stag();
            pair.a.post(invalidate).post(write(2, source, 0, 64, window.stag(), 0));
            pair.settle();
            pair.b.end.resume();
            pair.settle();

            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.SUCCESS, 0,
                    RdmapOpcode.SEND_WITH_INVALIDATE, window.stag()));
            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
            assertThat(nonZero(backing.memory())).as("nothing of the Write landed").isEqualTo(-1);
        }
    }

    @Test
    void aLocalInvalidateRevokesAWindowOfThisSide() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged backing = pair.b.memory.region(64, LOCAL_WRITE);
            TestMemory.Tagged window = pair.b.memory.window(backing.memory(), REMOTE_WRITE);
            TestMemory.Tagged source = pair.a.memory.region(8, 0);
            fill(source.memory(), 9);
            pair.start();
            SendWork invalidate = EnginePair.work(1, WorkOpcode.LOCAL_INVALIDATE, 1);
            invalidate.localStag = window.stag();
            pair.b.post(invalidate);
            pair.settle();
            assertThat(pair.b.queues.sendsDone).containsExactly(new SendDone(1, WorkOpcode.LOCAL_INVALIDATE,
                    WcStatus.SUCCESS, 0));
            assertThat(pair.b.end.segmentsSent()).as("a local operation puts nothing on the wire").isZero();

            pair.a.post(write(2, source, 0, 8, window.stag(), 0));
            pair.settle();
            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
            assertThat(nonZero(backing.memory())).isEqualTo(-1);
        }
    }

    @Test
    void aStalledReceiverBackPressuresTheSenderAndNothingIsLost() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            int count = 200;
            TestMemory.Tagged sink = pair.b.memory.region(count * 100L, LOCAL_WRITE);
            for (int i = 0; i < count; i++) {
                pair.b.postReceive(i, sink, i * 100L, 100);
            }
            TestMemory.Tagged source = pair.a.memory.region(count * 100L, 0);
            fill(source.memory(), 10);
            pair.start();
            pair.b.end.stall();
            for (int i = 0; i < count; i++) {
                pair.a.post(send(i, source, i * 100L, 100));
            }
            pair.settle();
            assertThat(pair.a.end.segmentsSent()).as("exactly the 32 segments the ring holds").isEqualTo(32);
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId)
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 32).boxed().toList());

            pair.b.end.resume();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, count)
                            .mapToObj(i -> tuple(i, WcStatus.SUCCESS)).toList());
            assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::wrId, ReceiveDone::byteLength)
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, count)
                            .mapToObj(i -> tuple(i, 100L)).toList());
            assertThat(mismatch(source.memory(), sink.memory())).isEqualTo(-1);
        }
    }

    @Test
    void taggedPayloadPlacedOutOfOrderIsDeliveredInOrder() {
        try (EnginePair pair = EnginePair.of(LlpParameters.of(4, 4), LlpParameters.of(4, 4), EnginePair.MULPDU,
                64)) {
            int size = 200_000;
            TestMemory.Tagged sink = pair.b.memory.region(size, LOCAL_WRITE | REMOTE_WRITE);
            TestMemory.Tagged readable = pair.b.memory.region(size, REMOTE_READ);
            fill(readable.memory(), 77);
            TestMemory.Tagged doorbell = pair.b.memory.region(8, LOCAL_WRITE);
            pair.b.postReceive(1, doorbell, 0, 8);
            TestMemory.Tagged source = pair.a.memory.region(size, 0);
            fill(source.memory(), 78);
            TestMemory.Tagged readSink = pair.a.memory.region(size, LOCAL_WRITE);
            pair.start();
            pair.a.end.reorderTagged(true);
            pair.b.end.reorderTagged(true);
            pair.a.post(write(1, source, 0, size, sink.stag(), 0)).post(read(2, readSink, 0, size, readable.stag(), 0))
                    .post(emptySend(3));
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(1, WorkOpcode.RDMA_WRITE, WcStatus.SUCCESS, size),
                    new SendDone(2, WorkOpcode.RDMA_READ, WcStatus.SUCCESS, size),
                    new SendDone(3, WorkOpcode.SEND, WcStatus.SUCCESS, 0));
            assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::status).containsExactly(WcStatus.SUCCESS);
            assertThat(mismatch(source.memory(), sink.memory())).isEqualTo(-1);
            assertThat(mismatch(readable.memory(), readSink.memory())).isEqualTo(-1);
        }
    }

    @Test
    void aGracefulDisconnectFinishesPostedSendsThenFlushesReceivesOnBothSides() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged inbox = pair.b.memory.region(16, LOCAL_WRITE);
            pair.b.postReceive(1, inbox, 0, 8).postReceive(2, inbox, 8, 8);
            TestMemory.Tagged own = pair.a.memory.region(8, LOCAL_WRITE);
            pair.a.postReceive(3, own, 0, 8);
            pair.start();
            pair.a.post(emptySend(4));
            pair.a.engine.disconnect();
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(4, WorkOpcode.SEND, WcStatus.SUCCESS,
                    0));
            assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::wrId, ReceiveDone::status)
                    .containsExactly(tuple(1L, WcStatus.SUCCESS), tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.a.queues.receivesDone).extracting(ReceiveDone::wrId, ReceiveDone::status)
                    .containsExactly(tuple(3L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.a.queues.states).containsExactly(QpState.RTS, QpState.CLOSING, QpState.IDLE);
            assertThat(pair.b.queues.states).containsExactly(QpState.RTS, QpState.IDLE);
            assertThat(pair.a.queues.only(QpEvent.DISCONNECTED)).isNotNull();
            assertThat(pair.b.queues.only(QpEvent.DISCONNECTED)).isNotNull();
        }
    }

    @Test
    void anAbortFlushesOutstandingWorkOnBothSides() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged readable = pair.b.memory.region(64, REMOTE_READ);
            TestMemory.Tagged inbox = pair.b.memory.region(8, LOCAL_WRITE);
            pair.b.postReceive(1, inbox, 0, 8);
            TestMemory.Tagged sink = pair.a.memory.region(64, LOCAL_WRITE);
            pair.start();
            pair.b.end.stall();
            pair.a.post(read(2, sink, 0, 64, readable.stag(), 0));
            pair.settle();
            pair.a.engine.abort("the application gave up");
            pair.settle();

            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactly(tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.a.queues.only(QpEvent.CONNECTION_LOST).detail()).isEqualTo("the application gave up");
            assertThat(pair.b.queues.only(QpEvent.CONNECTION_LOST)).isNotNull();
            assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::wrId, ReceiveDone::status)
                    .containsExactly(tuple(1L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.a.state()).isEqualTo(QpState.ERROR);
            assertThat(pair.b.state()).isEqualTo(QpState.ERROR);
            assertThat(nonZero(sink.memory())).isEqualTo(-1);
        }
    }
}
