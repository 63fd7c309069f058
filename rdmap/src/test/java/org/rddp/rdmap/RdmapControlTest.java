package org.rddp.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.DdpError;
import org.rddp.error.RdmapError;
import org.rddp.wire.DecodeStatus;

class RdmapControlTest {
    private final DdpSegment segment = new DdpSegment();

    /** RFC 5040 §4.1 Fig. 4 / §4.2 Fig. 5 / RFC 6580 §3.4: opcode, buffer model and QN of each message. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "RDMA_WRITE,                  0x40, true,  -1",
        "RDMA_READ_REQUEST,           0x41, false,  1",
        "RDMA_READ_RESPONSE,          0x42, true,  -1",
        "SEND,                        0x43, false,  0",
        "SEND_WITH_INVALIDATE,        0x44, false,  0",
        "SEND_WITH_SE,                0x45, false,  0",
        "SEND_WITH_SE_AND_INVALIDATE, 0x46, false,  0",
        "TERMINATE,                   0x47, false,  2",
    })
    void controlOctetOfEveryOpcode(RdmapOpcode opcode, String control, boolean tagged, int qn) {
        // RV=01 in bits 0-1, Rsv=00, opcode in bits 4-7 (RFC 5040 §4.1)
        assertThat(RdmapControl.encode(opcode)).isEqualTo(Integer.decode(control));
        assertThat(RdmapControl.opcode(Integer.decode(control))).isEqualTo(opcode);
        assertThat(RdmapControl.version(Integer.decode(control))).isEqualTo(1);
        assertThat(opcode.tagged()).isEqualTo(tagged);
        assertThat(opcode.queueNumber()).isEqualTo(qn);
    }

    @Test
    void opcodeFlags() {
        assertThat(RdmapOpcode.SEND_WITH_INVALIDATE.invalidates()).isTrue();
        assertThat(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.invalidates()).isTrue();
        assertThat(RdmapOpcode.SEND_WITH_SE.invalidates()).isFalse();
        assertThat(RdmapOpcode.SEND_WITH_SE.solicitedEvent()).isTrue();
        assertThat(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.solicitedEvent()).isTrue();
        assertThat(RdmapOpcode.SEND.solicitedEvent()).isFalse();
        assertThat(RdmapOpcode.SEND_WITH_INVALIDATE.isSend()).isTrue();
        assertThat(RdmapOpcode.TERMINATE.isSend()).isFalse();
        assertThat(RdmapOpcode.RDMA_READ_REQUEST.minimumHeaderLength()).isEqualTo(28);
        assertThat(RdmapOpcode.TERMINATE.minimumHeaderLength()).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(RdmapOpcode.class)
    void wellFormedMessagesOfEveryOpcodePass(RdmapOpcode opcode) {
        byte[] octets = wellFormed(opcode);
        assertThat(segment.wrap(MemorySegment.ofArray(octets), 0, octets.length)).isEqualTo(DecodeStatus.OK);
        assertThat(RdmapControl.validate(segment, RdmapControl.RDMAP_VERSION)).isEqualTo(DecodeStatus.OK);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 3})
    void rejectsAnotherRdmapVersion(int version) {
        byte[] octets = wellFormed(RdmapOpcode.SEND);
        octets[1] = (byte) (version << 6 | 0x03);
        DecodeStatus status = check(octets);
        assertThat(status).isEqualTo(DecodeStatus.RDMAP_VERSION);
        assertThat(status.terminateCause()).contains(RdmapError.REMOTE_OPERATION_INVALID_VERSION);
    }

    @ParameterizedTest
    @ValueSource(ints = {0x8, 0x9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF})
    void rejectsUnassignedOpcodes(int opcode) {
        for (boolean tagged : new boolean[] {true, false}) {
            byte[] octets = wellFormed(tagged ? RdmapOpcode.RDMA_WRITE : RdmapOpcode.SEND);
            octets[1] = (byte) (0x40 | opcode);
            DecodeStatus status = check(octets);
            assertThat(status).isEqualTo(DecodeStatus.RDMAP_UNKNOWN_OPCODE);
            assertThat(status.terminateCause()).contains(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE);
        }
    }

    @Test
    void ignoresTheReservedBitsOfTheControlOctet() {
        byte[] octets = wellFormed(RdmapOpcode.SEND);
        octets[1] |= RdmapControl.RESERVED_MASK;
        assertThat(check(octets)).isEqualTo(DecodeStatus.OK);
    }

    @Test
    void rejectsATaggedOpcodeInAnUntaggedSegmentAndTheReverse() {
        byte[] writeUntagged = wellFormed(RdmapOpcode.SEND);
        writeUntagged[1] = (byte) RdmapControl.encode(RdmapOpcode.RDMA_WRITE);
        assertThat(check(writeUntagged)).isEqualTo(DecodeStatus.RDMAP_OPCODE_BUFFER_MISMATCH);
        byte[] sendTagged = wellFormed(RdmapOpcode.RDMA_WRITE);
        sendTagged[1] = (byte) RdmapControl.encode(RdmapOpcode.SEND);
        assertThat(check(sendTagged)).isEqualTo(DecodeStatus.RDMAP_OPCODE_BUFFER_MISMATCH);
    }

    @ParameterizedTest
    @CsvSource({"SEND, 1", "SEND_WITH_SE, 2", "RDMA_READ_REQUEST, 0", "TERMINATE, 1", "SEND, -1"})
    void rejectsAnUntaggedMessageOnTheWrongQueue(RdmapOpcode opcode, int qn) {
        byte[] octets = wellFormed(opcode);
        MemorySegment.ofArray(octets).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                java.nio.ByteOrder.BIG_ENDIAN), DdpSegment.QN_OFFSET, qn);
        DecodeStatus status = check(octets);
        assertThat(status).isEqualTo(DecodeStatus.RDMAP_WRONG_QUEUE);
        assertThat(status.terminateCause()).contains(DdpError.UNTAGGED_INVALID_QN);
    }

    @Test
    void rejectsReadRequestsOfTheWrongShape() {
        byte[] request = wellFormed(RdmapOpcode.RDMA_READ_REQUEST);
        assertThat(check(java.util.Arrays.copyOf(request, 18 + 27)))
                .isEqualTo(DecodeStatus.RDMAP_READ_REQUEST_TRUNCATED);
        assertThat(check(java.util.Arrays.copyOf(request, 18))).isEqualTo(DecodeStatus.RDMAP_READ_REQUEST_TRUNCATED);
        DecodeStatus tooLong = check(java.util.Arrays.copyOf(request, 18 + 29));
        assertThat(tooLong).isEqualTo(DecodeStatus.RDMAP_READ_REQUEST_TOO_LONG);
        assertThat(tooLong.terminateCause()).contains(DdpError.UNTAGGED_MESSAGE_TOO_LONG);
        byte[] notLast = request.clone();
        notLast[0] = 0x01;
        assertThat(check(notLast)).isEqualTo(DecodeStatus.RDMAP_READ_REQUEST_MO);
        byte[] offset = request.clone();
        offset[17] = 4;
        DecodeStatus mo = check(offset);
        assertThat(mo).isEqualTo(DecodeStatus.RDMAP_READ_REQUEST_MO);
        assertThat(mo.terminateCause()).contains(DdpError.UNTAGGED_INVALID_MO);
    }

    @Test
    void rejectsTerminatesOfTheWrongShape() {
        byte[] terminate = wellFormed(RdmapOpcode.TERMINATE);
        assertThat(check(java.util.Arrays.copyOf(terminate, 18 + 3)))
                .isEqualTo(DecodeStatus.RDMAP_TERMINATE_MALFORMED);
        byte[] notLast = terminate.clone();
        notLast[0] = 0x01;
        assertThat(check(notLast)).isEqualTo(DecodeStatus.RDMAP_TERMINATE_MALFORMED);
        assertThat(DecodeStatus.RDMAP_TERMINATE_MALFORMED.terminateCause()).isEmpty();
    }

    private DecodeStatus check(byte[] octets) {
        DecodeStatus ddp = segment.wrap(MemorySegment.ofArray(octets), 0, octets.length);
        return ddp.ok() ? RdmapControl.validate(segment, RdmapControl.RDMAP_VERSION) : ddp;
    }

    /** One whole, well-formed message of {@code opcode} with a few octets of payload where it has one. */
    static byte[] wellFormed(RdmapOpcode opcode) {
        int header = opcode.tagged() ? DdpSegment.TAGGED_HEADER_LENGTH : DdpSegment.UNTAGGED_HEADER_LENGTH;
        int body = switch (opcode) {
            case RDMA_READ_REQUEST -> ReadRequestHeader.LENGTH;
            case TERMINATE -> TerminateHeader.CONTROL_LENGTH;
            default -> 8;
        };
        byte[] octets = new byte[header + body];
        DdpSegment writer = new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length);
        if (opcode.tagged()) {
            writer.writeTagged(true, RdmapControl.encode(opcode), 0x100, 0);
        } else {
            writer.writeUntagged(true, RdmapControl.encode(opcode), opcode.invalidates() ? 0x200 : 0,
                    opcode.queueNumber(), 1, 0);
        }
        return octets;
    }
}
