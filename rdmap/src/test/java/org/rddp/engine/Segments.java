package org.rddp.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.rddp.ddp.DdpSegment;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;

/** Crafted DDP segments, as a peer could put them on the wire, for tests of the engine's receive path. */
final class Segments {
    static final int SEND = RdmapControl.encode(RdmapOpcode.SEND);
    static final int WRITE = RdmapControl.encode(RdmapOpcode.RDMA_WRITE);
    static final int READ = RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST);
    static final int READ_RESPONSE = RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);
    /** The sink STag and TO crafted Read Requests name. */
    static final int READ_SINK_STAG = 0x99_0000;
    static final long READ_SINK_TO = 0x40;

    private Segments() {
    }

    /** What crafted payloads are made of: never 0, so that any octet of it placed shows. */
    static final byte PAYLOAD = 0x3C;

    /** A tagged segment with DDP control octet {@code control}, {@code payload} octets of {@link #PAYLOAD}. */
    static byte[] tagged(int control, int rdmap, int stag, long to, int payload) {
        byte[] octets = new byte[DdpSegment.TAGGED_HEADER_LENGTH + payload];
        Arrays.fill(octets, PAYLOAD);
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length).writeTagged(true, rdmap, stag, to);
        octets[0] = (byte) control;
        return octets;
    }

    /** An untagged segment with DDP control octet {@code control}, {@code payload} octets of {@link #PAYLOAD}. */
    static byte[] untagged(int control, int rdmap, int invalidate, int qn, int msn, int mo, int payload) {
        byte[] octets = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + payload];
        Arrays.fill(octets, PAYLOAD);
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length)
                .writeUntagged(true, rdmap, invalidate, qn, msn, mo);
        octets[0] = (byte) control;
        return octets;
    }

    /** An RDMA Read Request, MSN {@code msn}, of {@code size} octets at {@code srcTo} of {@code srcStag}. */
    static byte[] read(int msn, int srcStag, long srcTo, int size) {
        byte[] octets = untagged(0x41, READ, 0, RdmapControl.READ_REQUEST_QUEUE, msn, 0, ReadRequestHeader.LENGTH);
        new ReadRequestHeader(READ_SINK_STAG, READ_SINK_TO, size, srcStag, srcTo)
                .encodeTo(MemorySegment.ofArray(octets), DdpSegment.UNTAGGED_HEADER_LENGTH);
        return octets;
    }

    /** {@code segment} with its MO field set to {@code mo}. */
    static byte[] withMo(byte[] segment, int mo) {
        MemorySegment.ofArray(segment).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
                DdpSegment.MO_OFFSET, mo);
        return segment;
    }

    /** A Terminate message carrying {@code header} (QN 2, MSN 1, MO 0). */
    static byte[] terminate(TerminateHeader header) {
        byte[] octets = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + header.length()];
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.TERMINATE), 0, RdmapControl.TERMINATE_QUEUE, 1,
                        0);
        header.encodeTo(MemorySegment.ofArray(octets), DdpSegment.UNTAGGED_HEADER_LENGTH);
        return octets;
    }
}
