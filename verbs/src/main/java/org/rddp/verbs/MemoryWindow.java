package org.rddp.verbs;

/**
 * A type 2 memory window ({@code ibv_mw}): a slice of a region with its own STag and rights, bound and
 * invalidated through a queue pair's send queue (RFC 5040 §5, RFC 5042 §5.3), and usable only by the peer of the
 * queue pair that bound it.
 */
public final class MemoryWindow extends TaggedMemory {
    volatile QueuePair boundTo;
    volatile MemoryRegion region;

    MemoryWindow(RdmaDevice device, ProtectionDomain pd, int index) {
        super(device, pd, index);
        this.stag = index << 8 | device.nextKey(-1);
        this.valid = false;
        device.install(this);
    }

    /** The current STag; it changes with every bind. */
    public int stag() {
        return stag;
    }

    /** The STag the window has once bound with the 8-bit {@code key} (the index part never changes). */
    public int stagWithKey(int key) {
        return (stag & ~0xFF) | (key & 0xFF);
    }

    /** Whether the window is bound and not invalidated. */
    public boolean bound() {
        return valid;
    }

    /** The protection domain. */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * Binds: owner thread of {@code qp}, from its send queue, with the new STag's key {@code key} (-1: one chosen
     * at random). Returns false if the bind is not allowed.
     */
    synchronized boolean bind(QueuePair qp, MemoryRegion target, long offset, long size, long to, int rights,
            int key) {
        if (valid || !target.valid || target.pd != pd || qp.pd() != pd || (target.access & Access.MW_BIND.bit()) == 0) {
            return false;
        }
        if ((rights & Access.REMOTE_WRITE.bit()) != 0 && (target.access & Access.LOCAL_WRITE.bit()) == 0) {
            return false; // a window cannot grant remote write on memory the owner cannot write
        }
        if (offset < 0 || size < 0 || offset > target.length || size > target.length - offset) {
            return false;
        }
        memory = target.memory;
        memoryOffset = target.memoryOffset + offset;
        base = to;
        length = size;
        access = rights;
        region = target;
        boundTo = qp;
        stag = (stag & ~0xFF) | (key >= 0 ? key : device.nextKey(stag & 0xFF));
        target.windowBound(1);
        valid = true;
        return true;
    }

    /** Invalidates: the STag stops working at once. */
    synchronized boolean invalidate() {
        if (!valid) {
            return false;
        }
        valid = false;
        region.windowBound(-1);
        region = null;
        return true;
    }

    /** Frees the window ({@code ibv_dealloc_mw}), invalidating it if bound. */
    public void deallocate() {
        invalidate();
        device.release(this);
    }

    @Override
    public String toString() {
        return String.format("MemoryWindow[stag=0x%08x, bound=%b]", stag, valid);
    }
}
