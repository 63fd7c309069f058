package org.rddp.engine;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.TerminateCause;
import org.rddp.loop.Loop;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;

/**
 * The DDP and RDMAP protocol machine of one stream (RFC 5041, RFC 5040). It segments outgoing messages to the
 * LLP's MULPDU, places incoming tagged and untagged payload after checking every STag, queue, MSN and offset,
 * delivers messages in order, answers RDMA Read Requests within IRD and keeps its own reads within ORD, and
 * turns the first error into a Terminate with the cause, layer and copied headers RFC 5040 §7.1 prescribes,
 * after which it places nothing more and flushes all outstanding work.
 *
 * <p>Three parts share one {@link EngineState}: {@link Transmitter} (the send side), {@link Receiver} (the receive
 * side) and {@link Termination} (errors, Terminates and the end of the stream); this class is their face.
 *
 * <p>Single-threaded: it runs on the {@link Loop} its LLP stream lives on. {@link #start}, {@link #wakeup},
 * {@link #disconnect}, {@link #abort} and {@link #state} may be called on any thread: they queue a command on the
 * loop (or run it at once on a manual loop's own thread, outside a duty cycle).
 */
public final class RdmapEngine implements LlpSink {
    private final EngineState s;
    private final Transmitter transmitter;
    private final Receiver receiver;
    private final Termination termination;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask;
    private final Runnable startTask = this::startOnLoop;

    /**
     * An engine for {@code llp}, which lives on {@code loop}, reaching memory through {@code memory} and work through
     * {@code queues}. Nothing happens until {@link #start()}.
     */
    public RdmapEngine(LlpStream llp, Loop loop, StagResolver memory, WorkQueues queues) {
        s = new EngineState(llp, loop, memory, queues);
        transmitter = new Transmitter(s);
        receiver = new Receiver(s);
        termination = new Termination(s);
        transmitter.receiver = receiver;
        transmitter.termination = termination;
        transmitter.engine = this;
        receiver.transmitter = transmitter;
        receiver.termination = termination;
        receiver.engine = this;
        termination.transmitter = transmitter;
        termination.receiver = receiver;
        termination.engine = this;
        drainTask = () -> {
            drainScheduled.set(false);
            VarHandle.fullFence(); // the flag's store before the send queue's loads: see wakeup()
            drain();
        };
    }

    /** The current state; any thread. */
    public QpState state() {
        return s.state;
    }

    /**
     * Brings the stream up on its loop: the engine enters RTS, then the LLP starts delivering, so that no segment
     * can reach an engine that is not ready. Any thread.
     */
    public void start() {
        s.loop.runNowOrLater(startTask);
    }

    /**
     * Work was posted: the loop will look at the send queue. Any thread; allocates nothing. On a manual loop's own
     * thread a stream that {@linkplain LlpStream#gathers gathers} its writes is drained at the next duty cycle, so
     * the posts made until then leave together; otherwise the post is sent at once.
     */
    public void wakeup() {
        // A post stores its work, then reads the flag; a drain clears the flag, then reads the work: each side's store
        // must come before its load (a Dekker pair), so both fence. Without this fence the post's store could still be
        // on its way while the flag reads as set and the drain that clears it finds no work: the post would wait for a
        // drain that never comes. The flag is read before the atomic exchange: while a drain is due, every post would
        // pay a failing exchange on the loop's cache line, where the fence costs only this thread's store buffer.
        VarHandle.fullFence();
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
            if (s.llp.gathers()) {
                s.loop.execute(drainTask);
            } else {
                s.loop.runNowOrLater(drainTask);
            }
        }
    }

    /** Starts a graceful disconnect: posted sends finish, then the LLP stream closes. Any thread. */
    public void disconnect() {
        s.loop.execute(() -> {
            if (s.state == QpState.RTS) {
                termination.setState(QpState.CLOSING);
                s.closeRequested = true;
                drain();
            }
        });
    }

    /** Tears the stream down at once; outstanding work is flushed. Any thread. */
    public void abort(String reason) {
        s.loop.execute(() -> {
            if (s.state != QpState.ERROR) {
                termination.flushAll(null, null);
                termination.toError(QpEvent.CONNECTION_LOST, reason);
            }
            s.llp.abort(); // the stream reports its close to an engine already in ERROR: nothing more happens
        });
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // see failed()
    private void startOnLoop() {
        assert onOwner();
        if (s.state == QpState.IDLE) {
            try {
                transmitter.begin();
            } catch (Throwable e) {
                failed(e, sending());
            }
            s.llp.start(this); // RTS first: no segment can reach an engine that is not ready
        }
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // see failed()
    private void drain() {
        assert onOwner();
        try {
            transmitter.drain();
        } catch (Throwable e) {
            failed(e, sending());
        }
    }

    /**
     * Whether the caller is the loop's owner thread, the only one engine code runs on: checked with {@code assert} at
     * every entry point, so that tests (assertions on) catch a step off its loop, at no cost otherwise.
     */
    private boolean onOwner() {
        if (!s.loop.inLoop()) {
            throw new AssertionError("engine code on " + Thread.currentThread().getName() + ", not on its loop "
                    + s.loop);
        }
        return true;
    }

    /** The send of this side's being transmitted, unless Read Responses (which go first) are. */
    private SendWork sending() {
        return s.irrqCount > 0 ? null : s.current;
    }

    /**
     * The engine failed under one of its steps: memory it reached was gone (the arena behind a registered region
     * closed, or confined to another thread) or a bug. The stream ends as on a local catastrophic error (RFC 5040
     * §7.1): the work being sent ({@code culprit}, if it is to blame) completes with LOC_PROT_ERR, everything else is
     * flushed, the Terminate goes out, and the event names the exception, which also goes to the loop's error
     * handler ({@link Loop#reportError}: counted, a bug's stack trace printed). Without this the step's exception
     * would stop at the loop and the connection would stall. Anything, an {@link Error} included (the heap ran out
     * under this step): the stream ends, the loop and the other streams on it go on.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // ending the stream may itself fail: the loop still hears of it
    private void failed(Throwable e, SendWork culprit) {
        try {
            if (s.terminate == null && s.state != QpState.ERROR) {
                termination.localError(culprit, WcStatus.LOC_PROT_ERR, "a local catastrophic error: " + e);
            }
        } catch (Throwable again) {
            e.addSuppressed(again);
        }
        s.loop.reportError(e);
    }

    @Override
    public boolean placeTagged(DdpSegment header, int payloadLength, PlacementTarget target) {
        assert onOwner();
        return receiver.placeTagged(header, payloadLength, target);
    }

    @Override
    @SuppressWarnings("checkstyle:IllegalCatch") // see failed()
    public void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
        assert onOwner();
        try {
            receiver.onSegment(buffer, offset, length, payloadPlaced);
        } catch (Throwable e) {
            failed(e, null); // placing, or answering a Read: no send of this side's is to blame
        }
    }

    @Override
    @SuppressWarnings("checkstyle:IllegalCatch") // see failed()
    public void onWritable() {
        assert onOwner();
        try {
            transmitter.onWritable();
        } catch (Throwable e) {
            failed(e, sending());
        }
    }

    @Override
    public void onLlpError(TerminateCause cause, String detail) {
        assert onOwner();
        termination.onLlpError(cause, detail);
    }

    @Override
    public void onClosed(boolean graceful, String reason) {
        assert onOwner();
        termination.onClosed(graceful, reason);
    }

    @Override
    public void onPathChanged(String detail) {
        assert onOwner();
        s.queues.event(QpEvent.PATH_MIGRATED, null, detail);
    }
}
