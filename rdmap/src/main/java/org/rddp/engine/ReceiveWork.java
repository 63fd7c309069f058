package org.rddp.engine;

/**
 * A posted receive (from a queue pair's receive queue or a shared receive queue) as the engine holds it: a
 * reusable slot, owned by the engine from the moment it takes it until it reports the completion.
 */
public final class ReceiveWork {
    /** The consumer's identifier, returned in the completion. */
    public long wrId;
    /** The scatter/gather elements the message is placed into. */
    public final SgeList sges;

    /** A slot with room for {@code maxSge} elements. */
    public ReceiveWork(int maxSge) {
        sges = new SgeList(maxSge);
    }
}
