package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * A hand-driven SCTP peer for session-control tests: it sends whatever chunks a test builds, legal or not,
 * and reports what arrives with the stream, PPID and U bit SCTP saw.
 */
final class RawPeer implements AutoCloseable {
    /** One received chunk. */
    record Chunk(int streamId, int ppid, boolean unordered, byte[] octets) {
        int ddpSsn() {
            return Wire.u16(MemorySegment.ofArray(octets), 0);
        }

        SessionControl control() throws MalformedFrameException {
            assertThat(ppid).as("PPID of a session control chunk").isEqualTo(DdpSctp.PPID_SESSION_CONTROL);
            return SessionControlChunk.decode(MemorySegment.ofArray(octets), 0, octets.length).message();
        }
    }

    private final SctpSocket socket;
    private final Semaphore ready = new Semaphore(0);
    private final MemorySegment out = Arena.ofAuto().allocate(70000);
    private final MemorySegment in = Arena.ofAuto().allocate(70000);
    private final SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
    private boolean down;

    private RawPeer(SctpSocket socket) {
        this.socket = socket;
        socket.onReady(ready::release);
    }

    /** Connects to {@code remote} with {@code adaptation} in the INIT. */
    static RawPeer connect(InetSocketAddress remote, int adaptation) throws IOException {
        return new RawPeer(UsrsctpStack.udp().connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                remote, SctpConnectionManager.STREAMS, adaptation));
    }

    /** Listens at {@code local}; the future gets the first association. */
    static CompletableFuture<RawPeer> listen(InetSocketAddress local, int adaptation) throws IOException {
        SctpStack.Listening listening = UsrsctpStack.udp().listen(local, SctpConnectionManager.STREAMS, adaptation);
        CompletableFuture<RawPeer> accepted = new CompletableFuture<>();
        listening.start(socket -> accepted.complete(new RawPeer(socket)));
        accepted.whenComplete((peer, failure) -> listening.close());
        return accepted;
    }

    void control(int streamId, int ssn, SessionControl control) throws IOException {
        send(streamId, DdpSctp.PPID_SESSION_CONTROL, true, new SessionControlChunk(ssn, control).toByteArray());
    }

    /** A DDP segment chunk: DDP-SSN then {@code segment}. */
    void segment(int streamId, int ssn, byte[] segment) throws IOException {
        byte[] chunk = new byte[2 + segment.length];
        Wire.putU16(MemorySegment.ofArray(chunk), 0, ssn);
        System.arraycopy(segment, 0, chunk, 2, segment.length);
        send(streamId, DdpSctp.PPID_DDP_SEGMENT, true, chunk);
    }

    void send(int streamId, int ppid, boolean unordered, byte[] octets) throws IOException {
        MemorySegment.copy(MemorySegment.ofArray(octets), 0, out, 0, octets.length);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (socket.send(out, 0, octets.length, streamId, ppid, unordered) == SctpSocket.WOULD_BLOCK) {
            if (System.nanoTime() > deadline) {
                throw new IOException("could not send for 10 s");
            }
            Thread.onSpinWait();
        }
    }

    /** The next data chunk, waiting up to 10 s; notifications are skipped. */
    Chunk next() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            int length = socket.receive(in, message);
            if (length == SctpSocket.WOULD_BLOCK) {
                ready.tryAcquire(100, TimeUnit.MILLISECONDS);
                continue;
            }
            if (message.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN) {
                down = true;
                throw new IOException("association down");
            }
            if (message.kind == SctpSocket.ReceivedMessage.DATA) {
                return new Chunk(message.streamId, message.ppid, message.unordered,
                        in.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        throw new AssertionError("no chunk within 10 s");
    }

    /** Waits until the association goes down. */
    boolean awaitDown() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!down && System.nanoTime() < deadline) {
            try {
                next();
            } catch (IOException e) {
                return true;
            } catch (AssertionError e) {
                return false;
            }
        }
        return down;
    }

    @Override
    public void close() {
        socket.close();
    }
}
