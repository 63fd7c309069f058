package org.rddp.work;

/** Work completion statuses, as libibverbs names them ({@code IBV_WC_*}): the engine reports, the verbs show. */
public enum WcStatus {
    /** The operation completed. */
    SUCCESS,
    /** A receive buffer too small for the incoming Send, or a request longer than allowed. */
    LOC_LEN_ERR,
    /** The request was malformed or not allowed on this queue pair. */
    LOC_QP_OP_ERR,
    /** A local STag (lkey) was invalid, of another protection domain, out of bounds or lacked access. */
    LOC_PROT_ERR,
    /** Not executed: the queue pair went to ERROR (or was torn down) first. */
    WR_FLUSH_ERR,
    /** A memory window bind failed. */
    MW_BIND_ERR,
    /** The peer found the request invalid (a Terminate with a Remote Operation or untagged DDP error). */
    REM_INV_REQ_ERR,
    /** The peer refused access to its memory (a Terminate with a Remote Protection or tagged DDP error). */
    REM_ACCESS_ERR,
    /** The peer failed to carry out the operation (other Terminate causes). */
    REM_OP_ERR,
    /** The connection failed underneath the operation. */
    FATAL_ERR,
    /** Anything else. */
    GENERAL_ERR
}
