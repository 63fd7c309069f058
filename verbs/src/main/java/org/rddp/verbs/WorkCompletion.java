package org.rddp.verbs;

import org.rddp.work.WcStatus;


/** A work completion ({@code ibv_wc}): a reusable object that {@link CompletionQueue#poll} fills. */
public final class WorkCompletion {
    long wrId;
    WcStatus status;
    WcOpcode opcode;
    long byteLength;
    int queuePairNumber;
    int invalidatedStag;
    boolean solicited;

    /** An empty completion, to be filled by {@link CompletionQueue#poll}. */
    public WorkCompletion() {
        // filled by poll
    }

    /** The consumer's identifier of the work request. */
    public long wrId() {
        return wrId;
    }

    /** How it ended. */
    public WcStatus status() {
        return status;
    }

    /** What completed. */
    public WcOpcode opcode() {
        return opcode;
    }

    /** Octets received (receives) or transferred (RDMA Read, Send, Write). */
    public long byteLength() {
        return byteLength;
    }

    /** The queue pair's number. */
    public int queuePairNumber() {
        return queuePairNumber;
    }

    /** For a receive filled by a Send with Invalidate: the STag invalidated; else 0. */
    public int invalidatedStag() {
        return invalidatedStag;
    }

    /** For a receive: whether the Send asked for a solicited event. */
    public boolean solicited() {
        return solicited;
    }

    void copyFrom(WorkCompletion other) {
        wrId = other.wrId;
        status = other.status;
        opcode = other.opcode;
        byteLength = other.byteLength;
        queuePairNumber = other.queuePairNumber;
        invalidatedStag = other.invalidatedStag;
        solicited = other.solicited;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLength="
                + byteLength + ", qp=" + queuePairNumber + (invalidatedStag != 0
                ? String.format(", invalidated=0x%08x", invalidatedStag) : "") + (solicited ? ", solicited" : "")
                + "]";
    }
}
