package org.rddp.engine;

import org.rddp.work.WorkOpcode;
import org.rddp.work.WcStatus;

/**
 * A send-queue work request as the engine holds it: a reusable slot. The verbs layer fills the request fields
 * before it hands the slot to the owner thread; from then on the engine owns it until it reports the completion.
 */
public final class SendWork {
    /** The consumer's identifier, returned in the completion. */
    public long wrId;
    /** What to do. */
    public WorkOpcode opcode;
    /** Whether a successful completion is reported (errors always are). */
    public boolean signaled;
    /** Write and Read: the peer's STag; Send with Invalidate: the STag to invalidate at the peer. */
    public int remoteStag;
    /** Write and Read: the peer's TO. */
    public long remoteTo;
    /** Local invalidate: the STag to invalidate. */
    public int localStag;
    /** The scatter/gather elements: the source of a Send or Write, the sink of a Read. */
    public final SgeList sges;
    /** Operation-specific context for local operations (the window and region of a bind). */
    public Object context;

    // engine progress
    long sent;
    boolean done;
    WcStatus status;
    long byteLength;
    boolean internal;
    /**
     * Finished while the LLP held a payload: the LLP's {@code releases()} count then, and the completion waits until
     * it moves on; -1 if not.
     */
    long heldAt = -1;

    /** A slot with room for {@code maxSge} elements. */
    public SendWork(int maxSge) {
        sges = new SgeList(maxSge);
    }

    void reset() {
        sent = 0;
        done = false;
        status = WcStatus.SUCCESS;
        byteLength = 0;
        internal = false;
        heldAt = -1;
    }
}
