package org.rddp.sctp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;
import org.rddp.wire.Wire;

/**
 * The payload of a DDP Stream Session Control chunk, PPID 17 (RFC 5043 §5.2.3).
 *
 * <pre>
 *  0                   1                   2                   3
 * +-------------------------------+-------------------------------+
 * |          DDP-SSN (16)         |       Function Code (16)      |
 * +-------------------------------+-------------------------------+
 * |   Private Data (0..512 octets; enhanced codes 0x5/0x6 start   |
 * |   with the 4-octet data of RFC 6581 §9; 0x7 carries none) ... |
 * </pre>
 * There is no length field: the private data is the rest of the SCTP user message.
 *
 * @param ddpSsn  DDP-SSN, 0..65535
 * @param message the function code and its private data
 */
public record SessionControlChunk(int ddpSsn, SessionControl message) {
    /** Offset of the DDP-SSN. */
    public static final int DDP_SSN_OFFSET = 0;
    /** Offset of the function code. */
    public static final int FUNCTION_CODE_OFFSET = 2;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 4;

    /** Validates the DDP-SSN width. */
    public SessionControlChunk {
        if (ddpSsn < 0 || ddpSsn > 0xFFFF) {
            throw new IllegalArgumentException("DDP-SSN is 16 bits, got " + ddpSsn);
        }
        if (message == null) {
            throw new IllegalArgumentException("message is required");
        }
    }

    /** Octets of the chunk payload. */
    public int length() {
        return PRIVATE_DATA_OFFSET + message.privateDataLength();
    }

    /** Writes {@link #length()} octets at {@code offset}. */
    public void encodeTo(MemorySegment buffer, long offset) {
        Wire.checkRange(buffer, offset, length());
        Wire.putU16(buffer, offset + DDP_SSN_OFFSET, ddpSsn);
        Wire.putU16(buffer, offset + FUNCTION_CODE_OFFSET, message.functionCode().wire());
        long position = offset + PRIVATE_DATA_OFFSET;
        if (message.enhancedData().isPresent()) {
            Wire.putU32(buffer, position, message.enhancedData().get().encode());
            position += EnhancedConnectionData.LENGTH;
        }
        MemorySegment.copy(MemorySegment.ofArray(message.privateData().toByteArray()), 0, buffer, position,
                message.privateData().length());
    }

    /** The chunk payload as octets. */
    public byte[] toByteArray() {
        byte[] octets = new byte[length()];
        encodeTo(MemorySegment.ofArray(octets), 0);
        return octets;
    }

    /** Decodes the {@code length} octets of a PPID 17 chunk payload at {@code offset}. */
    public static SessionControlChunk decode(MemorySegment buffer, long offset, int length)
            throws MalformedFrameException {
        Wire.checkRange(buffer, offset, length);
        if (length < PRIVATE_DATA_OFFSET) {
            throw new MalformedFrameException(DecodeStatus.SCTP_CHUNK_TRUNCATED,
                    length + " octets, DDP-SSN and function code need " + PRIVATE_DATA_OFFSET);
        }
        int ddpSsn = Wire.u16(buffer, offset + DDP_SSN_OFFSET);
        int wireCode = Wire.u16(buffer, offset + FUNCTION_CODE_OFFSET);
        FunctionCode code = FunctionCode.byWire(wireCode);
        if (code == null) {
            throw new MalformedFrameException(DecodeStatus.SCTP_UNKNOWN_FUNCTION_CODE,
                    String.format("function code 0x%04x", wireCode));
        }
        int pdLength = length - PRIVATE_DATA_OFFSET;
        if (pdLength > PrivateData.MAX_LENGTH) {
            throw new MalformedFrameException(DecodeStatus.SCTP_PRIVATE_DATA_TOO_LONG,
                    pdLength + " octets of private data exceed " + PrivateData.MAX_LENGTH);
        }
        long pd = offset + PRIVATE_DATA_OFFSET;
        EnhancedConnectionData data = null;
        boolean carriesData = code == FunctionCode.ENHANCED_INITIATE || code == FunctionCode.ENHANCED_ACCEPT;
        if (carriesData) {
            if (pdLength < EnhancedConnectionData.LENGTH) {
                throw new MalformedFrameException(DecodeStatus.SCTP_ENHANCED_DATA_MISSING,
                        code + " with " + pdLength + " octets of private data, the enhanced data needs 4");
            }
            data = EnhancedConnectionData.decode(Wire.u32(buffer, pd));
            pd += EnhancedConnectionData.LENGTH;
            pdLength -= EnhancedConnectionData.LENGTH;
        }
        PrivateData ulp = PrivateData.of(buffer.asSlice(pd, pdLength).toArray(ValueLayout.JAVA_BYTE));
        SessionControl message = switch (code) {
            case INITIATE -> new SessionControl.Initiate(ulp);
            case ACCEPT -> new SessionControl.Accept(ulp);
            case REJECT -> new SessionControl.Reject(ulp);
            case TERMINATE -> {
                if (pdLength != 0) {
                    throw new MalformedFrameException(DecodeStatus.SCTP_TERMINATE_WITH_PRIVATE_DATA,
                            "Session Terminate with " + pdLength + " octets of private data");
                }
                yield new SessionControl.Terminate();
            }
            case ENHANCED_INITIATE -> new SessionControl.EnhancedInitiate(data, ulp);
            case ENHANCED_ACCEPT -> new SessionControl.EnhancedAccept(data, ulp);
            case ENHANCED_REJECT -> new SessionControl.EnhancedReject(ulp);
        };
        return new SessionControlChunk(ddpSsn, message);
    }
}
