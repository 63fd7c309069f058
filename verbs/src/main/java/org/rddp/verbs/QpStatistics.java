package org.rddp.verbs;

import org.rddp.work.QpState;

/**
 * What one queue pair did so far: its work completed successfully and the octets it moved, and how it ended. Read
 * from any thread ({@link QueuePair#statistics}); each number is current, the set not taken at one instant.
 *
 * @param queuePair         the queue pair's number
 * @param state             its state now
 * @param sendsCompleted    send-queue work completed successfully (Sends, RDMA Writes and Reads, signaled or not)
 * @param octetsSent        the octets of that work (for an RDMA Read: the octets read)
 * @param receivesCompleted receives completed successfully (Sends the peer made)
 * @param octetsReceived    the octets of those receives
 * @param terminateSent     whether this side sent a Terminate (RFC 5040 §5.2)
 * @param terminateReceived whether the peer sent one
 * @param lost              whether its stream was lost under it (a reset, an aborted association)
 */
public record QpStatistics(int queuePair, QpState state, long sendsCompleted, long octetsSent,
        long receivesCompleted, long octetsReceived, boolean terminateSent, boolean terminateReceived, boolean lost) {
}
