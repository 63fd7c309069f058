package org.rddp.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Immutable ULP private data of a connection setup message: 0 to 512 octets (RFC 5044 §7.1.1 PD_Length,
 * RFC 5043 §5.2.3). Compared by content.
 */
public final class PrivateData {
    /** Largest private data any setup message may carry, the 4-octet enhanced block included (RFC 6581 §7). */
    public static final int MAX_LENGTH = 512;

    /** No private data. */
    public static final PrivateData EMPTY = new PrivateData(new byte[0]);

    private final byte[] octets;

    private PrivateData(byte[] octets) {
        this.octets = octets;
    }

    /** A copy of {@code octets}; throws {@link IllegalArgumentException} over {@value #MAX_LENGTH} octets. */
    public static PrivateData of(byte[] octets) {
        if (octets.length > MAX_LENGTH) {
            throw new IllegalArgumentException("private data of " + octets.length + " octets exceeds "
                    + MAX_LENGTH);
        }
        return octets.length == 0 ? EMPTY : new PrivateData(octets.clone());
    }

    /** Number of octets. */
    public int length() {
        return octets.length;
    }

    /** A copy of the octets. */
    public byte[] toByteArray() {
        return octets.clone();
    }

    /** Copies the octets into {@code destination} at {@code offset}. */
    public void copyTo(byte[] destination, int offset) {
        System.arraycopy(octets, 0, destination, offset, octets.length);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PrivateData that && Arrays.equals(octets, that.octets);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(octets);
    }

    @Override
    public String toString() {
        return octets.length + " octets [" + HexFormat.of().formatHex(octets) + "]";
    }
}
