package org.rddp.engine;

import org.rddp.rdmap.RdmapOpcode;

/**
 * What a send-queue work request asks for, and the RDMAP message it becomes on the wire, if any. The engine's own;
 * users see {@code org.rddp.verbs.WorkOpcode}, the same constants in the same order.
 */
public enum WorkOpcode {
    SEND(RdmapOpcode.SEND),
    SEND_WITH_INVALIDATE(RdmapOpcode.SEND_WITH_INVALIDATE),
    SEND_WITH_SE(RdmapOpcode.SEND_WITH_SE),
    SEND_WITH_SE_AND_INVALIDATE(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE),
    RDMA_WRITE(RdmapOpcode.RDMA_WRITE),
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
