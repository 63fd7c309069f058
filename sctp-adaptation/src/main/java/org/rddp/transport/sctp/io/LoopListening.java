package org.rddp.transport.sctp.io;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.rddp.loop.Loop;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * For {@link SctpStack} implementations: a non-blocking listening socket whose readiness signal schedules accepts
 * on the listener's loop, where closing happens too. Nothing blocks in accept, so a close never races a blocked
 * call (a thread blocked in accept while another closes the socket can wake up on a new socket that reuses the
 * freed one).
 */
public abstract class LoopListening implements SctpStack.Listening {
    private static final int MAX_FAILURES_IN_A_ROW = 16;
    private final InetSocketAddress address;
    private final Loop loop;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile Consumer<SctpSocket> onAssociation;
    private boolean closed;

    protected LoopListening(InetSocketAddress address, Loop loop) {
        this.address = address;
        this.loop = loop;
    }

    /** For the stack's readiness signal, on any thread: schedules accepting. */
    protected final void ready() {
        if (scheduled.compareAndSet(false, true)) {
            loop.execute(this::acceptAll);
        }
    }

    @Override
    public final InetSocketAddress address() {
        return address;
    }

    @Override
    public final Loop loop() {
        return loop;
    }

    @Override
    public final void start(Consumer<SctpSocket> handler) {
        onAssociation = handler;
        loop.execute(this::acceptAll);
    }

    private void acceptAll() {
        scheduled.set(false);
        Consumer<SctpSocket> handler = onAssociation;
        int failures = 0;
        while (!closed && handler != null) {
            SctpSocket accepted;
            try {
                accepted = acceptOne();
            } catch (IOException e) {
                if (++failures == MAX_FAILURES_IN_A_ROW) {
                    return; // the listener itself is failing: wait for the next signal rather than spin
                }
                continue; // that association is lost (the peer's INIT times out); the next may be fine
            }
            failures = 0;
            if (accepted == null) {
                return; // nothing pending: the next readiness signal brings the next association
            }
            handler.accept(accepted);
        }
    }

    /** The next pending association, or null if there is none now. On the listener's loop. */
    protected abstract SctpSocket acceptOne() throws IOException;

    /** Closes the native listening socket and stops its readiness signal. On the listener's loop, once. */
    protected abstract void closeNative();

    @Override
    public final void close() {
        loop.execute(() -> {
            if (!closed) {
                closed = true;
                closeNative();
            }
        });
    }
}
