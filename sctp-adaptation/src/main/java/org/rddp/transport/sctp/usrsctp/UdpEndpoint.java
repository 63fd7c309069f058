package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.rddp.loop.Loop;
import org.rddp.posix.Posix;

/**
 * SCTP over UDP (RFC 6951) for one loop: a non-blocking UDP socket through libc, bound to one local address (or
 * the wildcard), watched by the loop's epoll. The loop's thread reads it and hands each datagram to usrsctp, so a
 * loop driven by an application thread reads its own socket. Datagrams leave with the Don't Fragment bit
 * ({@link Links.Endpoint#send}).
 */
@SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable
final class UdpEndpoint extends Links.Endpoint {
    private static final int LARGEST_DATAGRAM = 65535;
    /** Datagrams read per readiness before the loop runs the rest of its cycle (the socket stays ready). */

    private final int port;
    private final InetAddress destination;
    private final Loop loop;
    /** Runs on the loop once no socket holds the endpoint any more (it may be closed then). */
    private final java.util.function.Consumer<UdpEndpoint> unused;
    private int holders;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment packet = arena.allocate(LARGEST_DATAGRAM, 8);
    private final MemorySegment from = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
    private final MemorySegment fromLength = arena.allocate(JAVA_INT);
    /** The last datagram's sender address (a sockaddr_in or sockaddr_in6), {@link #lastLength} octets of it. */
    private final MemorySegment lastFrom = arena.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
    private long lastLength;
    private final MemorySegment receiveState = Posix.captureState(arena);
    /** The link of the last datagram's sender: a loop usually hears one peer per endpoint. */
    private Links.Link lastLink;

    private UdpEndpoint(InetAddress local, int fd, int port, Loop loop,
            java.util.function.Consumer<UdpEndpoint> unused) throws IOException {
        super(local, true, loop, fd);
        this.port = port;
        this.destination = local.isAnyLocalAddress() ? null : local;
        this.loop = loop;
        this.unused = unused;
        readByLoop(loop);
    }

    /**
     * Binds {@code local}:{@code port} (0: any free port) and has {@code loop} read it; {@code unused} runs on the
     * loop once the last socket holding it let it go.
     */
    static UdpEndpoint open(Loop loop, InetAddress local, int port, int socketBuffer,
            java.util.function.Consumer<UdpEndpoint> unused) throws IOException {
        try (Arena setup = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(setup);
            int fd = (int) Posix.SOCKET.invokeExact(state, Posix.family(local),
                    Posix.SOCK_DGRAM | Posix.SOCK_NONBLOCK | Posix.SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("UDP socket failed: " + Posix.describeErrno(state));
            }
            try {
                Posix.socketBuffers(state, fd, socketBuffer); // Don't Fragment: Links.Endpoint sets it
                MemorySegment address = Posix.sockaddr(setup, new InetSocketAddress(local, port));
                int status = (int) Posix.BIND.invokeExact(state, fd, address, (int) address.byteSize());
                if (status != 0) {
                    throw new IOException("cannot bind UDP " + local.getHostAddress() + ":" + port + " for SCTP over "
                            + "UDP (RFC 6951): " + Posix.describeErrno(state));
                }
                MemorySegment bound = setup.allocate(Posix.SOCKADDR_STORAGE_SIZE, 8);
                status = (int) Posix.GETSOCKNAME.invokeExact(state, fd, bound,
                        Posix.intValue(setup, (int) Posix.SOCKADDR_STORAGE_SIZE));
                if (status != 0) {
                    throw new IOException("getsockname failed: " + Posix.describeErrno(state));
                }
                return new UdpEndpoint(local, fd, Posix.address(bound).getPort(), loop, unused);
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
        return port;
    }

    @Override
    synchronized void hold() {
        holders++;
    }

    @Override
    void release() {
        boolean last;
        synchronized (this) {
            last = --holders == 0;
        }
        if (last) {
            loop.execute(() -> unused.accept(this));
        }
    }

    /** Sockets holding it now. */
    synchronized int holders() {
        return holders;
    }

    /**
     * Reads up to {@code most} datagrams and hands them to usrsctp; on the loop thread, when epoll says the socket is
     * readable, or to look.
     *
     * @return the datagrams read
     */
    @Override
    int receive(int most) {
        int i = 0;
        for (; i < most && open; i++) {
            fromLength.set(JAVA_INT, 0, (int) Posix.SOCKADDR_STORAGE_SIZE);
            long received;
            try {
                received = (long) Posix.RECVFROM.invokeExact(receiveState, fd, packet, (long) LARGEST_DATAGRAM, 0,
                        from, fromLength);
            } catch (Throwable e) {
                return i;
            }
            if (received < 0) {
                return i; // EAGAIN: read out; any other error (an ICMP report on the socket): UDP carries on
            }
            Links.Link link = linkOf(from);
            if (link != null) {
                Links.input(link, packet, (int) received, destination);
            }
        }
        return i;
    }

    /** The link of the datagram's sender, or null when there are too many peers (its packets are dropped). */
    private Links.Link linkOf(MemorySegment sender) {
        long length = Math.min(fromLength.get(JAVA_INT, 0), Posix.SOCKADDR_IN6_SIZE);
        if (lastLink != null && length == lastLength && !lastLink.freed
                && MemorySegment.mismatch(sender, 0, length, lastFrom, 0, length) == -1) {
            return lastLink;
        }
        try {
            Links.Link link = Links.udpLink(Posix.address(sender), this);
            lastLink = link;
            MemorySegment.copy(sender, 0, lastFrom, 0, length);
            lastLength = length;
            return link;
        } catch (IOException e) {
            return null;
        }
    }
}
