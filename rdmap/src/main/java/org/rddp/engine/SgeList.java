package org.rddp.engine;

/**
 * A scatter/gather list: up to a fixed number of elements, each an lkey, a TO and a length. Reusable; the
 * arrays are allocated once.
 */
public final class SgeList {
    /** Elements in use. */
    public int count;
    /** The elements' lkeys. */
    public final int[] lkey;
    /** The elements' TOs. */
    public final long[] address;
    /** The elements' lengths, unsigned. */
    public final int[] length;

    /** A list with room for {@code capacity} elements. */
    public SgeList(int capacity) {
        lkey = new int[capacity];
        address = new long[capacity];
        length = new int[capacity];
    }

    /** Sets element {@code index} and uses the first {@code index + 1} elements. */
    public void set(int index, int stag, long to, int size) {
        lkey[index] = stag;
        address[index] = to;
        length[index] = size;
        count = index + 1;
    }

    /** Total octets of the elements in use. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Integer.toUnsignedLong(length[i]);
        }
        return total;
    }

    /** Copies the elements in use of {@code other}, which must fit. */
    public void copyFrom(SgeList other) {
        count = other.count;
        System.arraycopy(other.lkey, 0, lkey, 0, count);
        System.arraycopy(other.address, 0, address, 0, count);
        System.arraycopy(other.length, 0, length, 0, count);
    }
}
