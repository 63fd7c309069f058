package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.rddp.engine.EnginePair.fill;
import static org.rddp.engine.EnginePair.mismatch;
import static org.rddp.engine.EnginePair.nonZero;
import static org.rddp.engine.EnginePair.write;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;
import static org.rddp.engine.StagResolver.REMOTE_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.WcStatus;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.error.RdmapError;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.testing.InMemoryLlp;

/**
 * What the engine owes an LLP that sends payloads where they lie ({@code LlpStream.holdsPayload}), as MPA does with
 * the FPDUs it frames around: a send is reported complete only once the LLP no longer reads its memory; a segment
 * gathered from several elements into the engine's own buffer does not overwrite one still held there; a held
 * payload whose memory fails under the LLP fails the sends it took, with a Terminate, and none is reported done.
 * Both engines' loops are this thread's.
 */
class HeldPayloadTest {
    private static final int SIZE = 600;

    @Test
    void aSendIsReportedCompleteOnlyOnceTheLlpHasReadItsPayload() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged source = pair.a.memory.region(SIZE, 0);
            TestMemory.Tagged sink = pair.b.memory.region(SIZE, LOCAL_WRITE | REMOTE_WRITE);
            fill(source.memory(), 3);
            pair.start();
            keepingPayloads(pair.a.end);
            pair.a.post(write(1, source, 0, SIZE, sink.stag(), 0));
            pair.settle();
            assertThat(pair.a.queues.sendsDone).isEmpty();
            assertThat(nonZero(sink.memory())).as("nothing left yet").isEqualTo(-1);

            fill(source.memory(), 5); // what the LLP reads when it sends: the memory is still the send's
            pair.a.end.releaseWrites();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(1, WorkOpcode.RDMA_WRITE,
                    WcStatus.SUCCESS, SIZE));
            assertThat(mismatch(source.memory(), sink.memory())).as("first octet that differs").isEqualTo(-1);
        }
    }

    @Test
    void aSendIsReportedCompleteOnceTheLlpTookItsPayloadThoughItHoldsTheNextOne() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged source = pair.a.memory.region(2L * SIZE, 0);
            TestMemory.Tagged sink = pair.b.memory.region(2L * SIZE, LOCAL_WRITE | REMOTE_WRITE);
            fill(source.memory(), 7);
            pair.start();
            keepingPayloads(pair.a.end);
            pair.a.post(write(1, source, 0, SIZE, sink.stag(), 0));
            pair.settle();
            pair.a.post(write(2, source, SIZE, SIZE, sink.stag(), SIZE));
            pair.settle(); // behind the held Write: pushed back
            assertThat(pair.a.queues.sendsDone).isEmpty();

            pair.a.end.takeHeld(); // the first Write leaves; the second is sent at once and held in its turn
            pair.settle();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactly(tuple(1L, WcStatus.SUCCESS));

            pair.a.end.releaseWrites();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId).containsExactly(1L, 2L);
            assertThat(mismatch(source.memory(), sink.memory())).isEqualTo(-1);
        }
    }

    @Test
    void aSegmentGatheredFromSeveralElementsDoesNotOverwriteOneStillHeld() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged first = pair.a.memory.region(SIZE, 0);
            TestMemory.Tagged second = pair.a.memory.region(SIZE, 0);
            fill(first.memory(), 3);
            fill(second.memory(), 11);
            TestMemory.Tagged sink = pair.b.memory.region(2L * SIZE, LOCAL_WRITE);
            pair.b.postReceive(10, sink, 0, SIZE).postReceive(11, sink, SIZE, SIZE);
            pair.start();
            pair.a.end.holdPayloads();
            int half = SIZE / 2; // each Send is one segment of two elements: the engine gathers it into its buffer
            pair.a.post(twoElements(1, first, half)).post(twoElements(2, second, half));
            pair.settle();

            assertThat(pair.b.queues.receivesDone).containsExactly(
                    new ReceiveDone(10, WcStatus.SUCCESS, SIZE, RdmapOpcode.SEND, 0),
                    new ReceiveDone(11, WcStatus.SUCCESS, SIZE, RdmapOpcode.SEND, 0));
            assertThat(mismatch(first.memory(), sink.memory().asSlice(0, SIZE))).as("the first Send")
                    .isEqualTo(-1);
            assertThat(mismatch(second.memory(), sink.memory().asSlice(SIZE, SIZE))).as("the second Send")
                    .isEqualTo(-1);
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId).containsExactly(1L, 2L);
        }
    }

    @Test
    void aHeldPayloadWhoseMemoryFailsFailsItsSendWithATerminate() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            Arena arena = Arena.ofShared();
            TestMemory.Tagged source = pair.a.memory.region(arena.allocate(SIZE, 8), 0);
            TestMemory.Tagged sink = pair.b.memory.region(SIZE, LOCAL_WRITE | REMOTE_WRITE);
            pair.start();
            keepingPayloads(pair.a.end);
            pair.a.post(write(1, source, 0, SIZE, sink.stag(), 0));
            pair.settle();
            assertThat(pair.a.queues.sendsDone).isEmpty();

            arena.close(); // the application frees the memory of a send the LLP still holds
            pair.a.end.releaseWrites();
            pair.settle();
            assertThat(pair.a.queues.sendsDone).as("never sent: not reported done").containsExactly(
                    new SendDone(1, WorkOpcode.RDMA_WRITE, WcStatus.WR_FLUSH_ERR, SIZE));
            TestQueues.Event sent = pair.a.queues.only(QpEvent.TERMINATE_SENT);
            assertThat(sent.terminate().cause()).contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(sent.detail()).contains("IllegalStateException");
            assertThat(pair.a.reported).as("the loop heard why the stream ended").singleElement()
                    .isInstanceOf(IllegalStateException.class);
            assertThat(pair.b.queues.only(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(nonZero(sink.memory())).as("nothing placed").isEqualTo(-1);
        }
    }

    /** The end holds payloads to read them when it flushes, and keeps them, as TCP taking nothing. */
    private static void keepingPayloads(InMemoryLlp end) {
        end.holdPayloads();
        end.stallWrites();
    }

    private static SendWork twoElements(long wrId, TestMemory.Tagged source, int half) {
        SendWork work = EnginePair.work(wrId, WorkOpcode.SEND, 2);
        work.sges.set(0, source.stag(), 0, half);
        work.sges.set(1, source.stag(), half, SIZE - half);
        return work;
    }
}
