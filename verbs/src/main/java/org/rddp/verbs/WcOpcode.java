package org.rddp.verbs;

/** What a work completion completes ({@code ibv_wc_opcode}). */
public enum WcOpcode {
    SEND,
    RDMA_WRITE,
    RDMA_READ,
    BIND_MW,
    LOCAL_INV,
    /** A receive, filled by one of the Sends. */
    RECV
}
