package org.rddp.verbs;

import java.lang.foreign.MemorySegment;
import org.rddp.engine.StagResolver;
import org.rddp.llp.PlacementTarget;

/**
 * What an STag names: a memory region or a bound memory window. Its fields are read by owner threads on the
 * data path and written by the consumer (register, bind, invalidate), hence volatile where they change.
 */
abstract sealed class TaggedMemory permits MemoryRegion, MemoryWindow {
    final RdmaDevice device;
    final ProtectionDomain pd;
    final int index;
    volatile int stag;
    volatile boolean valid;
    volatile MemorySegment memory = MemorySegment.NULL;
    volatile long memoryOffset;
    volatile long base;
    volatile long length;
    volatile int access;

    TaggedMemory(RdmaDevice device, ProtectionDomain pd, int index) {
        this.device = device;
        this.pd = pd;
        this.index = index;
    }

    /**
     * Checks {@code [to, to + size)} against this object's range, in unsigned arithmetic (RFC 5042 §5: a peer
     * never reaches outside what was registered or bound for it), and points {@code target} at it.
     */
    final int locate(long to, long size, PlacementTarget target) {
        if (size != 0 && Long.compareUnsigned(to + size - 1, to) < 0) {
            return StagResolver.TO_WRAP;
        }
        long first = base;
        long extent = length;
        long offset = to - first;
        if (Long.compareUnsigned(to, first) < 0 || Long.compareUnsigned(offset, extent) > 0
                || Long.compareUnsigned(size, extent - offset) > 0) {
            return StagResolver.BASE_OR_BOUNDS;
        }
        target.set(memory, memoryOffset + offset);
        return StagResolver.OK;
    }
}
