package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.wire.MalformedFrameException;

/**
 * An association whose peer is a script: it reads the messages a test puts in ({@link #arrive}), keeps and checks
 * everything sent (unordered DDP chunks on an existing stream, session control that decodes, a session opened at
 * DDP-SSN 0), and can be made full, slow to acknowledge, or broken. Driven on one thread: the test's, which also
 * drives the association's manual loop.
 */
final class ScriptedSctpSocket implements SctpSocket {
    /** One chunk the association sent. */
    record Sent(int streamId, int ppid, byte[] octets) {
        /** The session control it carries; fails the test if it does not decode. */
        SessionControl control() {
            try {
                return SessionControlChunk.decode(MemorySegment.ofArray(octets), 0, octets.length).message();
            } catch (MalformedFrameException e) {
                throw new AssertionError("sent session control that does not decode", e);
            }
        }

        int ddpSsn() {
            return ((octets[0] & 0xFF) << 8) | (octets[1] & 0xFF);
        }
    }

    private final int streams;
    private final int maxMessage;
    private final ArrayDeque<Object[]> inbound = new ArrayDeque<>();
    private final List<Sent> sent = new ArrayList<>();
    private Runnable hook = () -> { };
    /** Sends find no room. */
    boolean full;
    /** Chunks the socket takes before it is full (each send takes one). */
    int room = Integer.MAX_VALUE;
    /** Whether everything sent so far has been acknowledged by the peer's SCTP. */
    boolean acknowledged = true;
    /** Thrown by the next receive, once. */
    Throwable receiveFailure;
    boolean aborted;

    ScriptedSctpSocket(int streams, int maxMessage) {
        this.streams = streams;
        this.maxMessage = maxMessage;
    }

    void arrive(int kind, int value) {
        inbound.add(new Object[] {kind, value});
        hook.run();
    }

    void arrive(int stream, int ppid, boolean unordered, boolean complete, byte[] octets) {
        inbound.add(new Object[] {SctpSocket.ReceivedMessage.DATA, stream, ppid, unordered, complete, octets});
        hook.run();
    }

    /** A session control chunk from the peer: {@code ssn} then {@code control}, unordered, whole. */
    void arrive(int stream, int ssn, SessionControl control) {
        arrive(stream, DdpSctp.PPID_SESSION_CONTROL, true, true, new SessionControlChunk(ssn, control).toByteArray());
    }

    /** A DDP segment chunk from the peer: {@code ssn} then {@code segment}, unordered, whole. */
    void arriveSegment(int stream, int ssn, byte[] segment) {
        byte[] chunk = new byte[DdpSctp.DDP_SSN_LENGTH + segment.length];
        chunk[0] = (byte) (ssn >>> 8);
        chunk[1] = (byte) ssn;
        System.arraycopy(segment, 0, chunk, DdpSctp.DDP_SSN_LENGTH, segment.length);
        arrive(stream, DdpSctp.PPID_DDP_SEGMENT, true, true, chunk);
    }

    void writableNow() {
        hook.run();
    }

    /** What the association sent, oldest first; taken, so the next call returns only what came after. */
    List<Sent> takeSent() {
        List<Sent> taken = new ArrayList<>(sent);
        sent.clear();
        return taken;
    }

    @Override
    public void onReady(Runnable newHook) {
        hook = newHook;
    }

    @Override
    public int send(MemorySegment data, long offset, int length, int streamId, int ppid, boolean unordered) {
        if (full || room == 0) {
            return WOULD_BLOCK;
        }
        if (room != Integer.MAX_VALUE) {
            room--;
        }
        assertThat(unordered).as("the U bit (RFC 5043 §10)").isTrue();
        assertThat(streamId).isBetween(0, streams - 1);
        assertThat(length).isBetween(DdpSctp.DDP_SSN_LENGTH, maxMessage);
        assertThat(ppid).isIn(DdpSctp.PPID_DDP_SEGMENT, DdpSctp.PPID_SESSION_CONTROL);
        Sent chunk = new Sent(streamId, ppid, data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
        if (ppid == DdpSctp.PPID_SESSION_CONTROL && !(chunk.control() instanceof SessionControl.Terminate)) {
            assertThat(chunk.ddpSsn()).as("%s opens a session at DDP-SSN 0", chunk.control()).isZero();
        }
        sent.add(chunk);
        return length;
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedMessage into) {
        Throwable failure = receiveFailure;
        if (failure != null) {
            receiveFailure = null;
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        }
        Object[] next = inbound.poll();
        if (next == null) {
            return WOULD_BLOCK;
        }
        into.kind = (Integer) next[0];
        if (into.kind != ReceivedMessage.DATA) {
            into.value = (Integer) next[1];
            return 0;
        }
        into.streamId = (Integer) next[1];
        into.ppid = (Integer) next[2];
        into.unordered = (Boolean) next[3];
        into.complete = (Boolean) next[4];
        byte[] octets = (byte[]) next[5];
        MemorySegment.copy(octets, 0, buffer, ValueLayout.JAVA_BYTE, 0, octets.length);
        return octets.length;
    }

    @Override
    public boolean allSentAcknowledged() {
        return acknowledged;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return new InetSocketAddress("192.0.2.1", 5043);
    }

    @Override
    public boolean writable() {
        return !full && room > 0;
    }

    @Override
    public int streams() {
        return streams;
    }

    @Override
    public int maxMessage() {
        return maxMessage;
    }

    @Override
    public void close() {
        // nothing to free
    }

    @Override
    public void abort() {
        aborted = true;
    }
}
