package org.rddp.verbs;

import org.rddp.engine.ReceiveWork;
import org.rddp.engine.SgeList;

/** A receive work request ({@code ibv_recv_wr}): reusable and owned by the caller; posting copies it. */
public final class ReceiveWorkRequest {
    private long wrId;
    private final SgeList sges;

    /** A request with room for {@code maxSge} scatter/gather elements. */
    public ReceiveWorkRequest(int maxSge) {
        sges = new SgeList(maxSge);
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
        sges.set(index, stag, to, size);
        return this;
    }

    /** Uses no elements: takes only zero-length Sends. */
    public ReceiveWorkRequest noSge() {
        sges.count = 0;
        return this;
    }

    /** Number of elements in use. */
    public int sgeCount() {
        return sges.count;
    }

    void copyTo(ReceiveWork work) {
        work.wrId = wrId;
        work.sges.copyFrom(sges);
    }
}
