package org.rddp.wire;

import java.util.Objects;

/**
 * A frame from the peer that cannot be decoded. Carries the {@link DecodeStatus}, and through it the Terminate
 * cause or other action the RFCs prescribe.
 */
public final class MalformedFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    private final DecodeStatus status;

    /** A decode failure; {@code status} must not be {@link DecodeStatus#OK}. */
    public MalformedFrameException(DecodeStatus status, String detail) {
        super(Objects.requireNonNull(status, "status") + ": " + detail);
        if (status == DecodeStatus.OK) {
            throw new IllegalArgumentException("a malformed frame needs an error status, not OK");
        }
        this.status = status;
    }

    /** What was wrong. */
    public DecodeStatus status() {
        return status;
    }
}
