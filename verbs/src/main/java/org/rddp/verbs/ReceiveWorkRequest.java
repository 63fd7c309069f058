package org.rddp.verbs;

import org.rddp.engine.ReceiveWork;

/** A receive work request ({@code ibv_recv_wr}): reusable and owned by the caller; posting copies it. */
public final class ReceiveWorkRequest {
    private long wrId;
    private int sgeCount;
    private final int[] lkey;
    private final long[] address;
    private final int[] length;

    /** A request with room for {@code maxSge} scatter/gather elements. */
    public ReceiveWorkRequest(int maxSge) {
        lkey = new int[maxSge];
        address = new long[maxSge];
        length = new int[maxSge];
    }

    /** Sets the identifier returned in the completion. */
    public ReceiveWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Sets element {@code index} to {@code size} octets at {@code offset} into {@code region}. */
    public ReceiveWorkRequest sge(int index, MemoryRegion region, long offset, int size) {
        return sge(index, region.lkey(), region.iova() + offset, size);
    }

    /** Sets element {@code index} from raw values: lkey, TO, length; uses the first {@code index + 1}. */
    public ReceiveWorkRequest sge(int index, int stag, long to, int size) {
        lkey[index] = stag;
        address[index] = to;
        length[index] = size;
        sgeCount = index + 1;
        return this;
    }

    /** Uses no elements: takes only zero-length Sends. */
    public ReceiveWorkRequest noSge() {
        sgeCount = 0;
        return this;
    }

    /** Number of elements in use. */
    public int sgeCount() {
        return sgeCount;
    }

    void copyTo(ReceiveWork work) {
        work.wrId = wrId;
        work.sgeCount = sgeCount;
        System.arraycopy(lkey, 0, work.lkey, 0, sgeCount);
        System.arraycopy(address, 0, work.address, 0, sgeCount);
        System.arraycopy(length, 0, work.length, 0, sgeCount);
    }
}
