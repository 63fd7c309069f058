package org.rddp.exs;

/** Options of a socket ({@code exs_fcntl}). */
public enum ExsOption {
    /**
     * Advertisements this side can hold at once (the paper's receive credits; the peer's send credits are the
     * smaller of both sides' numbers). 1 to 1,024; default 16. Set before the socket connects or listens.
     */
    CREDITS(16, 1, ExsHello.MAX_SLOTS, true),
    /**
     * The largest send whose data travels inside its advertisement, copied out by the receiver instead of read
     * ({@code small_packet_max_size}): the smaller of both sides' settings applies. 0 to 65,536 octets; default 512.
     * Set before the socket connects or listens.
     */
    SMALL_PACKET_MAX_SIZE(512, 0, ExsHello.MAX_IMMEDIATE, true),
    /**
     * Milliseconds a graceful {@linkplain ExsSocket#close close} waits for the peer to finish its side: past them the
     * connection is aborted and the CLOSE event says so. 0 aborts at once ({@code SO_LINGER} of 0). 0 to 3,600,000;
     * default 10,000. Set any time before the socket closes; an accepted socket starts with its listener's.
     */
    CLOSE_TIMEOUT(10_000, 0, 3_600_000, false);

    private final int defaultValue;
    private final int min;
    private final int max;
    private final boolean negotiated;

    ExsOption(int defaultValue, int min, int max, boolean negotiated) {
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.negotiated = negotiated;
    }

    /** The value a new socket has. */
    public int defaultValue() {
        return defaultValue;
    }

    /** The smallest value allowed. */
    public int min() {
        return min;
    }

    /** The largest value allowed. */
    public int max() {
        return max;
    }

    /** Whether the option is agreed with the peer when connecting, so that it is set before. */
    boolean negotiated() {
        return negotiated;
    }
}
