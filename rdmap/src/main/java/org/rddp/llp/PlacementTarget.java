package org.rddp.llp;

import java.lang.foreign.MemorySegment;

/**
 * Where payload goes: a registered region's memory and an offset into it. A mutable holder, reused on the hot
 * path so that resolving a placement allocates nothing.
 */
public final class PlacementTarget {
    private MemorySegment memory = MemorySegment.NULL;
    private long offset;

    /** An empty target. */
    public PlacementTarget() {
        // filled by set
    }

    /** Points the target at {@code offset} in {@code memory}. */
    public void set(MemorySegment memory, long offset) {
        this.memory = memory;
        this.offset = offset;
    }

    /** The region's memory. */
    public MemorySegment memory() {
        return memory;
    }

    /** Offset of the first octet in {@link #memory()}. */
    public long offset() {
        return offset;
    }
}
