package org.rddp.transport.sctp.raw;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;
import org.rddp.transport.sctp.SctpLimits;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * A hand-driven SCTP peer, for session-control tests and the session-control interop checks: it sends whatever
 * chunks it is given, legal or not, and reports what arrives with the stream, PPID and U bit SCTP saw.
 */
public final class RawSctpPeer implements AutoCloseable {
    /** How long {@link #next()} waits. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int BUFFER = 70000;

    /** One received chunk. */
    public record Chunk(int streamId, int ppid, boolean unordered, byte[] octets) {
        /** The DDP-SSN the chunk starts with. */
        public int ddpSsn() {
            return Wire.u16(MemorySegment.ofArray(octets), 0);
        }

        /** Whether this is a session control chunk (PPID 17). */
        public boolean isControl() {
            return ppid == DdpSctp.PPID_SESSION_CONTROL;
        }

        /**
         * The session control message.
         *
         * @throws MalformedFrameException if the chunk is not a well-formed session control chunk
         */
        public SessionControl control() throws MalformedFrameException {
            if (!isControl()) {
                throw new MalformedFrameException(org.rddp.wire.DecodeStatus.SCTP_UNKNOWN_PPID,
                        "PPID " + ppid + ", not a session control chunk (PPID 17)");
            }
            return SessionControlChunk.decode(MemorySegment.ofArray(octets), 0, octets.length).message();
        }
    }

    private final SctpSocket socket;
    private final Semaphore ready = new Semaphore(0);
    private final MemorySegment out = Arena.ofAuto().allocate(BUFFER);
    private final MemorySegment in = Arena.ofAuto().allocate(BUFFER);
    private final SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
    private volatile Integer peerAdaptation;
    private boolean down;

    private RawSctpPeer(SctpSocket socket) {
        this.socket = socket;
        socket.onReady(ready::release);
    }

    /** Connects over usrsctp (UDP encapsulation) from loopback to {@code remote} with {@code adaptation}. */
    public static RawSctpPeer connect(InetSocketAddress remote, int adaptation) throws IOException {
        return connect(org.rddp.transport.sctp.usrsctp.UsrsctpStack.udp(),
                new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), remote, adaptation);
    }

    /** Connects through {@code stack} from {@code local} to {@code remote} with {@code adaptation} in the INIT. */
    public static RawSctpPeer connect(SctpStack stack, InetSocketAddress local, InetSocketAddress remote,
            int adaptation) throws IOException {
        return connect(stack, local, remote, SctpLimits.STREAMS, adaptation);
    }

    /** As above, asking for {@code streams} streams each way. */
    public static RawSctpPeer connect(SctpStack stack, InetSocketAddress local, InetSocketAddress remote,
            int streams, int adaptation) throws IOException {
        return new RawSctpPeer(stack.connect(local, remote, streams, adaptation));
    }

    /** The streams its association has each way, as the handshake settled them. */
    public int streams() {
        return socket.streams();
    }

    /** Listens at {@code local} over usrsctp (UDP encapsulation); the future gets the first association. */
    public static CompletableFuture<RawSctpPeer> listen(InetSocketAddress local, int adaptation) throws IOException {
        SctpStack.Listening listening = org.rddp.transport.sctp.usrsctp.UsrsctpStack.udp().listen(local,
                SctpLimits.STREAMS, adaptation);
        CompletableFuture<RawSctpPeer> accepted = new CompletableFuture<>();
        listening.start(socket -> accepted.complete(new RawSctpPeer(socket)));
        accepted.whenComplete((peer, failure) -> listening.close());
        return accepted;
    }

    /** Listens at {@code local} through {@code stack}; every association becomes a raw peer for {@code each}. */
    public static SctpStack.Listening serve(SctpStack stack, InetSocketAddress local, int adaptation,
            java.util.function.Consumer<RawSctpPeer> each) throws IOException {
        return serve(stack, local, SctpLimits.STREAMS, adaptation, each);
    }

    /** As above, granting at most {@code streams} streams each way to every association. */
    public static SctpStack.Listening serve(SctpStack stack, InetSocketAddress local, int streams, int adaptation,
            java.util.function.Consumer<RawSctpPeer> each) throws IOException {
        SctpStack.Listening listening = stack.listen(local, streams, adaptation);
        listening.start(socket -> each.accept(new RawSctpPeer(socket)));
        return listening;
    }

    /** A session control chunk: {@code ssn} then {@code control}. */
    public void control(int streamId, int ssn, SessionControl control) throws IOException {
        send(streamId, DdpSctp.PPID_SESSION_CONTROL, true, new SessionControlChunk(ssn, control).toByteArray());
    }

    /** A DDP segment chunk: DDP-SSN then {@code segment}. */
    public void segment(int streamId, int ssn, byte[] segment) throws IOException {
        byte[] chunk = new byte[2 + segment.length];
        Wire.putU16(MemorySegment.ofArray(chunk), 0, ssn);
        System.arraycopy(segment, 0, chunk, 2, segment.length);
        send(streamId, DdpSctp.PPID_DDP_SEGMENT, true, chunk);
    }

    /** Sends {@code octets} as one message with the given stream, PPID and U bit. */
    public void send(int streamId, int ppid, boolean unordered, byte[] octets) throws IOException {
        MemorySegment.copy(MemorySegment.ofArray(octets), 0, out, 0, octets.length);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (socket.send(out, 0, octets.length, streamId, ppid, unordered) == SctpSocket.WOULD_BLOCK) {
            if (System.nanoTime() > deadline) {
                throw new IOException("could not send for " + TIMEOUT.toSeconds() + " s");
            }
            try {
                ready.tryAcquire(10, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while sending");
            }
        }
    }

    /** The next data chunk within {@link #TIMEOUT}; fails with {@link AssertionError} when none comes. */
    public Chunk next() throws IOException, InterruptedException {
        Chunk chunk = next(TIMEOUT);
        if (chunk == null) {
            throw new AssertionError("no chunk within " + TIMEOUT.toSeconds() + " s");
        }
        return chunk;
    }

    /**
     * The next data chunk, or {@code null} if none arrives within {@code wait}; notifications are skipped (the
     * peer's Adaptation Layer Indication is kept for {@link #peerAdaptation}).
     *
     * @throws IOException if the association goes down
     */
    public Chunk next(Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            int length = socket.receive(in, message);
            if (length == SctpSocket.WOULD_BLOCK) {
                ready.tryAcquire(20, TimeUnit.MILLISECONDS);
                continue;
            }
            switch (message.kind) {
                case SctpSocket.ReceivedMessage.ASSOCIATION_DOWN, SctpSocket.ReceivedMessage.SHUTDOWN -> {
                    down = true;
                    throw new IOException(message.kind == SctpSocket.ReceivedMessage.SHUTDOWN
                            ? "the peer shut the association down" : "association down");
                }
                case SctpSocket.ReceivedMessage.ADAPTATION -> peerAdaptation = message.value;
                case SctpSocket.ReceivedMessage.DATA -> {
                    return new Chunk(message.streamId, message.ppid, message.unordered,
                            in.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
                }
                default -> {
                    // other notifications say nothing about DDP
                }
            }
        }
        return null;
    }

    /**
     * Waits up to {@code wait} until the peer's SCTP has acknowledged everything sent so far (RFC 5043 §6.6: a stream
     * is reused only once no chunk of its last session may be outstanding); whether it has.
     */
    public boolean awaitAcknowledged(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!socket.allSentAcknowledged()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            ready.tryAcquire(1, TimeUnit.MILLISECONDS); // the acknowledgement makes the socket ready, or time passes
        }
        return true;
    }

    /** The Adaptation Layer Indication the peer sent, once a receive has seen it; {@code null} before. */
    public Integer peerAdaptation() {
        return peerAdaptation;
    }

    /** Waits up to {@link #TIMEOUT} for the association to go down; data chunks meanwhile are dropped. */
    public boolean awaitDown() throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!down && System.nanoTime() < deadline) {
            try {
                next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (IOException e) {
                return true;
            }
        }
        return down;
    }

    /** The peer's address. */
    public InetSocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    @Override
    public void close() {
        socket.close();
    }

    /** Aborts the association. */
    public void abort() {
        socket.abort();
    }
}
