package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rddp.transport.sctp.io.NativeSctpSocket;

/**
 * An association on usrsctp: a one-to-one socket, non-blocking once established, with an upcall that fires
 * the ready hook. The upcall runs on usrsctp's own threads: it only hands off (an exception escaping it would
 * kill the JVM, so it catches everything).
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class UsrsctpSocket extends NativeSctpSocket {
    private static final Notifications NOTIFICATIONS = new Notifications(Usrsctp.SCTP_ASSOC_CHANGE,
            Usrsctp.SCTP_SHUTDOWN_EVENT, Usrsctp.SCTP_ADAPTATION_INDICATION, Usrsctp.SCTP_COMM_LOST,
            Usrsctp.SCTP_SHUTDOWN_COMP, Usrsctp.SCTP_CANT_STR_ASSOC);
    private static final int SO_LINGER = 13;
    private static final int SHUT_WR = 1;

    private final MemorySegment socket;
    private final Runnable onFree;
    private final int id;
    private final Arena arena = Arena.ofAuto();
    /** errno of the last send; its own, so that a sender and a receiver thread never read each other's. */
    private final MemorySegment sendState = Usrsctp.captureState(arena);
    private final MemorySegment receiveState = Usrsctp.captureState(arena);
    private final MemorySegment sndinfo = arena.allocate(Usrsctp.SNDINFO_SIZE);
    private final MemorySegment rcvinfo = arena.allocate(Usrsctp.RCVINFO_SIZE);
    private final MemorySegment infolen = arena.allocate(JAVA_INT);
    private final MemorySegment infotype = arena.allocate(JAVA_INT);
    private final MemorySegment msgflags = arena.allocate(JAVA_INT);
    private final MemorySegment from = arena.allocate(Usrsctp.SOCKADDR_STORAGE_SIZE);
    private final MemorySegment fromlen = arena.allocate(JAVA_INT);
    private final MemorySegment noDelay = arena.allocate(JAVA_INT);
    private final MemorySegment status = arena.allocate(Usrsctp.STATUS_SIZE, 8);
    private final MemorySegment statusLength = arena.allocate(JAVA_INT);
    private final Links.Link link;
    /** The path MTU its association sends by (SCTP packet size). Owner thread. */
    private int sctpMtu;
    /** The link's learned IP path MTU when it was last taken ({@link Links.Link#learnedIpMtu}). Owner thread. */
    private int takenIpMtu;

    /**
     * @param sctpMtu the largest SCTP packet its association sends (the path MTU it was given)
     * @param link    the path its packets take, or null when unknown
     * @param onFree  runs once the socket is freed (a raw IP socket's loop stops taking its port)
     */
    UsrsctpSocket(MemorySegment socket, int streams, int sctpMtu, java.net.InetSocketAddress remote, Links.Link link,
            Runnable onFree) throws IOException {
        super(remote, streams, UsrsctpStack.maxMessage(sctpMtu));
        this.sctpMtu = sctpMtu;
        this.link = link;
        this.socket = socket;
        this.onFree = onFree;
        this.id = Upcalls.attach(socket, this::ready, "association's");
    }

    @Override
    public int send(MemorySegment data, long offset, int length, int streamId, int ppid, boolean unordered)
            throws IOException {
        sndinfo.set(JAVA_SHORT, 0, (short) streamId);
        sndinfo.set(JAVA_SHORT, 2, (short) (unordered ? Usrsctp.SCTP_UNORDERED : 0));
        sndinfo.set(Usrsctp.U32_BE, 4, ppid); // SCTP does not byte-swap the PPID (RFC 4960 §3.3.1)
        sndinfo.set(JAVA_INT, 8, 0);
        sndinfo.set(JAVA_INT, 12, 0);
        long sent;
        calls.enter();
        try {
            sent = (long) Usrsctp.SENDV.invokeExact(sendState, socket, data.asSlice(offset, length), (long) length,
                    MemorySegment.NULL, 0, sndinfo, (int) Usrsctp.SNDINFO_SIZE, Usrsctp.SCTP_SENDV_SNDINFO, 0);
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            calls.exit();
        }
        if (sent >= 0) {
            return (int) sent;
        }
        int errno = Usrsctp.errno(sendState);
        if (errno == Usrsctp.EAGAIN) {
            return WOULD_BLOCK;
        }
        throw new IOException("usrsctp_sendv failed, errno " + errno);
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedMessage into) throws IOException {
        fromlen.set(JAVA_INT, 0, (int) Usrsctp.SOCKADDR_STORAGE_SIZE);
        infolen.set(JAVA_INT, 0, (int) Usrsctp.RCVINFO_SIZE);
        infotype.set(JAVA_INT, 0, 0);
        msgflags.set(JAVA_INT, 0, 0);
        long received;
        calls.enter();
        try {
            received = (long) Usrsctp.RECVV.invokeExact(receiveState, socket, buffer, buffer.byteSize(), from, fromlen,
                    rcvinfo, infolen, infotype, msgflags);
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            calls.exit();
        }
        if (received < 0) {
            int errno = Usrsctp.errno(receiveState);
            if (errno == Usrsctp.EAGAIN) {
                return WOULD_BLOCK;
            }
            throw new IOException("usrsctp_recvv failed, errno " + errno);
        }
        int flags = msgflags.get(JAVA_INT, 0);
        if (received == 0 && (flags & Usrsctp.MSG_NOTIFICATION) == 0) {
            into.kind = ReceivedMessage.ASSOCIATION_DOWN; // end of stream: the association is gone
            into.value = 0;
            return 0;
        }
        into.complete = (flags & Usrsctp.MSG_EOR) != 0;
        if ((flags & Usrsctp.MSG_NOTIFICATION) != 0) {
            describeNotification(buffer, (int) received, into, NOTIFICATIONS);
            return (int) received;
        }
        into.kind = ReceivedMessage.DATA;
        if (infotype.get(JAVA_INT, 0) == Usrsctp.SCTP_RECVV_RCVINFO) {
            into.streamId = rcvinfo.get(JAVA_SHORT, Usrsctp.RCVINFO_SID) & 0xFFFF;
            into.unordered = (rcvinfo.get(JAVA_SHORT, Usrsctp.RCVINFO_FLAGS) & Usrsctp.SCTP_UNORDERED) != 0;
            into.ppid = rcvinfo.get(Usrsctp.U32_BE, Usrsctp.RCVINFO_PPID);
        } else {
            throw new IOException("usrsctp_recvv returned no sctp_rcvinfo (SCTP_RECVRCVINFO is off)");
        }
        return (int) received;
    }

    @Override
    public void bundle(boolean on) throws IOException {
        noDelay.set(JAVA_INT, 0, on ? 0 : 1);
        calls.enter();
        try {
            SocketSetup.setsockopt(socket, sendState, Usrsctp.SCTP_NODELAY, noDelay, "SCTP_NODELAY");
        } finally {
            calls.exit();
        }
    }

    @Override
    public org.rddp.transport.sctp.ProtocolParameters protocolParameters() throws IOException {
        if (!calls.tryEnter()) {
            throw new IOException("the socket is closed");
        }
        try {
            return SocketSetup.protocolParameters(socket);
        } finally {
            calls.exit();
        }
    }

    @Override
    public boolean allSentAcknowledged() {
        if (!calls.tryEnter()) {
            return true; // closed: nothing of it can be reused
        }
        try {
            statusLength.set(JAVA_INT, 0, (int) Usrsctp.STATUS_SIZE);
            int result = (int) Usrsctp.GETSOCKOPT.invokeExact(sendState, socket, Usrsctp.IPPROTO_SCTP,
                    Usrsctp.SCTP_STATUS, status, statusLength);
            return result != 0 || status.get(JAVA_SHORT, Usrsctp.STATUS_UNACKDATA) == 0;
        } catch (Throwable e) {
            return true; // the association is failing: the next call finds out
        } finally {
            calls.exit();
        }
    }

    /**
     * The one path (AF_CONN carries one address, {@code MultihomingTest}): to the peer's IP address under the
     * encapsulation, in the state and with the RTO SCTP_STATUS gives its primary.
     */
    @Override
    public java.util.List<org.rddp.llp.LlpPath> paths() {
        if (!calls.tryEnter()) {
            return java.util.List.of();
        }
        try {
            statusLength.set(JAVA_INT, 0, (int) Usrsctp.STATUS_SIZE);
            int result = (int) Usrsctp.GETSOCKOPT.invokeExact(sendState, socket, Usrsctp.IPPROTO_SCTP,
                    Usrsctp.SCTP_STATUS, status, statusLength);
            if (result != 0) {
                return java.util.List.of();
            }
            int state = status.get(JAVA_INT, Usrsctp.STATUS_PRIMARY_STATE);
            return java.util.List.of(new org.rddp.llp.LlpPath(remoteAddress(),
                    (state & Usrsctp.SCTP_ADDR_UNCONFIRMED) != 0 ? org.rddp.llp.LlpPath.State.UNCONFIRMED
                            : (state & Usrsctp.SCTP_ADDR_ACTIVE) != 0 ? org.rddp.llp.LlpPath.State.ACTIVE
                                    : org.rddp.llp.LlpPath.State.INACTIVE, true,
                    java.time.Duration.ofMillis(Integer.toUnsignedLong(status.get(JAVA_INT,
                            Usrsctp.STATUS_PRIMARY_RTO)))));
        } catch (Throwable e) {
            return java.util.List.of(); // the association is failing: it has none to tell
        } finally {
            calls.exit();
        }
    }

    @Override
    public void choosePrimaryPath(java.net.InetSocketAddress peer) throws IOException {
        throw new IOException("usrsctp here carries one path per association (AF_CONN addresses cannot be put in an "
                + "INIT): choosing among several needs kernel SCTP");
    }

    /** Whether its link learned a path MTU since this socket last took one. */
    @Override
    public boolean pathMtuLearned() {
        return link != null && link.learnedIpMtu != takenIpMtu;
    }

    /**
     * What fits in a packet now: the path MTU it was given, or the smaller one the kernel learned towards the peer
     * since (a hop's ICMP, which made it refuse a larger packet: {@link Links.Endpoint#send}), then given to usrsctp,
     * whose path MTU discovery is off over AF_CONN. Chunks made before go out fragmented by IP (RFC 9260 §7.3); new
     * messages fit.
     */
    @Override
    public int currentMaxMessage() {
        if (link != null) {
            takenIpMtu = link.learnedIpMtu;
            int learned = link.learnedSctpMtu();
            if (learned > 0 && learned < sctpMtu && calls.tryEnter()) {
                try {
                    SocketSetup.pathMtu(socket, learned);
                    sctpMtu = learned;
                } catch (IOException e) {
                    // the association is failing: nothing more goes out
                } finally {
                    calls.exit();
                }
            }
        }
        return UsrsctpStack.maxMessage(sctpMtu);
    }

    @Override
    public boolean writable() {
        if (!calls.tryEnter()) {
            return true; // closed: the next send finds out
        }
        try {
            return ((int) Usrsctp.GET_EVENTS.invokeExact(socket) & Usrsctp.SCTP_EVENT_WRITE) != 0;
        } catch (Throwable e) {
            return true; // let the next send find out
        } finally {
            calls.exit();
        }
    }

    /** usrsctp_shutdown(SHUT_WR): SHUTDOWN once what is queued is acknowledged; the socket stays to be read. */
    @Override
    public void shutdown() {
        if (!calls.tryEnter()) {
            return; // closed already
        }
        int status;
        try {
            status = UsrsctpRuntime.shutdown(socket, SHUT_WR);
        } catch (Throwable e) {
            status = -1;
        } finally {
            calls.exit();
        }
        if (status != 0) {
            close(); // it cannot shut down: close does, as far as it can
        }
    }

    @Override
    protected void free(boolean abortively) {
        try {
            if (abortively) {
                // SO_LINGER with a zero timeout makes close send ABORT
                MemorySegment linger = Arena.ofAuto().allocate(JAVA_LONG);
                linger.set(JAVA_INT, 0, 1);
                linger.set(JAVA_INT, 4, 0);
                int ignored = (int) Usrsctp.SETSOCKOPT.invokeExact(Usrsctp.captureState(Arena.ofAuto()), socket,
                        Usrsctp.SOL_SOCKET, SO_LINGER, linger, 8); // if it fails, close shuts down gracefully
            }
            UsrsctpRuntime.close(socket);
        } catch (Throwable e) {
            throw new IllegalStateException("usrsctp_close failed", e);
        } finally {
            Upcalls.release(id);
            onFree.run();
        }
    }
}
