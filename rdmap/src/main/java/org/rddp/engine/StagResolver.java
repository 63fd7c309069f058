package org.rddp.engine;

import org.rddp.llp.PlacementTarget;

/**
 * Memory seen through STags for one stream (RFC 5040 §5, RFC 5042 §5): the verbs layer implements it over the
 * queue pair's protection domain and memory windows. Called on the stream's owner thread.
 *
 * <p>Ranges are given as an STag, a TO and a length; all three are unsigned and the implementation checks them
 * without signed overflow.
 */
public interface StagResolver {
    /** Resolved, or invalidated. */
    int OK = 0;
    /** No such STag, or it was invalidated or deregistered. */
    int INVALID_STAG = 1;
    /** The range leaves the region or window. */
    int BASE_OR_BOUNDS = 2;
    /** The STag lacks the requested access right. */
    int ACCESS_RIGHTS = 3;
    /** The STag belongs to another protection domain or queue pair. */
    int NOT_ASSOCIATED = 4;
    /** TO plus length wraps past 2^64. */
    int TO_WRAP = 5;
    /** The STag exists but cannot be invalidated this way. */
    int CANNOT_INVALIDATE = 6;

    /** Local read through an lkey (the source of a Send or Write). */
    int LOCAL_READ = 0x01;
    /** Local write through an lkey (a receive buffer, the sink of a Read). */
    int LOCAL_WRITE = 0x02;
    /** The peer reads (RDMA Read source). */
    int REMOTE_READ = 0x04;
    /** The peer writes (RDMA Write sink). */
    int REMOTE_WRITE = 0x08;
    /**
     * With {@link #REMOTE_WRITE}: the placement comes before the message's turn (early placement, RFC 5043 §10), so
     * only into memory that no Send with Invalidate still on its way can revoke meanwhile (a registered region, never
     * a memory window). A ULP that checks a buffer once the peer invalidated it (RFC 5042 §6.4's defence) then finds
     * nothing there the peer wrote after the invalidation. Not an access right of its own.
     */
    int BEFORE_ITS_TURN = 0x10;

    /**
     * Checks that {@code [to, to + length)} of {@code stag} is valid for {@code access} on this stream and points
     * {@code target} at its first octet.
     *
     * @return {@link #OK} or the first failed check
     */
    int resolve(int stag, long to, long length, int access, PlacementTarget target);

    /**
     * Invalidates {@code stag}: for a Send with Invalidate ({@code remote}, RFC 5040 §5.3) or a local
     * invalidate work request.
     *
     * @return {@link #OK}, {@link #INVALID_STAG}, {@link #NOT_ASSOCIATED} or {@link #CANNOT_INVALIDATE}
     */
    int invalidate(int stag, boolean remote);
}
