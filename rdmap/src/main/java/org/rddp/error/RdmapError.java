package org.rddp.error;

/** RDMAP errors, Layer 0x0 (RFC 5040 §4.8 Fig. 9; registry RFC 6580 §3.1). */
public enum RdmapError implements TerminateCause {
    /** 0x0/0x0: has no error code; any value is acceptable on receive, we send 0x00. */
    LOCAL_CATASTROPHIC(0x0, 0x00, "Local Catastrophic Error"),
    REMOTE_PROTECTION_INVALID_STAG(0x1, 0x00, "Remote Protection Error: Invalid STag"),
    REMOTE_PROTECTION_BASE_OR_BOUNDS(0x1, 0x01, "Remote Protection Error: Base or bounds violation"),
    REMOTE_PROTECTION_ACCESS_RIGHTS(0x1, 0x02, "Remote Protection Error: Access rights violation"),
    REMOTE_PROTECTION_STAG_NOT_ASSOCIATED(0x1, 0x03, "Remote Protection Error: STag not associated with RDMAP Stream"),
    REMOTE_PROTECTION_TO_WRAP(0x1, 0x04, "Remote Protection Error: TO wrap"),
    REMOTE_PROTECTION_CANNOT_INVALIDATE(0x1, 0x09, "Remote Protection Error: STag cannot be Invalidated"),
    REMOTE_PROTECTION_UNSPECIFIED(0x1, 0xFF, "Remote Protection Error: Unspecified Error"),
    REMOTE_OPERATION_INVALID_VERSION(0x2, 0x05, "Remote Operation Error: Invalid RDMAP version"),
    REMOTE_OPERATION_UNEXPECTED_OPCODE(0x2, 0x06, "Remote Operation Error: Unexpected OpCode"),
    REMOTE_OPERATION_CATASTROPHIC_STREAM(0x2, 0x07,
            "Remote Operation Error: Catastrophic error, localized to RDMAP Stream"),
    REMOTE_OPERATION_CATASTROPHIC_GLOBAL(0x2, 0x08, "Remote Operation Error: Catastrophic error, global"),
    REMOTE_OPERATION_CANNOT_INVALIDATE(0x2, 0x09, "Remote Operation Error: STag cannot be Invalidated"),
    REMOTE_OPERATION_UNSPECIFIED(0x2, 0xFF, "Remote Operation Error: Unspecified Error");

    /** EType of the Remote Protection errors. */
    static final int REMOTE_PROTECTION_ETYPE = 0x1;

    private final int etype;
    private final int code;
    private final String description;

    RdmapError(int etype, int code, String description) {
        this.etype = etype;
        this.code = code;
        this.description = description;
    }

    @Override
    public ErrorLayer layer() {
        return ErrorLayer.RDMAP;
    }

    @Override
    public int etype() {
        return etype;
    }

    @Override
    public int code() {
        return code;
    }

    @Override
    public String description() {
        return description;
    }
}
