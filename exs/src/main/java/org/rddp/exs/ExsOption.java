package org.rddp.exs;

/** Options of a socket ({@code exs_fcntl}), set before it connects or listens. */
public enum ExsOption {
    /**
     * Advertisements this side can hold at once (the paper's receive credits; the peer's send credits are the
     * smaller of both sides' numbers). 1 to 1,024; default 16.
     */
    CREDITS(16),
    /**
     * The largest send whose data travels inside its advertisement, copied out by the receiver instead of read
     * ({@code small_packet_max_size}): the smaller of both sides' settings applies. 0 to 65,536 octets; default 512.
     */
    SMALL_PACKET_MAX_SIZE(512);

    private final int defaultValue;

    ExsOption(int defaultValue) {
        this.defaultValue = defaultValue;
    }

    /** The value a new socket has. */
    public int defaultValue() {
        return defaultValue;
    }
}
