package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.engine.EnginePair.fill;
import static org.rddp.engine.EnginePair.mismatch;
import static org.rddp.engine.EnginePair.write;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;
import static org.rddp.engine.StagResolver.REMOTE_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.WcStatus;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.rdmap.RdmapOpcode;

/**
 * How the engine cuts a message to what is left of the LLP's packet ({@code LlpStream.packetRoom}): a message longer
 * than one segment starts with a segment that fills the room, when the room holds at least a quarter of a full
 * segment's payload; a message that fits one segment is never cut; the data lands whole either way. Both engines'
 * loops are this thread's, so the segments a post took are known exactly.
 */
class PacketRoomTest {
    private static final int MULPDU = EnginePair.MULPDU;
    private static final int FULL = MULPDU - DdpSegment.TAGGED_HEADER_LENGTH;
    private static final int LONG = 2 * FULL + 480;

    @Test
    void aLongMessageStartsWithASegmentThatFillsThePacket() {
        // the room for one 300-octet segment, then a fresh packet, as a stack bundling them would report
        AtomicInteger asked = new AtomicInteger();
        assertThat(segmentsOfOneWrite(LONG, () -> asked.getAndIncrement() == 0 ? 300 : MULPDU))
                .as("300 octets, two full segments, the rest").isEqualTo(4);
    }

    @Test
    void aRoomTooSmallToBeWorthASegmentIsLeft() {
        assertThat(segmentsOfOneWrite(LONG, () -> DdpSegment.TAGGED_HEADER_LENGTH + FULL / 4 - 1))
                .as("full segments, as without a room").isEqualTo(3);
    }

    @Test
    void aMessageThatFitsOneSegmentIsNeverCut() {
        assertThat(segmentsOfOneWrite(FULL, () -> 300)).isEqualTo(1);
    }

    /** Writes {@code size} patterned octets, the initiator's stream reporting {@code room}; the segments it took. */
    private static long segmentsOfOneWrite(int size, IntSupplier room) {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged sink = pair.b.memory.region(size, LOCAL_WRITE | REMOTE_WRITE);
            TestMemory.Tagged source = pair.a.memory.region(size, 0);
            fill(source.memory(), 14);
            pair.b.postReceive(2, sink, 0, 0); // for the Send that follows the Write
            pair.start();
            pair.a.end.packetRoom(room);
            long before = pair.a.end.segmentsSent();
            pair.a.post(write(1, source, 0, size, sink.stag(), 0));
            pair.settle();
            long segments = pair.a.end.segmentsSent() - before;

            pair.a.post(EnginePair.emptySend(2)); // received once the Write is placed (RFC 5040 §5.5)
            pair.settle();
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(2, WcStatus.SUCCESS, 0,
                    RdmapOpcode.SEND, 0));
            assertThat(mismatch(source.memory(), sink.memory())).as("first octet that differs").isEqualTo(-1);
            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(1, WorkOpcode.RDMA_WRITE, WcStatus.SUCCESS, size),
                    new SendDone(2, WorkOpcode.SEND, WcStatus.SUCCESS, 0));
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
            return segments;
        }
    }
}
