/**
 * RDMA verbs in Java, in the vocabulary of the RDMAC verbs and libibverbs: {@link org.rddp.verbs.RdmaDevice},
 * {@link org.rddp.verbs.ProtectionDomain}, {@link org.rddp.verbs.MemoryRegion},
 * {@link org.rddp.verbs.MemoryWindow}, {@link org.rddp.verbs.QueuePair}, {@link org.rddp.verbs.CompletionQueue},
 * {@link org.rddp.verbs.SharedReceiveQueue} and {@link org.rddp.verbs.ConnectionManager}.
 *
 * <p>Posting a work request and polling a completion allocate nothing: requests and completions are reusable
 * objects the caller owns, and the queues copy them into slots allocated up front.
 *
 * <p>Abbreviations: PD = protection domain, MR = memory region, MW = memory window, QP = queue pair, CQ =
 * completion queue, SRQ = shared receive queue, WR = work request, WC = work completion, SGE = scatter/gather
 * element, STag = steering tag (lkey and rkey are the same STag in iWARP), TO = tagged offset.
 */
package org.rddp.verbs;
