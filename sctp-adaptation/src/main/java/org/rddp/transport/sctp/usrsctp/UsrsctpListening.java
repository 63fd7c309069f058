package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.rddp.loop.Loop;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.io.LoopListening;

/** A listening usrsctp socket whose upcall schedules accepts on its loop. */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class UsrsctpListening extends LoopListening {
    private final MemorySegment socket;
    private final int mtu;
    /** The path MTU (SCTP packet octets) towards a peer's address, as the kernel knows it now. */
    private final java.util.function.ToIntFunction<java.net.InetAddress> mtuTowards;
    private final int id;
    private final Links.Endpoint endpoint;
    private final MemorySegment state = Usrsctp.captureState(Arena.ofAuto());

    private UsrsctpListening(MemorySegment socket, InetSocketAddress address, int mtu,
            java.util.function.ToIntFunction<java.net.InetAddress> mtuTowards, Loop loop, Links.Endpoint endpoint)
            throws IOException {
        super(address, loop);
        this.socket = socket;
        this.mtu = mtu;
        this.mtuTowards = mtuTowards;
        this.endpoint = endpoint;
        this.id = Upcalls.attach(socket, this::ready, "listening");
    }

    /**
     * Listens at {@code local} (that address only; port 0: a free one) on {@code loop}, whose {@code endpoint} the
     * packets come through (held for the listener, released if it fails); accepted associations offer
     * {@code streams} streams each way and a path MTU of {@code mtu}, and detect failures with {@code parameters}.
     */
    static UsrsctpListening open(Loop loop, Links.Endpoint endpoint, InetSocketAddress local, int mtu,
            java.util.function.ToIntFunction<java.net.InetAddress> mtuTowards, int streams, int adaptation,
            org.rddp.transport.sctp.ProtocolParameters parameters) throws IOException {
        MemorySegment socket;
        try {
            socket = SocketSetup.open(streams, adaptation, mtu, parameters, false);
        } catch (IOException e) {
            endpoint.release();
            throw e;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Usrsctp.captureState(arena);
            int port = local.getPort();
            if (port == 0) {
                port = SocketSetup.bindEphemeral(socket, arena, state, MemorySegment.NULL);
            } else {
                SocketSetup.bind(socket, arena, state, MemorySegment.NULL, port);
            }
            int status = (int) Usrsctp.LISTEN.invokeExact(state, socket, 16);
            if (status != 0) {
                throw new IOException("SCTP listen on " + local + " failed, errno " + Usrsctp.errno(state));
            }
            Links.listen(port, endpoint.udp, local.getAddress(), endpoint);
            if (endpoint instanceof RawIpEndpoint raw) {
                raw.own(port);
            }
            return new UsrsctpListening(socket, new InetSocketAddress(local.getAddress(), port), mtu, mtuTowards,
                    loop, endpoint);
        } catch (IOException | RuntimeException e) {
            SocketSetup.closeQuietly(socket);
            endpoint.release();
            throw e;
        } catch (Throwable e) {
            SocketSetup.closeQuietly(socket);
            endpoint.release();
            throw new IOException(e);
        }
    }

    @Override
    protected SctpSocket acceptOne() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment peer = arena.allocate(Usrsctp.SOCKADDR_STORAGE_SIZE);
            MemorySegment peerLength = Usrsctp.intValue(arena, (int) Usrsctp.SOCKADDR_STORAGE_SIZE);
            MemorySegment accepted = (MemorySegment) Usrsctp.ACCEPT.invokeExact(state, socket, peer, peerLength);
            if (accepted.equals(MemorySegment.NULL)) {
                return null; // EAGAIN: the next upcall brings the next association
            }
            int granted;
            try {
                granted = SocketSetup.negotiatedStreams(accepted, arena, state);
            } catch (IOException e) {
                SocketSetup.closeQuietly(accepted);
                throw e;
            }
            return accepted(accepted, peer, granted);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /**
     * Wraps an accepted association with the {@code streams} it has each way. Its path MTU is the listener's
     * (usrsctp copies it at accept), chosen for the listening address (the wildcard's is the smallest of the
     * interfaces), or less where the kernel knows the path to the peer takes less (IPsec's headers, a smaller hop).
     */
    private UsrsctpSocket accepted(MemorySegment accepted, MemorySegment peer, int streams) throws IOException {
        Links.Link link = Links.link(Usrsctp.connLink(peer));
        InetSocketAddress remote = new InetSocketAddress(link == null ? address().getAddress()
                : link.remote.getAddress(), Usrsctp.port(peer));
        // the association's packets come through the listener's endpoint and port, which it may outlive
        endpoint.hold();
        int port = 0;
        if (endpoint instanceof RawIpEndpoint raw) {
            port = address().getPort();
            raw.own(port);
        }
        // the path to this peer may take less than the listener's (IPsec on the way, a smaller hop the kernel knows)
        int pathMtu = Math.min(mtu, mtuTowards.applyAsInt(remote.getAddress()));
        if (pathMtu < mtu) {
            try {
                SocketSetup.pathMtu(accepted, pathMtu);
            } catch (IOException e) {
                endpoint.release();
                throw e;
            }
        }
        UsrsctpSocket wrapped = new UsrsctpSocket(accepted, streams, pathMtu, remote, link,
                LoopEndpoints.freeing(endpoint, port, link));
        if (link != null) {
            Links.hold(link); // released when the socket is freed
        }
        return wrapped;
    }

    @Override
    protected void closeNative() {
        Links.unlisten(address().getPort());
        LoopEndpoints.freeing(endpoint, endpoint instanceof RawIpEndpoint ? address().getPort() : 0, null).run();
        Upcalls.release(id);
        SocketSetup.closeQuietly(socket);
    }
}
