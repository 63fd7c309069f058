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
        int elements = other.count;
        count = elements;
        // element by element: a work request has a few, and three array copies cost more than they move (a post of
        // one element spent 6 % of a 64-octet Write's time in them)
        for (int i = 0; i < elements; i++) {
            lkey[i] = other.lkey[i];
            address[i] = other.address[i];
            length[i] = other.length[i];
        }
    }
}
