package org.rddp.error;

/**
 * DDP errors, Layer 0x1 (RFC 5041 §7.2; registry RFC 6580 §3.2). EType 0x3 is reserved for the LLP and has no
 * codes. There is no untagged code 0x00 and no DDP code for an access-rights violation.
 */
public enum DdpError implements TerminateCause {
    LOCAL_CATASTROPHIC(0x0, 0x00, "Local Catastrophic"),
    TAGGED_INVALID_STAG(0x1, 0x00, "Tagged Buffer Error: Invalid STag"),
    TAGGED_BASE_OR_BOUNDS(0x1, 0x01, "Tagged Buffer Error: Base or bounds violation"),
    TAGGED_STAG_NOT_ASSOCIATED(0x1, 0x02, "Tagged Buffer Error: STag not associated with DDP Stream"),
    TAGGED_TO_WRAP(0x1, 0x03, "Tagged Buffer Error: TO wrap"),
    TAGGED_INVALID_VERSION(0x1, 0x04, "Tagged Buffer Error: Invalid DDP version"),
    UNTAGGED_INVALID_QN(0x2, 0x01, "Untagged Buffer Error: Invalid QN"),
    UNTAGGED_NO_BUFFER(0x2, 0x02, "Untagged Buffer Error: Invalid MSN - no buffer available"),
    UNTAGGED_MSN_RANGE(0x2, 0x03, "Untagged Buffer Error: Invalid MSN - MSN range is not valid"),
    UNTAGGED_INVALID_MO(0x2, 0x04, "Untagged Buffer Error: Invalid MO"),
    UNTAGGED_MESSAGE_TOO_LONG(0x2, 0x05, "Untagged Buffer Error: DDP Message too long for available buffer"),
    UNTAGGED_INVALID_VERSION(0x2, 0x06, "Untagged Buffer Error: Invalid DDP version");

    private final int etype;
    private final int code;
    private final String description;

    DdpError(int etype, int code, String description) {
        this.etype = etype;
        this.code = code;
        this.description = description;
    }

    @Override
    public ErrorLayer layer() {
        return ErrorLayer.DDP;
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
