package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.rddp.transport.sctp.NativeSctpSocket;

/**
 * An association on the kernel's SCTP: a non-blocking one-to-one socket, with messages through lksctp-tools'
 * {@code sctp_sendv}/{@code sctp_recvv} and readiness from the process's {@link Poller}.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class KernelSctpSocket extends NativeSctpSocket {
    private static final Notifications NOTIFICATIONS = new Notifications(Native.SCTP_ASSOC_CHANGE,
            Native.SCTP_SHUTDOWN_EVENT, Native.SCTP_ADAPTATION_INDICATION, Native.SCTP_COMM_LOST,
            Native.SCTP_SHUTDOWN_COMP, Native.SCTP_CANT_STR_ASSOC);
    private final int fd;
    private final Poller poller;
    private final int id;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment sendState = Native.captureState(arena);
    private final MemorySegment receiveState = Native.captureState(arena);
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

    /** Wraps an established association on {@code fd}, whose {@link #status} is {@code status}. */
    private KernelSctpSocket(int fd, InetSocketAddress remote, int[] status) throws IOException {
        super(remote, status[0], status[1]);
        this.fd = fd;
        this.poller = Poller.get();
        this.id = poller.register(fd, this::ready);
    }

    /** Wraps an established association on {@code fd}. */
    static KernelSctpSocket of(int fd, InetSocketAddress remote) throws IOException {
        return new KernelSctpSocket(fd, remote, status(fd));
    }

    /** The association's streams each way and its fragmentation point (SCTP_STATUS). */
    private static int[] status(int fd) throws IOException {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment state = Native.captureState(local);
            MemorySegment status = local.allocate(Native.STATUS_SIZE, 4);
            MemorySegment length = Native.intValue(local, Native.STATUS_SIZE);
            int result = (int) Native.GETSOCKOPT.invokeExact(state, fd, Native.IPPROTO_SCTP, Native.SCTP_STATUS,
                    status, length);
            if (result != 0) {
                throw new IOException("SCTP_STATUS failed: " + Native.describeErrno(state));
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
        sndinfo.set(Native.U32_BE, 4, ppid); // the kernel does not byte-swap the PPID (RFC 4960 §3.3.1)
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
        int errno = Native.errno(sendState);
        if (errno == Native.EAGAIN || errno == Native.EINTR) {
            return WOULD_BLOCK;
        }
        throw new IOException("sctp_sendv failed: " + Native.describe(errno));
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
            int errno = Native.errno(receiveState);
            if (errno == Native.EAGAIN || errno == Native.EINTR) {
                return WOULD_BLOCK;
            }
            throw new IOException("sctp_recvv failed: " + Native.describe(errno));
        }
        int flags = msgflags.get(JAVA_INT, 0);
        if (received == 0 && (flags & Native.MSG_NOTIFICATION) == 0) {
            into.kind = ReceivedMessage.ASSOCIATION_DOWN; // end of stream: the association is gone
            return 0;
        }
        into.complete = (flags & Native.MSG_EOR) != 0;
        if ((flags & Native.MSG_NOTIFICATION) != 0) {
            describeNotification(buffer, received, into, NOTIFICATIONS);
            return received;
        }
        into.kind = ReceivedMessage.DATA;
        if (infotype.get(JAVA_INT, 0) != Native.SCTP_RECVV_RCVINFO) {
            throw new IOException("sctp_recvv returned no sctp_rcvinfo (SCTP_RECVRCVINFO is off)");
        }
        into.streamId = rcvinfo.get(JAVA_SHORT, 0) & 0xFFFF;
        into.unordered = (rcvinfo.get(JAVA_SHORT, Native.RCVINFO_FLAGS) & Native.SCTP_UNORDERED) != 0;
        into.ppid = rcvinfo.get(Native.U32_BE, Native.RCVINFO_PPID);
        return received;
    }

    @Override
    public boolean writable() {
        if (!calls.tryEnter()) {
            return true; // closed: the next send finds out
        }
        try {
            pollfd.set(JAVA_INT, 0, fd);
            pollfd.set(JAVA_SHORT, 4, Native.POLLOUT);
            pollfd.set(JAVA_SHORT, 6, (short) 0);
            int ready = (int) Native.POLL.invokeExact(sendState, pollfd, 1L, 0);
            return ready <= 0 || (pollfd.get(JAVA_SHORT, 6) & Native.POLLOUT) != 0;
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
            MemorySegment state = Native.captureState(local);
            if (abortively) {
                MemorySegment linger = local.allocate(8, 4);
                linger.set(JAVA_INT, 0, 1);
                linger.set(JAVA_INT, 4, 0);
                int ignored = (int) Native.SETSOCKOPT.invokeExact(state, fd, Native.SOL_SOCKET, Native.SO_LINGER,
                        linger, 8); // if it fails, close shuts down gracefully
            }
            int ignored = (int) Native.CLOSE.invokeExact(state, fd);
        } catch (Throwable e) {
            // the descriptor is gone either way
        } finally {
            poller.release(id);
        }
    }
}
