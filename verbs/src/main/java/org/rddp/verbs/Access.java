package org.rddp.verbs;

import java.util.Set;
import org.rddp.engine.StagResolver;

/** Access rights of a memory region or window (RFC 5040 §5, RFC 5042 §5; libibverbs {@code IBV_ACCESS_*}). */
public enum Access {
    /** The local side may write it (receive buffers, RDMA Read sinks). */
    LOCAL_WRITE(StagResolver.LOCAL_WRITE),
    /** The peer may read it with RDMA Read. */
    REMOTE_READ(StagResolver.REMOTE_READ),
    /** The peer may write it with RDMA Write. */
    REMOTE_WRITE(StagResolver.REMOTE_WRITE),
    /** Memory windows may be bound on it. */
    MW_BIND(0x100);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /** The right's bit in the engine's mask. */
    int bit() {
        return bit;
    }

    /** The rights as the engine's bit mask; local read is always granted. */
    static int mask(Set<Access> rights) {
        int mask = StagResolver.LOCAL_READ;
        for (Access access : rights) {
            mask |= access.bit;
        }
        return mask;
    }
}
