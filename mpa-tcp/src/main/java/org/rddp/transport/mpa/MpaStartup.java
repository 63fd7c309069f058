package org.rddp.transport.mpa;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.function.Consumer;
import org.rddp.loop.Deadline;
import org.rddp.loop.Loop;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;

/**
 * One TCP connection in MPA's startup phase (RFC 5044 §7.1, RFC 6581 §9–§10) on a loop: connects (initiator), writes
 * this side's startup frame and reads exactly the peer's, within a deadline, never blocking the loop. When the frame
 * is in, the step given for it decides what follows: a Reply, a Terminate, or the hand-over of the connection to an
 * {@link MpaStream} on the same loop and selector. Loop thread only.
 */
final class MpaStartup implements SelectorPoller.Handler {
    /** What to do with the peer's frame; a failure it throws ends the startup. */
    @FunctionalInterface
    interface FrameStep {
        void received(MpaStartupFrame frame) throws IOException, MalformedFrameException;
    }

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SocketChannel channel;
    private final Loop loop;
    private final SelectorPoller poller;
    private final java.util.Set<MpaStartup> inProgress;
    private SelectionKey key;
    private boolean connecting;
    private boolean done;
    private boolean reported;
    private ByteBuffer out = NOTHING;
    private Runnable afterWrite;
    private MpaStartupFrame.Kind awaiting;
    private ByteBuffer in;
    private boolean headerIn;
    private FrameStep onFrame;
    private Deadline deadline;
    private Consumer<Exception> onFailure;
    private Runnable onEnd;

    /**
     * A startup on {@code channel}, non-blocking, connected or with its connect under way ({@code connecting}); a
     * failure closes the channel, then goes to {@code onFailure}. It is in {@code inProgress} until it hands the
     * connection over or closes it.
     */
    MpaStartup(SocketChannel channel, Loop loop, boolean connecting, java.util.Set<MpaStartup> inProgress,
            Consumer<Exception> onFailure) throws IOException {
        this.channel = channel;
        this.loop = loop;
        this.poller = (SelectorPoller) loop.poller();
        this.connecting = connecting;
        this.inProgress = inProgress;
        this.onFailure = onFailure;
        key = poller.register(channel, interest(), this);
        inProgress.add(this);
    }

    SocketChannel channel() {
        return channel;
    }

    /** The loop it runs on (and the stream after it). */
    Loop loop() {
        return loop;
    }

    /** From now on a failure goes to {@code handler} (the phase changed: the ULP answered, say). */
    void onFailure(Consumer<Exception> handler) {
        onFailure = handler;
    }

    /** Runs {@code action} once, when the startup ends: handed over, or closed. */
    void onEnd(Runnable action) {
        onEnd = action;
    }

    private void ended() {
        inProgress.remove(this);
        Runnable action = onEnd;
        onEnd = null;
        if (action != null) {
            action.run();
        }
    }

    /**
     * Reads the peer's {@code kind} of frame by {@code within} from now, then runs {@code step}; the end of the stream
     * before its first octet fails with an {@link EOFException}, within it as a truncated frame.
     */
    void expect(MpaStartupFrame.Kind kind, Duration within, FrameStep step) {
        awaiting = kind;
        onFrame = step;
        in = ByteBuffer.allocate(MpaStartupFrame.HEADER_LENGTH);
        headerIn = false;
        deadline = poller.loop().schedule(System.nanoTime() + within.toNanos(), () -> fail(
                new SocketTimeoutException("no MPA " + name(kind) + " within " + within.toMillis()
                        + " ms (RFC 5044 §7.1.2 rule 10)")));
        interestChanged();
        ready(SelectionKey.OP_READ); // it may be there already
    }

    /** Writes {@code octets} (after what is still to go), then runs {@code then} (may be null). */
    void send(byte[] octets, Runnable then) {
        if (out.hasRemaining()) {
            ByteBuffer both = ByteBuffer.allocate(out.remaining() + octets.length);
            out = both.put(out).put(octets).flip();
        } else {
            out = ByteBuffer.wrap(octets);
        }
        afterWrite = then;
        interestChanged();
        ready(SelectionKey.OP_WRITE);
    }

    /**
     * Gives the connection up to what comes next on this loop's selector (an {@link MpaStream} registers the same
     * channel and takes the registration over): nothing more is read or written here.
     */
    void handOver() {
        ended();
        done = true;
        Deadline.cancelIfSet(deadline);
        poller.forget(this);
        key.interestOps(0);
    }

    /**
     * Ends the startup and closes the connection, with a reset when {@code reset}; also after {@link #handOver} when
     * nothing took the connection over. Loop thread.
     */
    void close(boolean reset) {
        ended();
        done = true;
        Deadline.cancelIfSet(deadline);
        poller.deregister(this);
        try {
            if (reset && channel.isOpen()) {
                channel.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Reports {@code why}, once, then closes the connection: whoever sees it close can read why. */
    void fail(Exception why) {
        if (!reported) {
            reported = true;
            onFailure.accept(why);
        }
        if (channel.isOpen()) {
            close(false);
        }
    }

    /** As {@link #fail}, but with a reset: the slot is wanted at once for another connection. Its loop. */
    void evict(Exception why) {
        if (done) {
            return; // its Request came, or it ended, meanwhile
        }
        if (!reported) {
            reported = true;
            onFailure.accept(why);
        }
        close(true);
    }

    @Override
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever a step throws ends this startup only, and is reported
    public int ready(int readyOps) {
        if (done) {
            return 0;
        }
        try {
            if (connecting) {
                if (!channel.finishConnect()) {
                    return 0;
                }
                connecting = false;
                interestChanged();
            }
            int work = 0;
            if (out.hasRemaining()) {
                work += channel.write(out);
                if (!out.hasRemaining()) {
                    interestChanged();
                    Runnable then = afterWrite;
                    afterWrite = null;
                    if (then != null) {
                        then.run();
                        work++;
                    }
                }
            }
            if (awaiting != null && !done) {
                work += read();
            }
            return work;
        } catch (IOException | MalformedFrameException | RuntimeException e) {
            fail(e);
            return 1;
        }
    }

    /** {@link #ready} threw something it does not catch (an {@link Error}): this startup ends, the others go on. */
    @Override
    public void failed(Throwable error) {
        fail(new IOException("a local catastrophic error in the startup phase: " + error, error));
    }

    /** Reads what there is of the awaited frame, exactly: nothing of Full Operation that may follow it. */
    private int read() throws IOException, MalformedFrameException {
        int n = channel.read(in);
        if (n < 0) {
            if (!headerIn && in.position() == 0) {
                throw new EOFException("the peer closed the connection without an MPA " + name(awaiting));
            }
            throw new MalformedFrameException(DecodeStatus.MPA_FRAME_TRUNCATED, "truncated: the connection closed "
                    + "after " + in.position() + " of " + in.capacity() + " octets of the "
                    + (headerIn ? "frame" : "header"));
        }
        if (!in.hasRemaining() && !headerIn) {
            headerIn = true;
            int length = MpaStartupFrame.frameLength(in.duplicate().flip(), awaiting);
            ByteBuffer whole = ByteBuffer.allocate(length);
            in = whole.put(in.flip());
            if (in.hasRemaining()) {
                return Math.max(n, 0) + read();
            }
        }
        if (headerIn && !in.hasRemaining()) {
            MpaStartupFrame frame = MpaStartupFrame.decode(in.flip(), awaiting);
            awaiting = null;
            Deadline.cancelIfSet(deadline);
            deadline = null;
            interestChanged();
            onFrame.received(frame);
            return 1;
        }
        return n;
    }

    private int interest() {
        if (connecting) {
            return SelectionKey.OP_CONNECT;
        }
        return (out.hasRemaining() ? SelectionKey.OP_WRITE : 0) | (awaiting != null ? SelectionKey.OP_READ : 0);
    }

    private void interestChanged() {
        if (key != null && key.isValid() && !done) {
            key.interestOps(interest());
        }
    }

    private static String name(MpaStartupFrame.Kind kind) {
        return kind == MpaStartupFrame.Kind.REQUEST ? "Request" : "Reply";
    }
}
