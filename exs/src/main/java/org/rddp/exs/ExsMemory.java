package org.rddp.exs;

import java.lang.foreign.MemorySegment;
import org.rddp.verbs.MemoryRegion;

/**
 * Registered memory ({@code exs_mregister}): what sends and receives take. The peer never gets this memory's own
 * STag; each send advertises only its block, through a memory window bound for it and invalidated when the
 * receiver acknowledges.
 */
public final class ExsMemory {
    final MemoryRegion region;

    ExsMemory(MemoryRegion region) {
        this.region = region;
    }

    /** The memory. */
    public MemorySegment segment() {
        return region.memory();
    }

    /** Octets. */
    public long length() {
        return region.length();
    }

    /** Whether it is still registered. */
    public boolean registered() {
        return region.valid();
    }

    /** Deregisters ({@code exs_mderegister}); operations still using it fail. */
    public void deregister() {
        region.deregister();
    }

    @Override
    public String toString() {
        return "EXS memory of " + length() + " octets";
    }
}
