/**
 * The DDP (RFC 5041) and RDMAP (RFC 5040) protocol engine for one stream, and the vocabulary it shares with the
 * verbs layer: queue pair states, work request opcodes, work completion statuses and asynchronous events.
 *
 * <p>The engine is a single-threaded state machine that runs on its LLP stream's owner thread, a
 * {@link org.rddp.loop.Loop}'s (see {@link org.rddp.llp} for the stream). It reaches memory through
 * {@link org.rddp.engine.StagResolver} and work queues through {@link org.rddp.engine.WorkQueues}, both implemented
 * by the verbs layer.
 *
 * <p>Abbreviations: WR = work request, WC = work completion, SQ/RQ = send/receive queue, SRQ = shared receive
 * queue, IRRQ = inbound RDMA Read request queue, SGE = scatter/gather element, lkey = local STag.
 */
package org.rddp.engine;
