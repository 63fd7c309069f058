package org.rddp.mpa;

/** Sizes, formulas and the CRC field's octet order of the MPA FPDU (RFC 5044 §4.1, §4.2, §4.4, §4.5). */
public final class MpaFpdu {
    /**
     * The CRC field: the CRC32c value least significant octet first, as the hex dumps of RFC 5044 §4.4 show (not
     * network order). Every reader and writer of the field goes through this layout.
     */
    public static final java.lang.foreign.ValueLayout.OfInt CRC_FIELD = java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
            .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    /** Octets of the ULPDU_Length field. */
    public static final int ULPDU_LENGTH_LENGTH = 2;
    /** Octets of the CRC field, present in every FPDU whether CRCs are in use or not. */
    public static final int CRC_LENGTH = 4;
    /** Octets of a Marker. */
    public static final int MARKER_LENGTH = 4;
    /** Octets of TCP sequence space between Markers. */
    public static final int MARKER_INTERVAL = 512;
    /** Smallest MULPDU MPA ever offers (§4.5). */
    public static final int MIN_MULPDU = 128;
    /**
     * Largest ULPDU a sender may post (§3): the FPDU with its worst-case Markers must fit an IP datagram, and
     * every FPDUPTR must fit its 16 bits.
     */
    public static final int MAX_ULPDU = 64768;
    /** Largest value of the 16-bit ULPDU_Length field, what a receiver must be able to parse. */
    public static final int MAX_ULPDU_LENGTH_FIELD = 0xFFFF;

    private MpaFpdu() {
    }

    /** The CRC field at absolute {@code index} of {@code buffer} (whatever the buffer's own order). */
    public static int crcField(java.nio.ByteBuffer buffer, int index) {
        return buffer.get(index) & 0xFF | (buffer.get(index + 1) & 0xFF) << 8 | (buffer.get(index + 2) & 0xFF) << 16
                | buffer.get(index + 3) << 24;
    }

    /** Writes {@code crc} as the CRC field at absolute {@code index} of {@code buffer}. */
    public static void putCrcField(java.nio.ByteBuffer buffer, int index, int crc) {
        buffer.put(index, (byte) crc).put(index + 1, (byte) (crc >>> 8)).put(index + 2, (byte) (crc >>> 16))
                .put(index + 3, (byte) (crc >>> 24));
    }

    /** PAD octets after a ULPDU of {@code ulpduLength}: makes 2 + ULPDU + PAD a multiple of 4. */
    public static int padLength(int ulpduLength) {
        return -(ULPDU_LENGTH_LENGTH + ulpduLength) & 3;
    }

    /** Octets of an FPDU without Markers: length field, ULPDU, PAD and CRC. */
    public static int fpduLength(int ulpduLength) {
        return ULPDU_LENGTH_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * MULPDU for an EMSS (§4.5): {@code EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)} with Markers,
     * {@code EMSS - (6 + EMSS mod 4)} without, never below {@value #MIN_MULPDU} nor above {@value #MAX_ULPDU}.
     */
    public static int mulpdu(int emss, boolean markers) {
        if (emss <= 0) {
            throw new IllegalArgumentException("EMSS must be positive, got " + emss);
        }
        int overhead = ULPDU_LENGTH_LENGTH + CRC_LENGTH + emss % 4
                + (markers ? MARKER_LENGTH * ((emss + MARKER_INTERVAL - 1) / MARKER_INTERVAL) : 0);
        return Math.min(Math.max(emss - overhead, MIN_MULPDU), MAX_ULPDU);
    }
}
