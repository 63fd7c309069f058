package org.rddp.cli;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.rddp.loop.Loop;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.QpEventHandler;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * Takes completions off one completion queue for a command's single thread. When the queue is empty it sleeps on
 * the queue's notification instead of spinning: on a machine with few cores a spinning poller takes the CPU the
 * transport's own threads need to make the completions. A Terminate seen on the queue pair (through
 * {@link #events()}) turns the flushes after it into a failure that says so, not a disconnect.
 */
public final class Completions {
    private static final long NAP = Duration.ofMillis(200).toNanos();
    /**
     * Whether a waiting thread may poll busily at all: only where another processor can meanwhile run what it waits
     * for. On one processor (a container or a guest given one CPU) a spinning thread keeps its peer from running
     * until the scheduler takes the CPU away (a 4 ms tick in an emulated guest: every round trip took that long), so
     * there every wait sleeps at once, as the JDK's own spinning waits do.
     */
    static final boolean MAY_SPIN = Runtime.getRuntime().availableProcessors() > 1;
    /** How long a latency run polls busily before it sleeps; the raw baselines' latency runs poll as long. */
    public static final long SPIN = MAY_SPIN ? Duration.ofMillis(5).toNanos() : 0;
    /** Polls of a queue, or of a socket by a baseline, before the waiting thread sleeps. */
    public static final int SPINS = MAY_SPIN ? 2_000 : 0;
    /**
     * How long a busy wait spins before each further poll yields the processor: past this the answer is late (a
     * half round trip on loopback is 5-60 µs here), and a waiter that kept spinning would, on a machine whose other
     * processor is busy, hold the very one its peer (another thread, or another process) needs to answer: in one run
     * of {@code compare} between two ends, every 256-octet round trip of a baseline then took the scheduler's 3-4 ms.
     */
    static final long PURE_SPIN = java.util.concurrent.TimeUnit.MICROSECONDS.toNanos(50);

    /** How many busy polls a wait makes between looks at its deadline. */
    static final int CLOCK_POLLS = 1024;

    private final CompletionQueue cq;
    private final Duration timeout;
    private final WorkCompletion completion = new WorkCompletion();
    private volatile String terminated;
    /** Why the connection was lost, as its queue pair heard it, or null. */
    private volatile String lost;
    private final CompletableFuture<QpEvent> ended = new CompletableFuture<>();

    public Completions(CompletionQueue cq, Duration timeout) {
        this.cq = cq;
        this.timeout = timeout;
    }

    /** The event handler for the queue pairs whose completions these are. */
    public QpEventHandler events() {
        return (pair, event, terminate, detail) -> {
            if (event == QpEvent.PATH_MIGRATED) { // the connection goes on: told, with when
                System.err.println("rddp: " + java.time.Instant.now() + " path change on queue pair "
                        + pair.number() + ": " + detail);
                return;
            }
            if (event == QpEvent.TERMINATE_SENT || event == QpEvent.TERMINATE_RECEIVED) {
                terminated = (event == QpEvent.TERMINATE_SENT ? "sent" : "received") + " a Terminate: " + detail;
            }
            if (event == QpEvent.CONNECTION_LOST) {
                lost = detail;
            }
            if (event != QpEvent.ESTABLISHED) {
                ended.complete(event);
            }
        };
    }

    /**
     * Why a post on {@code qp} failed with {@code status}, for a person: the connection's end, when it ended (a
     * queue pair in ERROR takes no more work), else the status and the queue pair.
     */
    public String postFailed(QueuePair qp, int status) {
        String why = lost != null ? "the connection was lost: " + lost : terminated;
        if (why != null && qp.state() != QpState.RTS) {
            return why;
        }
        return "status " + status + ", " + qp;
    }

    /** How the (first) connection of these completions ended: completes with the event that ended it. */
    public CompletableFuture<QpEvent> ended() {
        return ended;
    }

    /**
     * Fails when {@code qp} is no longer connected: for waits that watch memory (an RDMA Write's data, a credit),
     * where no completion would say that the connection ended.
     */
    public void check(QueuePair qp, String what) throws PeerException {
        if (qp.state() != QpState.RTS) {
            String terminate = terminated;
            String why = terminate != null ? ": " + terminate : lost != null ? ": it was lost: " + lost : "";
            throw new PeerException("the connection ended (" + qp.state() + ") " + what + why, terminate == null);
        }
    }

    /** How long one step may wait for the peer. */
    public Duration timeout() {
        return timeout;
    }

    /** The next completion, if one is there now; a failed one throws. */
    public WorkCompletion poll() throws PeerException {
        return cq.poll(completion) ? checked("the next completion") : null;
    }

    /**
     * The next successful completion, waiting at most the timeout for it; a failed one throws, {@code what}
     * saying what was awaited. {@code batch} completions may be asked for before waking (1: any).
     */
    public WorkCompletion next(String what, int batch) throws PeerException {
        return next(what, batch, timeout);
    }

    /**
     * {@link #next(String, int)}, waiting up to {@code wait}: {@link #SPINS} polls first (each empty one runs the
     * loop this thread drives), as the raw baselines poll their sockets before they sleep, so that a stream of
     * packets is read as it comes rather than one wake-up at a time on either side.
     */
    public WorkCompletion next(String what, int batch, Duration wait) throws PeerException {
        return next(what, batch, wait, SPINS);
    }

    /** {@link #next(String, int, Duration)} with {@code spins} polls before it sleeps. */
    public WorkCompletion next(String what, int batch, Duration wait, int spins) throws PeerException {
        WorkCompletion next = within(what, batch, wait, spins);
        if (next == null) {
            throw new PeerException("no answer within " + wait.toSeconds() + " s waiting for " + what);
        }
        return next;
    }

    /** {@link #next(String, int, Duration)}, but null when {@code wait} runs out first. */
    public WorkCompletion within(String what, int batch, Duration wait) throws PeerException {
        return within(what, batch, wait, SPINS);
    }

    /**
     * {@link #within(String, int, Duration)} with {@code spins} polls before it sleeps (0: sleeps at once, woken by
     * the completion; what ends of an offered load do between messages).
     */
    public WorkCompletion within(String what, int batch, Duration wait, int spins) throws PeerException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            // spins count the polls in a row that found the loop idle: while it works (a stream's data arriving, as at
            // the receiver of a bandwidth run) the thread keeps polling, which costs no sleep and wake-up per
            // arrival. The poll runs the loop again only when this cycle brought no completion: a cycle either works
            // or spins. A loop that never stops working (a peer's data, but never the completion) does not outlast
            // the wait: the clock is read every CLOCK_POLLS polls.
            for (int idle = 0, polls = 0; idle < spins; polls++) {
                int work = Loop.invokeOwned();
                if (cq.poll(completion)) {
                    return checked(what);
                }
                idle = work > 0 ? 0 : idle + 1;
                if (polls % CLOCK_POLLS == CLOCK_POLLS - 1 && System.nanoTime() - deadline >= 0) {
                    overran(what);
                    return null;
                }
            }
            if (sleep(what, batch, deadline, spins > 0)) {
                return checked(what);
            }
            if (System.nanoTime() - deadline >= 0) {
                overran(what);
                return null;
            }
        }
    }

    /**
     * Sleeps until the next completion or {@code deadline}, or, when {@code untilWork}, until the loop this thread
     * drives did work (a stream's data woke it): the thread then polls busily again rather than sleep, and be woken
     * by the peer's next write, once per arrival (a bandwidth run's receiver did, 20,000 times a second, and each
     * wake-up cost the sender a cross-processor interrupt). Whether a completion was taken.
     */
    private boolean sleep(String what, int batch, long deadline, boolean untilWork) throws PeerException {
        while (!cq.poll(completion)) {
            cq.requestNotification(batch); // then poll once more: a completion may have come in between
            if (cq.poll(completion)) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                Duration nap = Duration.ofNanos(Math.min(left, NAP));
                if (!untilWork) {
                    cq.awaitNotification(nap);
                } else if (!cq.awaitNotificationOrWork(nap)) {
                    return cq.poll(completion); // what the work brought, else back to polling (or the nap ran out)
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PeerException("interrupted waiting for " + what);
            }
        }
        return true;
    }

    /**
     * The next successful completion, polled busily for up to 5 ms before sleeping on the notification: for
     * latency runs, which busy-poll as perftest's do, since a wake-up would be most of what is measured. A shorter
     * spin feeds on itself in a ping-pong: a side that slept answers late (its stream's thread reads, then wakes
     * it), so the other side's spin runs out too, and from then on both sides measure wake-ups.
     */
    WorkCompletion spin(String what) throws PeerException {
        return spin(what, -1);
    }

    /**
     * {@link #spin(String)} for the {@code number}-th of something (-1: none), the description built only if it is
     * needed: a latency loop allocates nothing per round trip.
     */
    public WorkCompletion spin(String what, long number) throws PeerException {
        long start = 0; // the clock is read after the first poll, the one that sends what was just posted
        for (long spun = 0; spun < SPIN; spun = System.nanoTime() - start) {
            if (cq.poll(completion)) {
                return completion.status() == WcStatus.SUCCESS ? completion : checked(describe(what, number));
            }
            if (start == 0) {
                start = System.nanoTime();
            } else {
                pause(spun);
            }
        }
        return next(describe(what, number));
    }

    /**
     * One pause of a busy wait that has spun for {@code spun} nanoseconds: a spin hint at first, a yield of the
     * processor after {@link #PURE_SPIN}. Every busy wait of a comparison, RDDP's and the baselines', pauses so.
     */
    public static void pause(long spun) {
        if (spun < PURE_SPIN) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static String describe(String what, long number) {
        return number < 0 ? what : what + " " + number;
    }

    /** {@link #next(String, int)} waking for any completion. */
    public WorkCompletion next(String what) throws PeerException {
        return next(what, 1);
    }

    /** A wait that ran out because the queue lost completions (it was made too small) says so. */
    private void overran(String what) throws PeerException {
        long lost = cq.overruns();
        if (lost > 0) {
            throw new PeerException("the completion queue lost " + lost + " completions (it was made too small for "
                    + "what was in flight), waiting for " + what);
        }
    }

    private WorkCompletion checked(String what) throws PeerException {
        if (completion.status() == WcStatus.SUCCESS) {
            return completion;
        }
        String terminate = terminated;
        if (terminate != null) {
            throw new PeerException("the connection ended waiting for " + what + ": " + terminate);
        }
        if (completion.status() == WcStatus.LOC_LEN_ERR && completion.opcode() == WcOpcode.RECV) {
            throw new PeerException("a Send of " + completion.byteLength() + " octets overflowed the receive posted "
                    + "for it, waiting for " + what);
        }
        boolean flushed = completion.status() == WcStatus.WR_FLUSH_ERR;
        String why = lost;
        if (flushed && why != null) {
            throw new PeerException("the connection was lost waiting for " + what + ": " + why + " (" + completion
                    + ")", true);
        }
        throw new PeerException((flushed ? "the connection closed" : "a work request failed") + " waiting for "
                + what + ": " + completion, flushed);
    }
}
