package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.rddp.loop.Loop;
import org.rddp.posix.Posix;

/**
 * SCTP straight over IPv4 (protocol 132) for one loop: a raw socket through libc, so root (or CAP_NET_RAW). The
 * kernel writes the IP header on sending; received packets come with it, which tells the sender and the
 * destination. Every raw socket hears every SCTP packet of the host, so each loop's takes only those sent to the
 * SCTP ports its own sockets hold ({@link #own}); listening sockets are held to their address by the destination.
 *
 * <p>A kernel with its own SCTP answers these packets too (an ABORT for an association it does not know), so
 * this mode is for hosts without kernel SCTP, as usrsctp's own raw mode is.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable
final class RawIpEndpoint extends Links.Endpoint {
    private static final int LARGEST_PACKET = 65535;
    private static final int IP_HEADER = 20;

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment packet = arena.allocate(LARGEST_PACKET, 8);
    private final MemorySegment receiveState = Posix.captureState(arena);
    private final byte[] source = new byte[4];
    private final byte[] destination = new byte[4];
    /** The SCTP ports of this loop's sockets: how many hold each (a listener and the associations it accepted). */
    private final AtomicIntegerArray owned = new AtomicIntegerArray(1 << 16);

    private RawIpEndpoint(int fd, Loop loop) throws IOException {
        super(InetAddress.getByAddress(new byte[4]), false, loop, fd);
        readByLoop(loop);
    }

    /** Opens the raw socket for {@code loop}; fails clearly without the privilege for it. */
    static RawIpEndpoint open(Loop loop, int socketBuffer) throws IOException {
        try (Arena setup = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(setup);
            int fd = (int) Posix.SOCKET.invokeExact(state, Posix.AF_INET,
                    Posix.SOCK_RAW | Posix.SOCK_NONBLOCK | Posix.SOCK_CLOEXEC, Posix.IPPROTO_SCTP);
            if (fd < 0) {
                int errno = Posix.errno(state);
                throw new IOException(errno == Posix.EPERM || errno == Posix.EACCES
                        ? "SCTP straight over IP needs a raw socket, so root or CAP_NET_RAW; without them use SCTP "
                                + "over UDP (UsrsctpStack.udp())"
                        : "raw IPv4 socket for SCTP failed: " + Posix.describe(errno));
            }
            try {
                Posix.socketBuffers(state, fd, socketBuffer);
                return new RawIpEndpoint(fd, loop);
            } catch (IOException | RuntimeException e) {
                Posix.closeQuietly(fd);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    @Override
    int port() {
        return 0;
    }

    /** Takes the packets sent to SCTP port {@code port} from now on, for one more socket. Any thread. */
    void own(int port) {
        owned.incrementAndGet(port);
    }

    /** One socket less takes the packets sent to SCTP port {@code port}. Any thread. */
    void disown(int port) {
        owned.decrementAndGet(port);
    }

    private boolean owns(int port) {
        return owned.get(port) > 0;
    }

    /** Reads up to {@code most} packets and hands this loop's to usrsctp; on the loop thread. Returns those read. */
    @Override
    int receive(int most) {
        int i = 0;
        for (; i < most && open; i++) {
            long received;
            try {
                received = (long) Posix.RECVFROM.invokeExact(receiveState, fd, packet, (long) LARGEST_PACKET, 0,
                        MemorySegment.NULL, MemorySegment.NULL);
            } catch (Throwable e) {
                return i;
            }
            if (received < 0) {
                return i; // EAGAIN: read out
            }
            int headerLength = (packet.get(JAVA_BYTE, 0) & 0x0F) * 4;
            if (headerLength < IP_HEADER || received < headerLength + 12
                    || !owns(packet.get(Posix.U16_BE, headerLength + 2) & 0xFFFF)) {
                continue; // a runt, or another loop's (or process's) packet
            }
            MemorySegment.copy(packet, 12, MemorySegment.ofArray(source), 0, 4);
            MemorySegment.copy(packet, 16, MemorySegment.ofArray(destination), 0, 4);
            try {
                Links.input(Links.ipLink(InetAddress.getByAddress(source), this), packet.asSlice(headerLength),
                        (int) received - headerLength, InetAddress.getByAddress(destination));
            } catch (IOException e) {
                continue; // too many peers: this one's packets are dropped
            }
        }
        return i;
    }
}
