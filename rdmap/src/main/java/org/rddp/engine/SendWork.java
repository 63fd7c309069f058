package org.rddp.engine;

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
    /** Number of scatter/gather elements used. */
    public int sgeCount;
    /** The elements' lkeys. */
    public final int[] lkey;
    /** The elements' TOs (addresses in the region). */
    public final long[] address;
    /** The elements' lengths, unsigned. */
    public final int[] length;
    /** Operation-specific context for local operations (the window and region of a bind). */
    public Object context;

    // engine progress
    long sent;
    boolean done;
    WcStatus status;
    long byteLength;
    boolean internal;

    /** A slot with room for {@code maxSge} elements. */
    public SendWork(int maxSge) {
        lkey = new int[maxSge];
        address = new long[maxSge];
        length = new int[maxSge];
    }

    /** Total octets of the elements. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < sgeCount; i++) {
            total += Integer.toUnsignedLong(length[i]);
        }
        return total;
    }

    void reset() {
        sent = 0;
        done = false;
        status = WcStatus.SUCCESS;
        byteLength = 0;
        internal = false;
    }
}
