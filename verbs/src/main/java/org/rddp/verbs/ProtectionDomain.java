package org.rddp.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A protection domain ({@code ibv_pd}): memory and queue pairs in one domain can reach each other, and nothing
 * else (RFC 5042 §5.1). Thread-safe.
 */
public final class ProtectionDomain {
    private final RdmaDevice device;

    ProtectionDomain(RdmaDevice device) {
        this.device = device;
    }

    /** The device. */
    public RdmaDevice device() {
        return device;
    }

    /**
     * Registers {@code memory} ({@code ibv_reg_mr}) with zero-based TOs: the first octet is TO 0.
     *
     * @throws IllegalArgumentException if {@code memory} is empty or a window right is requested without the
     *                                  local write it needs
     */
    public MemoryRegion register(MemorySegment memory, Set<Access> access) {
        return register(memory, 0, access);
    }

    /** Registers {@code memory} with its first octet at TO {@code iova} (a virtual address, say). */
    public MemoryRegion register(MemorySegment memory, long iova, Set<Access> access) {
        if (memory.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if (access.contains(Access.REMOTE_WRITE) && !access.contains(Access.LOCAL_WRITE)) {
            // as libibverbs: remote write without local write is refused
            throw new IllegalArgumentException("REMOTE_WRITE needs LOCAL_WRITE");
        }
        return new MemoryRegion(device, this, device.claimIndex(), memory, iova, Access.mask(access));
    }

    /** Registers the whole of a (direct or heap) buffer, zero-based. */
    public MemoryRegion register(ByteBuffer buffer, Set<Access> access) {
        return register(MemorySegment.ofBuffer(buffer), 0, access);
    }

    /** A type 2 memory window, unbound ({@code ibv_alloc_mw}); bind it with a work request. */
    public MemoryWindow allocateWindow() {
        return new MemoryWindow(device, this, device.claimIndex());
    }

    /** A shared receive queue ({@code ibv_create_srq}). */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWorkRequests, int maxSge) {
        checkQueue(maxWorkRequests, maxSge);
        return new SharedReceiveQueue(this, maxWorkRequests, maxSge);
    }

    /** A queue pair in IDLE ({@code ibv_create_qp}); connect it through a {@link ConnectionManager}. */
    public QueuePair createQueuePair(QpAttributes attributes) {
        checkQueue(attributes.maxSendWorkRequests(), attributes.maxSge());
        checkQueue(attributes.maxReceiveWorkRequests(), attributes.maxSge());
        if (attributes.sharedReceiveQueue() != null && attributes.sharedReceiveQueue().pd() != this) {
            throw new IllegalArgumentException("the shared receive queue belongs to another protection domain");
        }
        return new QueuePair(this, attributes);
    }

    private void checkQueue(int maxWorkRequests, int maxSge) {
        DeviceAttributes limits = device.attributes();
        if (maxWorkRequests < 1 || maxWorkRequests > limits.maxWorkRequests()) {
            throw new IllegalArgumentException("queue depth " + maxWorkRequests + " outside 1.."
                    + limits.maxWorkRequests());
        }
        if (maxSge < 1 || maxSge > limits.maxSge()) {
            throw new IllegalArgumentException("SGE count " + maxSge + " outside 1.." + limits.maxSge());
        }
    }
}
