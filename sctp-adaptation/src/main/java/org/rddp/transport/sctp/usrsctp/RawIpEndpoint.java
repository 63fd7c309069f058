package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * SCTP straight over IPv4 (protocol 132): a raw socket through libc, so root (or CAP_NET_RAW). The kernel
 * writes the IP header on sending; received packets come with it, which tells the sender and the destination.
 * One such socket per process, on the wildcard address: every raw socket hears every SCTP packet, so a second
 * one would only duplicate them; listening sockets are held to their address by the destination in the header.
 *
 * <p>A kernel with its own SCTP answers these packets too (an ABORT for an association it does not know), so
 * this mode is for hosts without kernel SCTP, as usrsctp's own raw mode is.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable
final class RawIpEndpoint extends Links.Endpoint {
    private static final int LARGEST_PACKET = 65535;
    private static final int RECEIVE_TIMEOUT_MILLIS = 200;

    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sendState = Usrsctp.captureState(arena);
    private final MemorySegment to = arena.allocate(Usrsctp.SOCKADDR_IN_SIZE);
    private volatile boolean open = true;

    private RawIpEndpoint(int fd) throws UnknownHostException {
        super(InetAddress.getByAddress(new byte[4]), false);
        this.fd = fd;
    }

    /** Opens the raw socket and starts receiving; fails clearly without the privilege for it. */
    static RawIpEndpoint open(int socketBuffer) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            int fd = (int) Libc.SOCKET.invokeExact(state, Usrsctp.AF_INET, Libc.SOCK_RAW, Usrsctp.IPPROTO_SCTP);
            if (fd < 0) {
                int errno = Usrsctp.errno(state);
                throw new IOException(errno == Libc.EPERM || errno == Libc.EACCES
                        ? "SCTP straight over IP needs a raw socket, so root or CAP_NET_RAW; without them use SCTP "
                                + "over UDP (UsrsctpStack.udp())"
                        : "raw IPv4 socket for SCTP failed, errno " + errno);
            }
            MemorySegment timeout = arena.allocate(16);
            timeout.set(JAVA_LONG, 0, 0);
            timeout.set(JAVA_LONG, 8, RECEIVE_TIMEOUT_MILLIS * 1000L);
            int ignored = (int) Libc.SETSOCKOPT.invokeExact(state, fd, Libc.SOL_SOCKET, Libc.SO_RCVTIMEO, timeout,
                    16);
            MemorySegment buffer = Usrsctp.intValue(arena, socketBuffer);
            ignored |= (int) Libc.SETSOCKOPT.invokeExact(state, fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, buffer, 4);
            ignored |= (int) Libc.SETSOCKOPT.invokeExact(state, fd, Libc.SOL_SOCKET, Libc.SO_SNDBUF, buffer, 4);
            RawIpEndpoint endpoint = new RawIpEndpoint(fd);
            Thread.ofPlatform().daemon().name("usrsctp-raw-ip").start(endpoint::receive);
            return endpoint;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    private void receive() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(local);
            MemorySegment packet = local.allocate(LARGEST_PACKET, 8);
            byte[] source = new byte[4];
            byte[] destination = new byte[4];
            while (open) {
                long received;
                try {
                    received = (long) Libc.RECVFROM.invokeExact(state, fd, packet, (long) LARGEST_PACKET, 0,
                            MemorySegment.NULL, MemorySegment.NULL);
                } catch (Throwable e) {
                    break;
                }
                if (received < 20) {
                    continue; // a timeout (to look at open again), an interrupted call, or a runt
                }
                int headerLength = (packet.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) & 0x0F) * 4;
                if (headerLength < 20 || received <= headerLength) {
                    continue;
                }
                MemorySegment.copy(packet, 12, MemorySegment.ofArray(source), 0, 4);
                MemorySegment.copy(packet, 16, MemorySegment.ofArray(destination), 0, 4);
                try {
                    Links.input(Links.ipLink(InetAddress.getByAddress(source), this),
                            packet.asSlice(headerLength), (int) received - headerLength,
                            InetAddress.getByAddress(destination));
                } catch (IOException e) {
                    continue; // too many peers: this one's packets are dropped
                }
            }
        } finally {
            closeSocket();
        }
    }

    @Override
    void send(MemorySegment packet, Links.Link link) throws IOException {
        if (!open) {
            throw new IOException("the raw IP socket is closed");
        }
        long sent;
        synchronized (to) {
            to.fill((byte) 0);
            to.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 0, (short) Usrsctp.AF_INET);
            MemorySegment.copy(MemorySegment.ofArray(link.remote.getAddress().getAddress()), 0, to, 4, 4);
            try {
                sent = (long) Libc.SENDTO.invokeExact(sendState, fd, packet, packet.byteSize(), 0, to,
                        (int) Usrsctp.SOCKADDR_IN_SIZE);
            } catch (Throwable e) {
                throw new IOException(e);
            }
            if (sent < 0) {
                throw new IOException("sendto failed, errno " + Usrsctp.errno(sendState));
            }
        }
    }

    /** Stops receiving; the receiving thread closes the socket within the receive timeout (closing it here could
     * let a new socket reuse the descriptor under a thread still reading it). */
    @Override
    public void close() {
        open = false;
    }

    private void closeSocket() {
        try (Arena local = Arena.ofConfined()) {
            int ignored = (int) Libc.CLOSE.invokeExact(Usrsctp.captureState(local), fd);
        } catch (Throwable e) {
            // closing: nothing left to do with it
        }
    }
}
