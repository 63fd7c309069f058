package org.rddp.loop;

/**
 * What a loop's own thread does after a duty cycle that found no work, as Agrona's idle strategies do: spin for
 * some cycles, yield for some more, then block in the loop's {@link Poller} until I/O or a command arrives. The
 * blocking is on readiness, never on a timer: a loop that waits sleeps until there is something to do.
 *
 * @param spins  idle cycles that spin ({@link Thread#onSpinWait()}) before yielding
 * @param yields idle cycles that yield before blocking
 * @param blocks whether the loop blocks at all; false is busy polling, which keeps a core busy for the lowest
 *               latency (as perftest's latency tests poll)
 */
public record IdleStrategy(int spins, int yields, boolean blocks) {
    /** Blocks in the poller as soon as a cycle finds nothing to do: the default, kind to a machine with few cores. */
    public static final IdleStrategy BLOCKING = new IdleStrategy(0, 0, true);
    /** Never blocks: every idle cycle polls again at once. */
    public static final IdleStrategy BUSY_POLLING = new IdleStrategy(0, 0, false);

    /** Validates the counts. */
    public IdleStrategy {
        if (spins < 0 || yields < 0) {
            throw new IllegalArgumentException("negative spins or yields: " + spins + ", " + yields);
        }
    }

    /** Spins {@code spins} idle cycles, yields {@code yields} more, then blocks. */
    public static IdleStrategy backoff(int spins, int yields) {
        return new IdleStrategy(spins, yields, true);
    }

    /**
     * Idles after the {@code idleCycles}-th cycle in a row that found no work (1 for the first).
     *
     * @return whether the caller should block in its poller now
     */
    boolean idle(int idleCycles) {
        if (!blocks || idleCycles <= spins) {
            Thread.onSpinWait();
            return false;
        }
        if (idleCycles <= spins + yields) {
            Thread.yield();
            return false;
        }
        return true;
    }
}
