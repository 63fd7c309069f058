package org.rddp.work;

import org.rddp.rdmap.RdmapOpcode;

/**
 * What a send-queue work request asks for ({@code ibv_wr_opcode}), and the RDMAP message it becomes on the wire, if
 * any: the first six leave as RDMAP messages.
 */
public enum WorkOpcode {
    /** A Send (RFC 5040 §4.3). */
    SEND(RdmapOpcode.SEND),
    /** A Send with Invalidate of the peer's STag (RFC 5040 §5.3). */
    SEND_WITH_INVALIDATE(RdmapOpcode.SEND_WITH_INVALIDATE),
    /** A Send with Solicited Event. */
    SEND_WITH_SE(RdmapOpcode.SEND_WITH_SE),
    /** A Send with Solicited Event and Invalidate. */
    SEND_WITH_SE_AND_INVALIDATE(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE),
    /** An RDMA Write (RFC 5040 §4.1). */
    RDMA_WRITE(RdmapOpcode.RDMA_WRITE),
    /** An RDMA Read: a Read Request, answered by the peer's Read Response (RFC 5040 §4.2). */
    RDMA_READ(RdmapOpcode.RDMA_READ_REQUEST),
    /** Binds a type 2 memory window; local, nothing on the wire. */
    BIND_MEMORY_WINDOW(null),
    /** Invalidates an STag of this side; local, nothing on the wire. */
    LOCAL_INVALIDATE(null);

    private final RdmapOpcode rdmapOpcode;

    WorkOpcode(RdmapOpcode rdmapOpcode) {
        this.rdmapOpcode = rdmapOpcode;
    }

    /** The message this request sends, or {@code null} for local operations. */
    public RdmapOpcode rdmapOpcode() {
        return rdmapOpcode;
    }

    /** Whether this is one of the four Sends. */
    public boolean isSend() {
        return rdmapOpcode != null && rdmapOpcode.isSend();
    }
}
