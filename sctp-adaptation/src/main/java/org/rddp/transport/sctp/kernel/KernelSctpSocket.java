package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.rddp.llp.LlpPath;
import org.rddp.posix.Posix;
import org.rddp.transport.sctp.io.EpollPoller;
import org.rddp.transport.sctp.io.NativeSctpSocket;

/**
 * An association on the kernel's SCTP: a non-blocking one-to-one socket, with messages through lksctp-tools'
 * {@code sctp_sendv}/{@code sctp_recvv} and readiness from the epoll of the loop it lives on (edge-triggered: the
 * hook hands off, and the loop reads until the socket would block).
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class KernelSctpSocket extends NativeSctpSocket {
    private static final Notifications NOTIFICATIONS = new Notifications(Native.SCTP_ASSOC_CHANGE,
            Native.SCTP_SHUTDOWN_EVENT, Native.SCTP_ADAPTATION_INDICATION, Native.SCTP_COMM_LOST,
            Native.SCTP_SHUTDOWN_COMP, Native.SCTP_CANT_STR_ASSOC);
    private final int fd;
    private final EpollPoller poller;
    private final int id;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment sendState = Posix.captureState(arena);
    private final MemorySegment receiveState = Posix.captureState(arena);
    private final MemorySegment sendIovec = arena.allocate(Native.IOVEC_SIZE, 8);
    private final MemorySegment receiveIovec = arena.allocate(Native.IOVEC_SIZE, 8);
    private final MemorySegment sndinfo = arena.allocate(Native.SNDINFO_SIZE, 4);
    private final MemorySegment rcvinfo = arena.allocate(Native.RCVINFO_SIZE, 4);
    private final MemorySegment infolen = arena.allocate(JAVA_INT);
    private final MemorySegment infotype = arena.allocate(JAVA_INT);
    private final MemorySegment msgflags = arena.allocate(JAVA_INT);
    private final MemorySegment from = arena.allocate(128, 8);
    private final MemorySegment fromlen = arena.allocate(JAVA_INT);
    private final MemorySegment pollfd = arena.allocate(8, 4);
    private final MemorySegment noDelay = arena.allocate(JAVA_INT);
    private final MemorySegment status = arena.allocate(Native.STATUS_SIZE, 4);
    private final MemorySegment statusLength = arena.allocate(JAVA_INT);
    private final MemorySegment assocStats = arena.allocate(Native.ASSOC_STATS_SIZE, 8);

    /** Wraps an established association on {@code fd}, whose {@link #status} is {@code status}. */
    private KernelSctpSocket(int fd, InetSocketAddress remote, int[] status, EpollPoller poller) throws IOException {
        super(remote, status[0], status[1]);
        this.fd = fd;
        this.poller = poller;
        this.id = poller.register(fd, Posix.EPOLLIN | Posix.EPOLLOUT | Posix.EPOLLRDHUP | Posix.EPOLLET,
                events -> ready());
    }

    /** Wraps an established association on {@code fd}, watched by {@code poller}. */
    static KernelSctpSocket of(int fd, InetSocketAddress remote, EpollPoller poller) throws IOException {
        return new KernelSctpSocket(fd, remote, status(fd), poller);
    }

    /** The association's streams each way and its fragmentation point (SCTP_STATUS). */
    private static int[] status(int fd) throws IOException {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(local);
            MemorySegment status = local.allocate(Native.STATUS_SIZE, 4);
            MemorySegment length = Posix.intValue(local, Native.STATUS_SIZE);
            int result = (int) Posix.GETSOCKOPT.invokeExact(state, fd, Posix.IPPROTO_SCTP, Native.SCTP_STATUS,
                    status, length);
            if (result != 0) {
                throw new IOException("SCTP_STATUS failed: " + Posix.describeErrno(state));
            }
            int streams = Math.min(status.get(JAVA_SHORT, Native.STATUS_INSTRMS) & 0xFFFF,
                    status.get(JAVA_SHORT, Native.STATUS_OUTSTRMS) & 0xFFFF);
            return new int[] {streams, status.get(JAVA_INT, Native.STATUS_FRAGMENTATION_POINT)};
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    @Override
    public int send(MemorySegment data, long offset, int length, int streamId, int ppid, boolean unordered)
            throws IOException {
        sendIovec.set(ADDRESS, 0, data.asSlice(offset, length));
        sendIovec.set(JAVA_LONG, 8, length);
        sndinfo.set(JAVA_SHORT, 0, (short) streamId);
        sndinfo.set(JAVA_SHORT, 2, (short) (unordered ? Native.SCTP_UNORDERED : 0));
        sndinfo.set(Posix.U32_BE, 4, ppid); // the kernel does not byte-swap the PPID (RFC 4960 §3.3.1)
        sndinfo.set(JAVA_INT, 8, 0);
        sndinfo.set(JAVA_INT, 12, 0);
        int sent;
        calls.enter();
        try {
            sent = (int) Native.SENDV.invokeExact(sendState, fd, sendIovec, 1, MemorySegment.NULL, 0, sndinfo,
                    (int) Native.SNDINFO_SIZE, Native.SCTP_SENDV_SNDINFO, 0);
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            calls.exit();
        }
        if (sent >= 0) {
            return sent;
        }
        int errno = Posix.errno(sendState);
        if (errno == Posix.EAGAIN || errno == Posix.EINTR) {
            return WOULD_BLOCK;
        }
        throw new IOException("sctp_sendv failed: " + Posix.describe(errno));
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedMessage into) throws IOException {
        receiveIovec.set(ADDRESS, 0, buffer);
        receiveIovec.set(JAVA_LONG, 8, buffer.byteSize());
        fromlen.set(JAVA_INT, 0, (int) from.byteSize());
        infolen.set(JAVA_INT, 0, (int) Native.RCVINFO_SIZE);
        infotype.set(JAVA_INT, 0, 0);
        msgflags.set(JAVA_INT, 0, 0);
        int received;
        calls.enter();
        try {
            received = (int) Native.RECVV.invokeExact(receiveState, fd, receiveIovec, 1, from, fromlen, rcvinfo,
                    infolen, infotype, msgflags);
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            calls.exit();
        }
        if (received < 0) {
            int errno = Posix.errno(receiveState);
            if (errno == Posix.EAGAIN || errno == Posix.EINTR) {
                return WOULD_BLOCK;
            }
            throw new IOException("sctp_recvv failed: " + Posix.describe(errno));
        }
        int flags = msgflags.get(JAVA_INT, 0);
        if (received == 0 && (flags & Native.MSG_NOTIFICATION) == 0) {
            into.kind = ReceivedMessage.ASSOCIATION_DOWN; // end of stream: the association is gone
            into.value = 0;
            return 0;
        }
        into.complete = (flags & Native.MSG_EOR) != 0;
        if ((flags & Native.MSG_NOTIFICATION) != 0) {
            describeNotification(buffer, received, into, NOTIFICATIONS);
            if ((buffer.get(JAVA_SHORT, 0) & 0xFFFF) == Native.SCTP_PEER_ADDR_CHANGE
                    && received >= Native.PADDR_CHANGE_SIZE) {
                into.kind = ReceivedMessage.PATH_CHANGE;
                into.value = buffer.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, Native.PADDR_CHANGE_STATE);
                into.path = Posix.address(buffer.asSlice(Native.PADDR_CHANGE_ADDRESS, Posix.SOCKADDR_IN6_SIZE));
            }
            return received;
        }
        into.kind = ReceivedMessage.DATA;
        if (infotype.get(JAVA_INT, 0) != Native.SCTP_RECVV_RCVINFO) {
            throw new IOException("sctp_recvv returned no sctp_rcvinfo (SCTP_RECVRCVINFO is off)");
        }
        into.streamId = rcvinfo.get(JAVA_SHORT, 0) & 0xFFFF;
        into.unordered = (rcvinfo.get(JAVA_SHORT, Native.RCVINFO_FLAGS) & Native.SCTP_UNORDERED) != 0;
        into.ppid = rcvinfo.get(Posix.U32_BE, Native.RCVINFO_PPID);
        return received;
    }

    @Override
    public void bundle(boolean on) throws IOException {
        noDelay.set(JAVA_INT, 0, on ? 0 : 1);
        calls.enter();
        try {
            KernelSctpStack.setsockopt(fd, sendState, Posix.IPPROTO_SCTP, Native.SCTP_NODELAY, noDelay,
                    "SCTP_NODELAY");
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
            statusLength.set(JAVA_INT, 0, Native.STATUS_SIZE);
            int result = (int) Posix.GETSOCKOPT.invokeExact(sendState, fd, Posix.IPPROTO_SCTP, Native.SCTP_STATUS,
                    status, statusLength);
            return result != 0 || status.get(JAVA_SHORT, Native.STATUS_UNACKDATA) == 0;
        } catch (Throwable e) {
            return true; // the association is failing: the next call finds out
        } finally {
            calls.exit();
        }
    }

    @Override
    public org.rddp.transport.sctp.ProtocolParameters protocolParameters() throws IOException {
        if (!calls.tryEnter()) {
            throw new IOException("the socket is closed");
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment rto = option(local, Native.SCTP_RTOINFO, Native.RTOINFO_SIZE);
            MemorySegment association = option(local, Native.SCTP_ASSOCINFO, Native.ASSOCPARAMS_SIZE);
            MemorySegment paths = option(local, Native.SCTP_PEER_ADDR_PARAMS, Native.PADDRPARAMS_SIZE);
            MemorySegment thresholds = option(local, Native.SCTP_PEER_ADDR_THLDS, Native.PADDRTHLDS_SIZE);
            MemorySegment init = option(local, Native.SCTP_INITMSG, 8);
            MemorySegment sack = option(local, Native.SCTP_DELAYED_SACK, Native.SACK_INFO_SIZE);
            return new org.rddp.transport.sctp.ProtocolParameters(
                    java.time.Duration.ofMillis(rto.get(JAVA_INT, 4)),
                    java.time.Duration.ofMillis(rto.get(JAVA_INT, 12)),
                    java.time.Duration.ofMillis(rto.get(JAVA_INT, 8)),
                    Short.toUnsignedInt(association.get(JAVA_SHORT, Native.ASSOCPARAMS_MAX_RETRANS)),
                    Short.toUnsignedInt(thresholds.get(JAVA_SHORT, Native.PADDRTHLDS_PATH_MAX_RETRANS)),
                    Short.toUnsignedInt(thresholds.get(JAVA_SHORT, Native.PADDRTHLDS_PF)),
                    Short.toUnsignedInt(init.get(JAVA_SHORT, Native.INITMSG_MAX_ATTEMPTS)),
                    java.time.Duration.ofMillis(Integer.toUnsignedLong(paths.get(
                            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, Native.PADDRPARAMS_HB_INTERVAL))),
                    java.time.Duration.ofMillis(Integer.toUnsignedLong(sack.get(JAVA_INT, Native.SACK_INFO_DELAY))));
        } finally {
            calls.exit();
        }
    }

    /** An SCTP option of the association (id 0: a one-to-one socket's), read into {@code size} octets. */
    private MemorySegment option(Arena local, int option, long size) throws IOException {
        MemorySegment value = local.allocate(size, 8);
        MemorySegment length = Posix.intValue(local, (int) size);
        try {
            int result = (int) Posix.GETSOCKOPT.invokeExact(sendState, fd, Posix.IPPROTO_SCTP, option, value,
                    length);
            if (result != 0) {
                throw new IOException("getsockopt(" + option + ") failed: " + Posix.describeErrno(sendState));
            }
            return value;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    @Override
    public int currentMaxMessage() {
        if (!calls.tryEnter()) {
            return maxMessage();
        }
        try (Arena local = Arena.ofConfined()) {
            return option(local, Native.SCTP_STATUS, Native.STATUS_SIZE).get(JAVA_INT,
                    Native.STATUS_FRAGMENTATION_POINT);
        } catch (IOException e) {
            return maxMessage(); // the association is failing: nothing more goes out
        } finally {
            calls.exit();
        }
    }

    @Override
    public java.util.List<LlpPath> paths() {
        if (!calls.tryEnter()) {
            return java.util.List.of();
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment addresses = option(local, Native.SCTP_GET_PEER_ADDRS, 4096);
            int count = addresses.get(JAVA_INT, 4);
            InetSocketAddress primary = primaryPathOn(local);
            java.util.List<LlpPath> paths = new java.util.ArrayList<>(count);
            long at = 8;
            for (int i = 0; i < count && at + Posix.SOCKADDR_IN_SIZE <= addresses.byteSize(); i++) {
                boolean v6 = addresses.get(JAVA_SHORT, at) == Posix.AF_INET6;
                long size = v6 ? Posix.SOCKADDR_IN6_SIZE : Posix.SOCKADDR_IN_SIZE;
                MemorySegment info = local.allocate(Native.PADDRINFO_SIZE, 8);
                MemorySegment.copy(addresses, at, info, Native.PADDRINFO_ADDRESS, size);
                MemorySegment length = Posix.intValue(local, (int) Native.PADDRINFO_SIZE);
                int result = (int) Posix.GETSOCKOPT.invokeExact(sendState, fd, Posix.IPPROTO_SCTP,
                        Native.SCTP_GET_PEER_ADDR_INFO, info, length);
                InetSocketAddress address = Posix.address(info.asSlice(Native.PADDRINFO_ADDRESS,
                        Posix.SOCKADDR_IN6_SIZE));
                int state = result != 0 ? -1 : info.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                        Native.PADDRINFO_STATE);
                paths.add(new LlpPath(address, switch (state) {
                    case 0 -> LlpPath.State.INACTIVE;
                    case 1 -> LlpPath.State.POTENTIALLY_FAILED;
                    case 2 -> LlpPath.State.ACTIVE;
                    case 3 -> LlpPath.State.UNCONFIRMED;
                    default -> LlpPath.State.UNKNOWN;
                }, address.equals(primary), java.time.Duration.ofMillis(Integer.toUnsignedLong(info.get(
                        java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, Native.PADDRINFO_RTO)))));
                at += size;
            }
            return paths;
        } catch (Throwable e) {
            return java.util.List.of(); // the association is failing: it has none to tell
        } finally {
            calls.exit();
        }
    }

    @Override
    public void choosePrimaryPath(InetSocketAddress peer) throws IOException {
        if (!calls.tryEnter()) {
            throw new IOException("the association is closed");
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment prim = local.allocate(Native.PRIM_SIZE, 8); // struct sctp_prim: association 0, the address
            MemorySegment address = Posix.sockaddr(local, peer);
            MemorySegment.copy(address, 0, prim, Native.PRIM_ADDRESS, address.byteSize());
            int result = (int) Posix.SETSOCKOPT.invokeExact(sendState, fd, Posix.IPPROTO_SCTP,
                    Native.SCTP_PRIMARY_ADDR, prim, (int) Native.PRIM_SIZE);
            if (result != 0) {
                throw new IOException("the association has no path to " + peer + " to make primary: "
                        + Posix.describeErrno(sendState) + "; its paths: " + paths());
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            calls.exit();
        }
    }

    private InetSocketAddress primaryPathOn(Arena local) throws IOException {
        MemorySegment value = option(local, Native.SCTP_STATUS, Native.STATUS_SIZE);
        return Posix.address(value.asSlice(Native.STATUS_PRIMARY_ADDRESS, Posix.SOCKADDR_IN6_SIZE));
    }

    @Override
    public long retransmittedChunks() {
        if (!calls.tryEnter()) {
            return -1; // closed
        }
        try {
            assocStats.fill((byte) 0); // sas_assoc_id 0: a one-to-one socket's association
            statusLength.set(JAVA_INT, 0, Native.ASSOC_STATS_SIZE);
            int result = (int) Posix.GETSOCKOPT.invokeExact(sendState, fd, Posix.IPPROTO_SCTP,
                    Native.SCTP_GET_ASSOC_STATS, assocStats, statusLength);
            return result != 0 ? -1 : assocStats.get(JAVA_LONG, Native.ASSOC_STATS_RTXCHUNKS);
        } catch (Throwable e) {
            return -1; // the association is failing: it counts no more
        } finally {
            calls.exit();
        }
    }

    @Override
    public boolean writable() {
        if (!calls.tryEnter()) {
            return true; // closed: the next send finds out
        }
        try {
            pollfd.set(JAVA_INT, 0, fd);
            pollfd.set(JAVA_SHORT, 4, Posix.POLLOUT);
            pollfd.set(JAVA_SHORT, 6, (short) 0);
            int ready = (int) Posix.POLL.invokeExact(sendState, pollfd, 1L, 0);
            return ready <= 0 || (pollfd.get(JAVA_SHORT, 6) & Posix.POLLOUT) != 0;
        } catch (Throwable e) {
            return true; // let the next send find out
        } finally {
            calls.exit();
        }
    }

    /** Closes the descriptor: the kernel shuts the association down gracefully, or aborts it (zero linger). */
    @Override
    protected void free(boolean abortively) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(local);
            if (abortively) {
                MemorySegment linger = local.allocate(8, 4);
                linger.set(JAVA_INT, 0, 1);
                linger.set(JAVA_INT, 4, 0);
                int ignored = (int) Posix.SETSOCKOPT.invokeExact(state, fd, Posix.SOL_SOCKET, Posix.SO_LINGER,
                        linger, 8); // if it fails, close shuts down gracefully
            }
            int ignored = (int) Posix.CLOSE.invokeExact(state, fd);
        } catch (Throwable e) {
            // the descriptor is gone either way
        } finally {
            poller.deregister(id, -1); // the closed descriptor left the epoll set by itself
        }
    }
}
