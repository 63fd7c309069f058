package org.rddp.error;

/**
 * MPA errors, Layer 0x2 (LLP), EType 0x0 (RFC 5044 §8 codes 1-4, RFC 6581 §8 codes 5-7; registry RFC 6580 §3.3).
 */
public enum MpaError implements TerminateCause {
    TCP_CONNECTION_LOST(0x01, "TCP connection closed, terminated, or lost"),
    CRC_ERROR(0x02, "MPA CRC Error"),
    MARKER_LENGTH_DISAGREE(0x03, "MPA Marker and ULPDU Length field mismatch"),
    INVALID_REQUEST_OR_REPLY(0x04, "Invalid MPA Request or Reply Frame"),
    LOCAL_CATASTROPHIC(0x05, "Local catastrophic (enhanced connection setup)"),
    INSUFFICIENT_IRD(0x06, "Insufficient IRD resources"),
    NO_MATCHING_RTR(0x07, "No matching RTR option");

    private final int code;
    private final String description;

    MpaError(int code, String description) {
        this.code = code;
        this.description = description;
    }

    @Override
    public ErrorLayer layer() {
        return ErrorLayer.LLP;
    }

    @Override
    public int etype() {
        return 0x0;
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
