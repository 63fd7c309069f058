package org.rddp.check;

import java.lang.foreign.MemorySegment;
import java.util.Locale;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

/** The DDP segments the checks send (RTRs, a Read Response) and how they describe the ones they receive. */
final class Ulpdus {
    /** The sink STag of the Read RTR the checks send; a Read Response must come back to it. */
    static final int READ_RTR_SINK_STAG = 0x1D0C;

    private Ulpdus() {
    }

    /** The ready-to-receive message of {@code type} (RFC 6581 §9.2): zero-length Send, RDMA Write or Read Request. */
    static byte[] rtr(RtrType type) {
        return switch (type) {
            case SEND -> untagged(RdmapOpcode.SEND, 0, new byte[0]);
            case WRITE -> tagged(RdmapOpcode.RDMA_WRITE, 0, 0);
            case READ -> {
                byte[] header = new byte[ReadRequestHeader.LENGTH];
                ReadRequestHeader.write(MemorySegment.ofArray(header), 0, READ_RTR_SINK_STAG, 0, 0, 0, 0);
                yield untagged(RdmapOpcode.RDMA_READ_REQUEST, RdmapControl.READ_REQUEST_QUEUE, header);
            }
            default -> throw new IllegalArgumentException("no RTR message for " + type);
        };
    }

    /** A zero-length RDMA Read Response to {@code stag}: the answer to a Read RTR. */
    static byte[] readResponse(int stag) {
        return tagged(RdmapOpcode.RDMA_READ_RESPONSE, stag, 0);
    }

    /** An RDMAP Send of {@code payload} (QN 0, MSN 1). */
    static byte[] send(byte[] payload) {
        return untagged(RdmapOpcode.SEND, 0, payload);
    }

    private static byte[] tagged(RdmapOpcode opcode, int stag, long to) {
        byte[] segment = new byte[DdpSegment.TAGGED_HEADER_LENGTH];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeTagged(true, RdmapControl.encode(opcode), stag, to);
        return segment;
    }

    private static byte[] untagged(RdmapOpcode opcode, int qn, byte[] payload) {
        byte[] segment = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + payload.length];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(opcode), 0, qn, 1, 0);
        System.arraycopy(payload, 0, segment, DdpSegment.UNTAGGED_HEADER_LENGTH, payload.length);
        return segment;
    }

    /** A received DDP segment, decoded as far as the checks need. */
    record Received(DdpSegment segment, RdmapOpcode opcode, TerminateHeader terminate, String problem) {
        boolean is(RdmapOpcode wanted) {
            return problem == null && opcode == wanted;
        }

        /** Whether this is an RDMAP Terminate for {@code cause}. */
        boolean terminates(TerminateCause cause) {
            return terminate != null && terminate.cause().filter(cause::equals).isPresent();
        }

        @Override
        public String toString() {
            if (problem != null) {
                return problem;
            }
            if (terminate != null) {
                return String.format(Locale.ROOT, "RDMAP Terminate, layer 0x%X type 0x%X code 0x%02X (%s)",
                        terminate.layer(), terminate.etype(), terminate.code(),
                        terminate.cause().map(TerminateCause::description).orElse("an unknown cause"));
            }
            return String.format(Locale.ROOT, "%s, %d octets%s", opcode, segment.payloadLength(),
                    segment.tagged() ? String.format(Locale.ROOT, " to STag 0x%X", segment.stag()) : "");
        }
    }

    /** Decodes {@code octets} as one DDP segment carrying RDMAP. */
    static Received decode(byte[] octets) {
        DdpSegment segment = new DdpSegment();
        DecodeStatus status = segment.wrap(MemorySegment.ofArray(octets), 0, octets.length);
        if (status != DecodeStatus.OK) {
            return new Received(segment, null, null, "a malformed DDP segment (" + status + ")");
        }
        RdmapOpcode opcode = RdmapControl.opcode(segment.rsvdUlp());
        if (opcode == null) {
            return new Received(segment, null, null, String.format(Locale.ROOT,
                    "a DDP segment with unknown RDMAP opcode (control 0x%02X)", segment.rsvdUlp()));
        }
        if (opcode != RdmapOpcode.TERMINATE) {
            return new Received(segment, opcode, null, null);
        }
        try {
            return new Received(segment, opcode, TerminateHeader.decode(segment.buffer(), segment.payloadOffset(),
                    segment.payloadLength()), null);
        } catch (MalformedFrameException e) {
            return new Received(segment, opcode, null, "a malformed RDMAP Terminate (" + e.getMessage() + ")");
        }
    }

    /** The 32-bit enhanced data word as sent, every bit shown (B/C/D too when A=0, which must then be 0). */
    static String enhanced(int word) {
        EnhancedConnectionData data = EnhancedConnectionData.decode(word);
        int irdHalf = word >>> 16;
        int ordHalf = word & 0xFFFF;
        return String.format(Locale.ROOT, "A=%d B=%d C=%d D=%d IRD %s ORD %s", irdHalf >>> 15, irdHalf >>> 14 & 1,
                ordHalf >>> 15, ordHalf >>> 14 & 1, depth(data.ird()), depth(data.ord()));
    }

    /** Whether A=0 comes with B, C or D set (RFC 6581 §9.2: they MUST be 0 then). */
    static boolean strayRtrBits(int word) {
        return (word & 0x80000000) == 0 && (word & (0x40000000 | 0x8000 | 0x4000)) != 0;
    }

    static String depth(int value) {
        return value == EnhancedConnectionData.NO_NEGOTIATION ? "0x3FFF" : Integer.toString(value);
    }
}
