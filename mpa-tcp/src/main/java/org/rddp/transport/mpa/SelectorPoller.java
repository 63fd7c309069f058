package org.rddp.transport.mpa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;

/**
 * The I/O of an MPA loop: one {@link Selector} over the TCP connections of every stream on the loop. An idle loop
 * blocks in {@code select} until a socket is ready or a command wakes it. A duty cycle hands each ready socket to its
 * stream; on a loop with no more than {@value #DIRECT_LIMIT} streams it skips the selector and lets each stream try
 * its socket directly (a non-blocking read costs one system call, a {@code selectNow} and then the read two: on a
 * busily polled loop that is the cost of every message).
 */
final class SelectorPoller implements Poller {
    /** What a registered channel runs when it is (or may be) ready; on the loop thread. */
    interface Handler {
        /**
         * The channel is ready for {@code readyOps}, or may be (polled directly: both reading and writing).
         *
         * @return the work done: 0 when there was nothing to read or write
         */
        int ready(int readyOps);

        /**
         * {@link #ready} threw {@code error} (a bug, or the heap ran out under it): the handler ends what it runs, as
         * a local catastrophic error (RFC 5040 §7.1); the poller then reports it to the loop and goes on with the
         * other channels. Loop thread.
         */
        void failed(Throwable error);

        /**
         * Whether nothing is left for the loop to do until the channel is ready (nothing held to write, no wait for
         * room): a loop that tries its streams directly may then leave the handler to the selector once its channel
         * has been quiet a while. Loop thread.
         */
        default boolean restful() {
            return false;
        }
    }

    /** Streams a loop tries directly each cycle; a loop with more asks the selector which are ready. */
    static final int DIRECT_LIMIT = 4;
    /** How often a loop that tries its streams directly asks the selector about the channels it only watches. */
    static final int WATCH_INTERVAL = 64;
    /**
     * Cycles in a row a directly tried stream may find nothing before the loop leaves it to the selector (asked every
     * {@value #WATCH_INTERVAL} cycles, and whenever the loop blocks): a stream that only sends, as an RDMA Write
     * sender's, or a quiet control connection, then costs no empty read per cycle. A ping-pong's stream, idle for a
     * round trip (tens to hundreds of cycles), stays tried directly.
     */
    static final int QUIET_CYCLES = 4096;
    /** The loop's read buffer: every stream reads into it, and nothing stays in it between reads. */
    private static final int READ_CAPACITY = 1 << 19;

    private final Selector selector;
    private ByteBuffer readBuffer;
    private Handler[] handlers = new Handler[4];
    /** Empty cycles in a row of each directly tried handler. */
    private int[] quiet = new int[4];
    private int count;
    /**
     * Handlers left to the selector for being quiet ({@link #QUIET_CYCLES}); tried directly again once ready. Only a
     * loop that tries its streams directly rests one, so at most {@value #DIRECT_LIMIT}: a peer that opens more
     * connections puts the loop on the selector, where none rests.
     */
    private final java.util.ArrayList<Handler> resting = new java.util.ArrayList<>();
    /** Channels only the selector watches ({@link #watch}). */
    private int watched;
    private int cycles;
    /** A stream left: its channel's close completes only at the selector's next selection (NIO defers it). */
    private boolean cancelled;
    private int dispatched;
    private final Consumer<SelectionKey> dispatch = key -> {
        if (key.isValid()) {
            Handler handler = (Handler) key.attachment();
            int work = run(handler, key.readyOps());
            dispatched += Math.max(1, work);
            if (work > 0 && !resting.isEmpty()) {
                wake(handler);
            }
        }
    };
    private Loop loop;

    SelectorPoller() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for an MPA loop", e);
        }
    }

    @Override
    public void ownedBy(Loop owner) {
        this.loop = owner;
    }

    /** The loop that owns it: its streams' deadlines are the loop's ({@link Loop#schedule}). */
    Loop loop() {
        return loop;
    }

    /** Runs {@code handler}; what it throws ends its channel's stream alone, and the loop hears of it. */
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever one stream's step throws must not reach the others
    private int run(Handler handler, int readyOps) {
        try {
            return handler.ready(readyOps);
        } catch (Throwable error) {
            try {
                handler.failed(error);
            } catch (Throwable again) {
                error.addSuppressed(again);
            }
            if (loop != null) {
                loop.reportError(error);
            }
            return 1;
        }
    }

    /**
     * Watches {@code channel} through the selector only, never tried directly: a listening socket, which a busily
     * polled loop with few streams need not try every cycle (an {@code accept} that finds nothing is a system call
     * per cycle); such a loop asks the selector about them every {@value #WATCH_INTERVAL} cycles. Loop thread.
     */
    SelectionKey watch(SelectableChannel channel, int ops, Handler handler) throws ClosedChannelException {
        watched++;
        return channel.register(selector, ops, handler);
    }

    /** Stops watching a channel given to {@link #watch}, which is being closed. Loop thread. */
    void unwatch() {
        watched--;
        cancelled = true;
    }

    /** Watches {@code channel} (non-blocking) for {@code ops}; {@code handler} runs when it is ready. Loop thread. */
    SelectionKey register(SelectableChannel channel, int ops, Handler handler) throws ClosedChannelException {
        SelectionKey key = channel.register(selector, ops, handler);
        direct(handler);
        return key;
    }

    /**
     * Stops running {@code handler} but keeps its channel registered (its interest set is the caller's): another
     * handler is about to {@link #register} the same channel, which then takes over the registration. Loop thread.
     */
    void forget(Handler handler) {
        drop(handler);
    }

    /** Tries {@code handler} directly every cycle (while the loop has few streams). */
    private void direct(Handler handler) {
        if (count == handlers.length) {
            handlers = Arrays.copyOf(handlers, count * 2);
            quiet = Arrays.copyOf(quiet, count * 2);
        }
        quiet[count] = 0;
        handlers[count++] = handler;
    }

    /** Stops running {@code handler}, tried directly or resting. */
    private void drop(Handler handler) {
        for (int i = 0; i < count; i++) {
            if (handlers[i] == handler) {
                handlers[i] = handlers[--count];
                quiet[i] = quiet[count];
                handlers[count] = null;
                return;
            }
        }
        resting.remove(handler);
    }

    /**
     * Whether the loop runs {@code handler} in every cycle from now on, whatever its channel is ready for: it does
     * while it tries its streams directly, and a resting one is then tried directly again (it rests again once
     * quiet). Loop thread.
     */
    boolean runEachCycle(Handler handler) {
        if (count + resting.size() > DIRECT_LIMIT) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            if (handlers[i] == handler) {
                return true;
            }
        }
        return wake(handler);
    }

    /** A resting handler whose channel turned out ready is tried directly again; whether it was resting. */
    private boolean wake(Handler handler) {
        if (resting.remove(handler)) {
            direct(handler);
            return true;
        }
        return false;
    }

    /** Leaves the {@code i}-th directly tried handler to the selector. */
    private void rest(int i) {
        Handler handler = handlers[i];
        handlers[i] = handlers[--count];
        quiet[i] = quiet[count];
        handlers[count] = null;
        resting.add(handler);
    }

    /**
     * Stops running {@code handler}, whose channel is being closed: the next cycle lets the selector select, which
     * completes the close (NIO keeps a registered channel's socket open until then: no FIN, no reset). Loop thread.
     */
    void deregister(Handler handler) {
        cancelled = true;
        drop(handler);
    }

    /**
     * The buffer every stream of the loop reads into (one at a time: the loop has one thread), made on first use.
     * A stream hands all it read to its deframer before the next one reads.
     */
    ByteBuffer readBuffer() {
        if (readBuffer == null) {
            readBuffer = ByteBuffer.allocateDirect(READ_CAPACITY);
        }
        return readBuffer;
    }

    /** Handlers resting now ({@link #QUIET_CYCLES}). Loop thread. */
    int resting() {
        return resting.size();
    }

    /** Channels registered now, watched ones included. Loop thread. */
    int registered() {
        return count + resting.size() + watched;
    }

    @Override
    public int poll() {
        int work = 0;
        boolean direct = count + resting.size() <= DIRECT_LIMIT;
        if (cancelled && direct) {
            cancelled = false;
            work++;
            try {
                selector.selectNow(); // closes what streams closed; what it finds ready is run just below
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Set<SelectionKey> selected = selector.selectedKeys(); // what an await() or the line above selected
        if (!selected.isEmpty()) {
            dispatched = 0;
            for (Iterator<SelectionKey> ready = selected.iterator(); ready.hasNext();) {
                SelectionKey key = ready.next();
                ready.remove();
                dispatch.accept(key);
            }
            work += dispatched;
        }
        if (direct) {
            for (int i = 0; i < count; i++) {
                Handler handler = handlers[i];
                int done = run(handler, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                work += done;
                if (done > 0) {
                    quiet[i] = 0;
                } else if (++quiet[i] >= QUIET_CYCLES && handlers[i] == handler && handler.restful()) {
                    rest(i--); // the last one took its place: try that one in this cycle too
                }
            }
            if (watched + resting.size() > 0 && ++cycles % WATCH_INTERVAL == 0) {
                dispatched = 0;
                try {
                    selector.selectNow(dispatch); // a listener's connections; streams found ready run again: harmless
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                work += dispatched;
            }
            return work;
        }
        dispatched = 0;
        cancelled = false;
        try {
            selector.selectNow(dispatch);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return work + dispatched;
    }

    @Override
    public void await(long timeoutNanos) {
        try {
            if (timeoutNanos < 0) {
                selector.select();
            } else if (timeoutNanos > 0) {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // the loop ends anyway
        }
    }
}
