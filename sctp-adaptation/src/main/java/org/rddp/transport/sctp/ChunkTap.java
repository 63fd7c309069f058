package org.rddp.transport.sctp;

import java.lang.foreign.MemorySegment;

/**
 * Sees every DATA chunk payload an association hands to SCTP or gets from it, with the stream, PPID and U bit
 * SCTP reports: the backend's own tap, for tests and diagnostics. Called on the association's owner thread;
 * the octets are valid during the call only. An exception it throws (a capture file that cannot be written, say) is
 * counted ({@code Counter.CALLBACK_FAILURES}) and handed to that thread's uncaught-exception handler; the
 * association carries on.
 */
@FunctionalInterface
public interface ChunkTap {
    /** Sees nothing. */
    ChunkTap NONE = (association, outbound, streamId, ppid, unordered, chunk, length) -> { };

    /**
     * One chunk.
     *
     * @param association identifies the association (compare by identity)
     * @param outbound    sent by this side, else received
     * @param chunk       the payload: DDP-SSN, then a DDP segment or session control
     */
    void chunk(Object association, boolean outbound, int streamId, int ppid, boolean unordered, MemorySegment chunk,
            int length);
}
