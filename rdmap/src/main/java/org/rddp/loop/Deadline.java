package org.rddp.loop;

/**
 * A time by which something must have happened, kept by the {@link Loop} that {@linkplain Loop#schedule made} it: a
 * connection's setup, a peer's close after a Terminate, the rest of a half-received frame, a protocol stack's own
 * timers. Its expiry runs on the loop's owner thread in the first duty cycle after the time has passed, unless it is
 * {@linkplain #cancel() cancelled} first; an idle loop wakes for it. Owner thread only, like the loop's streams.
 */
public final class Deadline implements Comparable<Deadline> {
    private final Loop loop;
    /** When it expires, in {@link System#nanoTime()}. */
    final long at;
    /** What runs then; null once it ran or was cancelled. */
    Runnable expiry;

    Deadline(Loop loop, long at, Runnable expiry) {
        this.loop = loop;
        this.at = at;
        this.expiry = expiry;
    }

    /** When it expires, in {@link System#nanoTime()}. */
    public long at() {
        return at;
    }

    /** Whether its expiry has neither run nor been cancelled yet. */
    public boolean pending() {
        return expiry != null;
    }

    /** Its expiry will not run (it may have already). Owner thread of its loop. */
    public void cancel() {
        if (expiry != null) {
            expiry = null;
            loop.forget(this);
        }
    }

    /** Cancels {@code deadline} unless it is null. Owner thread of its loop. */
    public static void cancelIfSet(Deadline deadline) {
        if (deadline != null) {
            deadline.cancel();
        }
    }

    @Override
    public int compareTo(Deadline other) {
        return Long.compare(at - other.at, 0);
    }
}
