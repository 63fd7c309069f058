package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Progress;
import org.rddp.error.RdmapError;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.work.QpEvent;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * What the engine owes an LLP that sends payloads where they lie ({@code LlpStream.holdsPayload}), as MPA does with
 * the FPDUs it frames around: a send is reported complete only once the LLP no longer reads its memory; a segment
 * gathered from several elements into the engine's own buffer does not overwrite one still held there; a held
 * payload whose memory fails under the LLP fails the sends it took, with a Terminate, and none is reported done.
 * Both ends' loops are this thread's.
 */
class HeldPayloadTest {
    private static final int MULPDU = 1024;
    private static final int SIZE = 600;

    @Test
    void aSendIsReportedCompleteOnlyOnceTheLlpHasReadItsPayload() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(MULPDU, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = keepingPayloads(transport);
            MemoryRegion source = peers.initiator.region(SIZE, Access.LOCAL_WRITE);
            MemoryRegion sink = peers.responder.region(SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            fill(source.memory(), 3);
            peers.initiator.post(write(1, source, sink));
            transport.initiator().loop().invoke();
            transport.initiator().loop().invoke();
            peers.initiator.assertNoCompletion();

            fill(source.memory(), 5); // what the LLP reads when it sends: the memory is still the send's
            end.releaseWrites();
            WorkCompletion written = peers.initiator.next();
            assertThat(written.wrId()).isEqualTo(1);
            assertThat(written.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(differs(landed(peers, sink), 5)).as("first octet that differs").isEqualTo(-1);
        }
    }

    @Test
    void aSendIsReportedCompleteOnceTheLlpTookItsPayloadThoughItHoldsTheNextOne() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(MULPDU, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = keepingPayloads(transport);
            MemoryRegion source = peers.initiator.region(2L * SIZE, Access.LOCAL_WRITE);
            MemoryRegion sink = peers.responder.region(2L * SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            peers.initiator.post(write(1, source, sink));
            transport.initiator().loop().invoke();
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(2).signaled(true)
                    .sge(0, source, SIZE, SIZE).remote(sink.rkey(), sink.iova() + SIZE));
            transport.initiator().loop().invoke(); // behind the held Write: pushed back
            peers.initiator.assertNoCompletion();

            end.takeHeld(); // the first Write leaves; the second is sent at once and held in its turn
            WorkCompletion first = peers.initiator.next();
            assertThat(first.wrId()).isEqualTo(1);
            assertThat(first.status()).isEqualTo(WcStatus.SUCCESS);
            transport.initiator().loop().invoke();
            peers.initiator.assertNoCompletion();

            end.releaseWrites();
            assertThat(peers.initiator.next().wrId()).isEqualTo(2);
        }
    }

    @Test
    void aSegmentGatheredFromSeveralElementsDoesNotOverwriteOneStillHeld() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(MULPDU, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            transport.initiator().lastInitiatorEnd().holdPayloads();
            MemoryRegion first = peers.initiator.region(SIZE, Access.LOCAL_WRITE);
            MemoryRegion second = peers.initiator.region(SIZE, Access.LOCAL_WRITE);
            fill(first.memory(), 3);
            fill(second.memory(), 11);
            MemoryRegion sink = peers.responder.region(2L * SIZE, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, SIZE, 10);
            peers.responder.postReceive(sink, SIZE, SIZE, 11);
            int half = SIZE / 2; // each Send is one segment of two elements: the engine gathers it into its buffer
            peers.initiator.post(new SendWorkRequest(2).opcode(WorkOpcode.SEND).wrId(1).signaled(true)
                    .sge(0, first, 0, half).sge(1, first, half, SIZE - half));
            peers.initiator.post(new SendWorkRequest(2).opcode(WorkOpcode.SEND).wrId(2).signaled(true)
                    .sge(0, second, 0, half).sge(1, second, half, SIZE - half));
            for (long wrId = 10; wrId <= 11; wrId++) {
                WorkCompletion received = peers.responder.next();
                assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(received.wrId()).isEqualTo(wrId);
            }
            assertThat(differs(sink.memory().asSlice(0, SIZE), 3)).as("the first Send's first octet that differs")
                    .isEqualTo(-1);
            assertThat(differs(sink.memory().asSlice(SIZE, SIZE), 11)).as("the second Send's first octet that differs")
                    .isEqualTo(-1);
            assertThat(peers.initiator.next().wrId()).isEqualTo(1);
            assertThat(peers.initiator.next().wrId()).isEqualTo(2);
        }
    }

    @Test
    void aHeldPayloadWhoseMemoryFailsFailsItsSendWithATerminate() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(MULPDU, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = keepingPayloads(transport);
            Arena arena = Arena.ofShared();
            MemoryRegion source = peers.initiator.pd.register(arena.allocate(SIZE, 8), EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion sink = peers.responder.region(SIZE, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            peers.initiator.post(write(1, source, sink));
            transport.initiator().loop().invoke();
            peers.initiator.assertNoCompletion();

            arena.close(); // the application frees the memory of a send the LLP still holds
            end.releaseWrites();
            WorkCompletion failed = peers.initiator.next();
            assertThat(failed.wrId()).isEqualTo(1);
            assertThat(failed.status()).as("never sent: not reported done").isEqualTo(WcStatus.WR_FLUSH_ERR);
            Side.Event sent = peers.initiator.await(QpEvent.TERMINATE_SENT);
            assertThat(sent.terminate().cause()).contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(sent.detail()).contains("IllegalStateException");
            assertThat(peers.responder.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(sink.memory().mismatch(MemorySegment.ofArray(new byte[SIZE]))).as("nothing placed")
                    .isEqualTo(-1);
        }
    }

    /** The initiator's end, holding payloads to read them when it flushes, and keeping them, as TCP taking nothing. */
    private static InMemoryLlp keepingPayloads(InMemoryTransport transport) {
        InMemoryLlp end = transport.initiator().lastInitiatorEnd();
        end.holdPayloads();
        end.stallWrites();
        return end;
    }

    private static SendWorkRequest write(long wrId, MemoryRegion source, MemoryRegion sink) {
        return new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(wrId).signaled(true)
                .sge(0, source, 0, SIZE).remote(sink.rkey(), sink.iova());
    }

    /** The Write's octets as placed: a Send behind it is received once the Write is placed (RFC 5040 §5.5). */
    private static MemorySegment landed(Peers peers, MemoryRegion sink) {
        peers.responder.postReceive(sink, 0, 0, 20);
        peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).signaled(true).noSge());
        WorkCompletion received = peers.responder.next();
        assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        return sink.memory().asSlice(0, SIZE);
    }

    private static void fill(MemorySegment memory, int seed) {
        for (int i = 0; i < SIZE; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * seed + seed));
        }
    }

    /** Where {@code memory} first differs from what {@link #fill} makes with {@code seed}; -1 if nowhere. */
    private static long differs(MemorySegment memory, int seed) {
        MemorySegment expected = MemorySegment.ofArray(new byte[SIZE]);
        fill(expected, seed);
        return memory.mismatch(expected);
    }
}
