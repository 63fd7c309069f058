package org.rddp.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Registered memory ({@code ibv_mr}). Its STag serves as lkey and rkey. The consumer keeps owning the memory:
 * deregister before freeing it.
 */
public final class MemoryRegion extends TaggedMemory {
    private volatile int windows;

    MemoryRegion(RdmaDevice device, ProtectionDomain pd, int index, MemorySegment memory, long iova, int access) {
        super(device, pd, index);
        this.memory = memory;
        this.memoryOffset = 0;
        this.base = iova;
        this.length = memory.byteSize();
        this.access = access;
        this.stag = index << 8 | device.nextKey(-1);
        this.valid = true;
        device.install(this);
    }

    /** The STag: 24-bit index, 8-bit key. */
    public int stag() {
        return stag;
    }

    /** The STag used locally, in scatter/gather elements. */
    public int lkey() {
        return stag;
    }

    /** The STag the peer uses. */
    public int rkey() {
        return stag;
    }

    /** TO of the first octet. */
    public long iova() {
        return base;
    }

    /** Octets registered. */
    public long length() {
        return length;
    }

    /** The registered memory. */
    public MemorySegment memory() {
        return memory;
    }

    /** The protection domain. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** Whether the region is still registered. */
    public boolean valid() {
        return valid;
    }

    synchronized void windowBound(int delta) {
        windows += delta;
    }

    /**
     * Deregisters ({@code ibv_dereg_mr}): the STag stops working at once.
     *
     * @throws IllegalStateException while windows are bound on the region
     */
    public synchronized void deregister() {
        if (windows > 0) {
            throw new IllegalStateException("memory region " + String.format("0x%08x", stag) + " has " + windows
                    + " bound windows");
        }
        valid = false;
        device.release(this);
    }

    @Override
    public String toString() {
        return String.format("MemoryRegion[stag=0x%08x, iova=0x%x, length=%d, valid=%b]", stag, base, length, valid);
    }
}
