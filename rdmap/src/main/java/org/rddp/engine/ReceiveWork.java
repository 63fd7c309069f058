package org.rddp.engine;

/**
 * A posted receive (from a queue pair's receive queue or a shared receive queue) as the engine holds it: a
 * reusable slot, owned by the engine from the moment it takes it until it reports the completion.
 */
public final class ReceiveWork {
    /** The consumer's identifier, returned in the completion. */
    public long wrId;
    /** Number of scatter/gather elements used. */
    public int sgeCount;
    /** The elements' lkeys. */
    public final int[] lkey;
    /** The elements' TOs. */
    public final long[] address;
    /** The elements' lengths, unsigned. */
    public final int[] length;

    /** A slot with room for {@code maxSge} elements. */
    public ReceiveWork(int maxSge) {
        lkey = new int[maxSge];
        address = new long[maxSge];
        length = new int[maxSge];
    }

    /** Total octets of the elements. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            total += Integer.toUnsignedLong(length[i]);
        }
        return total;
    }
}
