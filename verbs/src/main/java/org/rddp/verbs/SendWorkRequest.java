package org.rddp.verbs;

import org.rddp.work.WorkOpcode;
import java.util.Objects;
import java.util.Set;
import org.rddp.engine.SendWork;
import org.rddp.engine.SgeList;

/**
 * A send-queue work request ({@code ibv_send_wr}): reusable and owned by the caller; posting copies it.
 *
 * <pre>{@code
 * SendWorkRequest write = new SendWorkRequest(1)
 *         .opcode(WorkOpcode.RDMA_WRITE).wrId(7).sge(0, region, 0, 4096).remote(rkey, remoteTo);
 * qp.postSend(write);
 * }</pre>
 */
public final class SendWorkRequest {
    private long wrId;
    private WorkOpcode opcode = WorkOpcode.SEND;
    private boolean signaled = true;
    private int remoteStag;
    private long remoteTo;
    private int localStag;
    private final SgeList sges;
    private MemoryWindow window;
    private MemoryRegion bindRegion;
    private long bindOffset;
    private long bindLength;
    private long bindTo;
    private int bindRights;
    private int bindKey = -1;

    /** A request with room for {@code maxSge} scatter/gather elements. */
    public SendWorkRequest(int maxSge) {
        sges = new SgeList(maxSge);
    }

    /** Sets the identifier returned in the completion. */
    public SendWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    /** Sets what to do. */
    public SendWorkRequest opcode(WorkOpcode value) {
        this.opcode = Objects.requireNonNull(value);
        return this;
    }

    /** Whether a successful completion is reported (errors always are). */
    public SendWorkRequest signaled(boolean value) {
        this.signaled = value;
        return this;
    }

    /** RDMA Write and Read: the peer's STag and TO. */
    public SendWorkRequest remote(int stag, long to) {
        this.remoteStag = stag;
        this.remoteTo = to;
        return this;
    }

    /** Send with Invalidate: the peer's STag to invalidate. */
    public SendWorkRequest invalidate(int stag) {
        this.remoteStag = stag;
        return this;
    }

    /** Local invalidate: this side's STag to invalidate. */
    public SendWorkRequest localInvalidate(int stag) {
        this.localStag = stag;
        return this;
    }

    /** Sets element {@code index} to {@code size} octets at {@code offset} into {@code region}. */
    public SendWorkRequest sge(int index, MemoryRegion region, long offset, int size) {
        return sge(index, region.lkey(), region.iova() + offset, size);
    }

    /** Sets element {@code index} from raw values: lkey, TO, length. */
    public SendWorkRequest sge(int index, int stag, long to, int size) {
        sges.set(index, stag, to, size);
        return this;
    }

    /** Uses no elements (a zero-length message). */
    public SendWorkRequest noSge() {
        sges.count = 0;
        return this;
    }

    /**
     * Bind a type 2 window: {@code size} octets at {@code offset} into {@code region}, seen by the peer from TO
     * {@code to} with {@code rights} (REMOTE_READ, REMOTE_WRITE). Sets the opcode.
     */
    public SendWorkRequest bind(MemoryWindow mw, MemoryRegion region, long offset, long size, long to,
            Set<Access> rights) {
        this.opcode = WorkOpcode.BIND_MEMORY_WINDOW;
        this.window = mw;
        this.bindRegion = region;
        this.bindOffset = offset;
        this.bindLength = size;
        this.bindTo = to;
        this.bindRights = Access.mask(rights);
        this.bindKey = -1;
        return this;
    }

    /**
     * As {@link #bind}, with the 8-bit key of the window's new STag chosen here ({@code ibv_inc_rkey} style): the
     * STag is {@link MemoryWindow#stagWithKey(int) mw.stagWithKey(key)}, known before the bind runs, so it can be
     * advertised in a Send posted right behind the bind. Choose the key at random (RFC 5042 §5) and unlike the
     * window's current one.
     */
    public SendWorkRequest bind(MemoryWindow mw, MemoryRegion region, long offset, long size, long to,
            Set<Access> rights, int key) {
        if (key < 0 || key > 0xFF) {
            throw new IllegalArgumentException("a key is 8 bits, not " + key);
        }
        bind(mw, region, offset, size, to, rights);
        this.bindKey = key;
        return this;
    }

    /** Number of elements in use. */
    public int sgeCount() {
        return sges.count;
    }

    void copyTo(SendWork work) {
        work.wrId = wrId;
        work.opcode = opcode;
        work.signaled = signaled;
        work.remoteStag = remoteStag;
        work.remoteTo = remoteTo;
        work.localStag = localStag;
        work.sges.copyFrom(sges);
        if (opcode == WorkOpcode.BIND_MEMORY_WINDOW) {
            ((BindRequest) work.context).set(this);
        }
    }

    /**
     * What a bind work request carries to the owner thread: one per send-queue slot, made with the queue pair and
     * filled at each post, so that posting a bind allocates nothing.
     */
    static final class BindRequest {
        MemoryWindow window;
        MemoryRegion region;
        long offset;
        long length;
        long to;
        int rights;
        int key;

        void set(SendWorkRequest request) {
            window = request.window;
            region = request.bindRegion;
            offset = request.bindOffset;
            length = request.bindLength;
            to = request.bindTo;
            rights = request.bindRights;
            key = request.bindKey;
        }

        /** Lets go of the window and region once the slot is free again. */
        void clear() {
            window = null;
            region = null;
        }
    }
}
