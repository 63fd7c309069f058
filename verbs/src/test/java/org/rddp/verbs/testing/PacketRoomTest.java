package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.loop.Progress;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * How the engine cuts a message to what is left of the LLP's packet ({@code LlpStream.packetRoom}): a message longer
 * than one segment starts with a segment that fills the room, when the room holds at least a quarter of a full
 * segment's payload; a message that fits one segment is never cut; the data lands whole either way. Both ends'
 * loops are this thread's, so the segments a post took are known exactly.
 */
class PacketRoomTest {
    private static final int MULPDU = 1024;
    private static final int FULL = MULPDU - DdpSegment.TAGGED_HEADER_LENGTH;
    private static final int LONG = 2 * FULL + 480;

    @Test
    void aLongMessageStartsWithASegmentThatFillsThePacket() throws Exception {
        // the room for one 300-octet segment, then a fresh packet, as a stack bundling them would report
        AtomicInteger asked = new AtomicInteger();
        assertThat(segmentsOfOneWrite(LONG, () -> asked.getAndIncrement() == 0 ? 300 : MULPDU))
                .as("300 octets, two full segments, the rest").isEqualTo(4);
    }

    @Test
    void aRoomTooSmallToBeWorthASegmentIsLeft() throws Exception {
        assertThat(segmentsOfOneWrite(LONG, () -> DdpSegment.TAGGED_HEADER_LENGTH + FULL / 4 - 1))
                .as("full segments, as without a room").isEqualTo(3);
    }

    @Test
    void aMessageThatFitsOneSegmentIsNeverCut() throws Exception {
        assertThat(segmentsOfOneWrite(FULL, () -> 300)).isEqualTo(1);
    }

    /** Writes {@code size} patterned octets, the initiator's stream reporting {@code room}; the segments it took. */
    private static long segmentsOfOneWrite(int size, IntSupplier room) throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(MULPDU, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = transport.initiator().lastInitiatorEnd();
            MemoryRegion sink = peers.responder.region(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion source = peers.initiator.region(size, Access.LOCAL_WRITE);
            for (int i = 0; i < size; i++) {
                source.memory().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            peers.responder.postReceive(sink, 0, 0, 1); // for the Send that follows the Write
            end.packetRoom(room);
            long before = end.segmentsSent();
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(1).signaled(true)
                    .sge(0, source, 0, size).remote(sink.rkey(), sink.iova()));
            transport.initiator().loop().invoke();
            long segments = end.segmentsSent() - before;

            // a Send behind the Write: once it is received, the Write is placed (RFC 5040 §5.5)
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).signaled(true).noSge());
            WorkCompletion received = peers.responder.next();
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            MemorySegment landed = sink.memory().asSlice(0, size);
            assertThat(landed.mismatch(source.memory().asSlice(0, size))).as("first octet that differs").isEqualTo(-1);
            assertThat(peers.initiator.next().wrId()).isEqualTo(1);
            assertThat(peers.initiator.next().wrId()).isEqualTo(2);
            return segments;
        }
    }
}
