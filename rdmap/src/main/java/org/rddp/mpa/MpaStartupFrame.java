package org.rddp.mpa;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1.1), with the enhanced form of RFC 6581 §6.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |   Key (16 octets): "MPA ID Req Frame" or "MPA ID Rep Frame"   |  0
 * +-+-+-+-+-------+---------------+-------------------------------+
 * |M|C|R|S|  Res  |      Rev      |          PD_Length            | 16
 * +-+-+-+-+-------+---------------+-------------------------------+
 * |  Private Data (PD_Length octets; with S=1 it starts with the  | 20
 * |  4-octet enhanced data of RFC 6581 §9)                        |
 * </pre>
 * Res is sent as zero and never checked (Linux siw sets 0x08). R is not checked in a Request. S is a Res bit
 * in revision 1 and means the enhanced data only with Rev 2 or more.
 *
 * @param kind         Request or Reply
 * @param markers      M: the sender requires Markers in the FPDUs sent to it
 * @param crc          C: the sender prefers CRCs (OR-combined with the peer's)
 * @param reject       R: a Reply rejecting the connection; always false in a Request
 * @param revision     Rev: 1 (RFC 5044) or 2 (RFC 6581)
 * @param enhancedData the enhanced data when S=1, else {@code null}
 * @param privateData  the ULP's private data (after the enhanced data when S=1)
 */
public record MpaStartupFrame(Kind kind, boolean markers, boolean crc, boolean reject, int revision,
        EnhancedConnectionData enhancedData, PrivateData privateData) {
    /** Octets before the private data. */
    public static final int HEADER_LENGTH = 20;
    /** Octets of the key. */
    public static final int KEY_LENGTH = 16;
    /** Offset of the M/C/R/S/Res octet. */
    public static final int FLAGS_OFFSET = 16;
    /** Offset of Rev. */
    public static final int REVISION_OFFSET = 17;
    /** Offset of PD_Length. */
    public static final int PD_LENGTH_OFFSET = 18;
    /** M flag. */
    public static final int MARKERS_FLAG = 0x80;
    /** C flag. */
    public static final int CRC_FLAG = 0x40;
    /** R flag. */
    public static final int REJECT_FLAG = 0x20;
    /** S flag (RFC 6581). */
    public static final int ENHANCED_FLAG = 0x10;
    /** Res bits of RFC 6581 (RFC 5044's Res also held S). */
    public static final int RESERVED_MASK = 0x0F;
    /** Rev of RFC 5044. */
    public static final int REVISION_1 = 1;
    /** Rev of RFC 6581, needed for the enhanced data. */
    public static final int REVISION_2 = 2;
    /** Largest PD_Length. */
    public static final int MAX_PRIVATE_DATA = PrivateData.MAX_LENGTH;

    /** Which startup frame, and its key. */
    public enum Kind {
        /** Sent by the Initiator: "MPA ID Req Frame". */
        REQUEST("MPA ID Req Frame"),
        /** Sent by the Responder: "MPA ID Rep Frame". */
        REPLY("MPA ID Rep Frame");

        private final byte[] key;

        Kind(String key) {
            this.key = key.getBytes(StandardCharsets.US_ASCII);
        }

        /** The 16-octet key. */
        public byte[] key() {
            return key.clone();
        }
    }

    /** Validates the combination of fields. */
    public MpaStartupFrame {
        if (kind == null || privateData == null) {
            throw new IllegalArgumentException("kind and private data are required (use PrivateData.EMPTY)");
        }
        if (revision != REVISION_1 && revision != REVISION_2) {
            throw new IllegalArgumentException("MPA revision must be 1 or 2, got " + revision);
        }
        if (enhancedData != null && revision < REVISION_2) {
            throw new IllegalArgumentException("the enhanced data (S=1) needs revision 2 (RFC 6581 §6)");
        }
        if (reject && kind == Kind.REQUEST) {
            throw new IllegalArgumentException("only a Reply can reject");
        }
        int pdLength = (enhancedData == null ? 0 : EnhancedConnectionData.LENGTH) + privateData.length();
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("PD_Length " + pdLength + " exceeds " + MAX_PRIVATE_DATA
                    + (enhancedData == null ? "" : " (4 of them are the enhanced data)"));
        }
    }

    /** S: the private data starts with the enhanced data. */
    public boolean enhanced() {
        return enhancedData != null;
    }

    /** PD_Length: ULP private data plus the enhanced data if present. */
    public int pdLength() {
        return (enhanced() ? EnhancedConnectionData.LENGTH : 0) + privateData.length();
    }

    /** Octets on the wire. */
    public int length() {
        return HEADER_LENGTH + pdLength();
    }

    /** Writes the frame at {@code destination}'s position and advances it. */
    public void encodeTo(ByteBuffer destination) {
        destination.put(kind.key);
        destination.put((byte) ((markers ? MARKERS_FLAG : 0) | (crc ? CRC_FLAG : 0) | (reject ? REJECT_FLAG : 0)
                | (enhanced() ? ENHANCED_FLAG : 0)));
        destination.put((byte) revision);
        destination.putShort((short) pdLength());
        if (enhanced()) {
            destination.putInt(enhancedData.encode());
        }
        destination.put(privateData.toByteArray());
    }

    /** The frame as octets. */
    public byte[] toByteArray() {
        ByteBuffer buffer = ByteBuffer.allocate(length());
        encodeTo(buffer);
        return buffer.array();
    }

    /**
     * Validates the 20-octet header at {@code header}'s position (without moving it) and returns the length of
     * the whole frame, so that a reader knows how much more to read. Checks the key, Rev and PD_Length
     * (RFC 5044 §7.1.2 rules 5, 9).
     */
    public static int frameLength(ByteBuffer header, Kind expected) throws MalformedFrameException {
        int at = header.position();
        if (header.remaining() < HEADER_LENGTH) {
            throw new MalformedFrameException(DecodeStatus.MPA_FRAME_TRUNCATED,
                    header.remaining() + " octets, the header needs " + HEADER_LENGTH);
        }
        byte[] key = new byte[KEY_LENGTH];
        header.get(at, key);
        if (!Arrays.equals(key, expected.key)) {
            throw new MalformedFrameException(DecodeStatus.MPA_BAD_KEY, "expected the " + expected + " key \""
                    + new String(expected.key, StandardCharsets.US_ASCII) + "\", got "
                    + HexFormat.of().formatHex(key));
        }
        int revision = header.get(at + REVISION_OFFSET) & 0xFF;
        if (revision != REVISION_1 && revision != REVISION_2) {
            throw new MalformedFrameException(DecodeStatus.MPA_BAD_REVISION,
                    "revision " + revision + " (this implementation speaks 1 and 2)");
        }
        int pdLength = header.getShort(at + PD_LENGTH_OFFSET) & 0xFFFF;
        if (pdLength > MAX_PRIVATE_DATA) {
            throw new MalformedFrameException(DecodeStatus.MPA_PRIVATE_DATA_TOO_LONG,
                    "PD_Length " + pdLength + " exceeds " + MAX_PRIVATE_DATA);
        }
        return HEADER_LENGTH + pdLength;
    }

    /**
     * Decodes exactly one frame: {@code frame}'s remaining octets must be the header plus PD_Length octets.
     * Advances the position past the frame.
     */
    public static MpaStartupFrame decode(ByteBuffer frame, Kind expected) throws MalformedFrameException {
        int at = frame.position();
        int length = frameLength(frame, expected);
        int available = frame.remaining();
        if (available < length) {
            throw new MalformedFrameException(DecodeStatus.MPA_FRAME_TRUNCATED,
                    "PD_Length announces " + (length - HEADER_LENGTH) + " octets, " + (available - HEADER_LENGTH)
                            + " present");
        }
        if (available > length) {
            throw new MalformedFrameException(DecodeStatus.MPA_PRIVATE_DATA_LENGTH_MISMATCH,
                    "PD_Length " + (length - HEADER_LENGTH) + " but " + (available - HEADER_LENGTH)
                            + " octets of private data");
        }
        int flags = frame.get(at + FLAGS_OFFSET) & 0xFF;
        int revision = frame.get(at + REVISION_OFFSET) & 0xFF;
        int pdLength = length - HEADER_LENGTH;
        boolean enhanced = revision >= REVISION_2 && (flags & ENHANCED_FLAG) != 0;
        EnhancedConnectionData enhancedData = null;
        int ulpOffset = at + HEADER_LENGTH;
        if (enhanced) {
            if (pdLength < EnhancedConnectionData.LENGTH) {
                throw new MalformedFrameException(DecodeStatus.MPA_ENHANCED_DATA_MISSING,
                        "S=1 but PD_Length " + pdLength + " cannot hold the 4-octet enhanced data");
            }
            enhancedData = EnhancedConnectionData.decode(frame.getInt(ulpOffset));
            ulpOffset += EnhancedConnectionData.LENGTH;
        }
        byte[] ulp = new byte[at + length - ulpOffset];
        frame.get(ulpOffset, ulp);
        frame.position(at + length);
        return new MpaStartupFrame(expected, (flags & MARKERS_FLAG) != 0, (flags & CRC_FLAG) != 0,
                expected == Kind.REPLY && (flags & REJECT_FLAG) != 0, revision, enhancedData, PrivateData.of(ulp));
    }
}
