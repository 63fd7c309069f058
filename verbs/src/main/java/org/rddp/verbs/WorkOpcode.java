package org.rddp.verbs;

/** What a send-queue work request asks for ({@code ibv_wr_opcode}); the first six leave as RDMAP messages. */
public enum WorkOpcode {
    /** A Send (RFC 5040 §4.3). */
    SEND,
    /** A Send with Invalidate of the peer's STag (RFC 5040 §5.3). */
    SEND_WITH_INVALIDATE,
    /** A Send with Solicited Event. */
    SEND_WITH_SE,
    /** A Send with Solicited Event and Invalidate. */
    SEND_WITH_SE_AND_INVALIDATE,
    /** An RDMA Write (RFC 5040 §4.1). */
    RDMA_WRITE,
    /** An RDMA Read: a Read Request, answered by the peer's Read Response (RFC 5040 §4.2). */
    RDMA_READ,
    /** Binds a type 2 memory window; local, nothing on the wire. */
    BIND_MEMORY_WINDOW,
    /** Invalidates an STag of this side; local, nothing on the wire. */
    LOCAL_INVALIDATE
}
