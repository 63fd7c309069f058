package org.rddp.engine;

import java.lang.foreign.MemorySegment;
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
            transmitter.drain();
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

    /** Work was posted: the loop will look at the send queue. Any thread; allocates nothing. */
    public void wakeup() {
        if (drainScheduled.compareAndSet(false, true)) {
            s.loop.runNowOrLater(drainTask);
        }
    }

    /** Starts a graceful disconnect: posted sends finish, then the LLP stream closes. Any thread. */
    public void disconnect() {
        s.loop.execute(() -> {
            if (s.state == QpState.RTS) {
                termination.setState(QpState.CLOSING);
                s.closeRequested = true;
                transmitter.drain();
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

    private void startOnLoop() {
        if (s.state == QpState.IDLE) {
            transmitter.begin();
            s.llp.start(this); // RTS first: no segment can reach an engine that is not ready
        }
    }

    @Override
    public boolean placeTagged(DdpSegment header, int payloadLength, PlacementTarget target) {
        return receiver.placeTagged(header, payloadLength, target);
    }

    @Override
    public void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
        receiver.onSegment(buffer, offset, length, payloadPlaced);
    }

    @Override
    public void onWritable() {
        transmitter.onWritable();
    }

    @Override
    public void onLlpError(TerminateCause cause, String detail) {
        termination.onLlpError(cause, detail);
    }

    @Override
    public void onClosed(boolean graceful, String reason) {
        termination.onClosed(graceful, reason);
    }
}
