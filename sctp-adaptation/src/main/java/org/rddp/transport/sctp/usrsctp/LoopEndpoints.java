package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rddp.loop.Loop;
import org.rddp.transport.sctp.io.EpollPoller;

/**
 * The endpoints each loop carries usrsctp's packets through: per local address and role, a UDP socket (SCTP over
 * UDP), or one raw IP socket per loop (SCTP straight over IP); and what a usrsctp socket's end gives back of them.
 * The first listening UDP endpoint of the process takes the process's port ({@link StackLifecycle#udpPort()}), the
 * others free ports.
 *
 * <p>The table is guarded by {@link StackLifecycle}'s monitor, which guards the process's port too.
 */
final class LoopEndpoints {
    /** A listening endpoint has the process's port now. */
    private static boolean udpPortBound;
    /** The endpoints of each loop's poller: per local address and role for UDP, one raw socket per loop. */
    private static final Map<EndpointKey, Links.Endpoint> ENDPOINTS = new ConcurrentHashMap<>();

    /** Which endpoint: a loop's poller, a local address (null for raw IP), and whether it is for listening. */
    private record EndpointKey(EpollPoller poller, InetAddress local, boolean listening) {
    }

    private LoopEndpoints() {
    }

    /**
     * {@code loop}'s UDP endpoint on {@code local}'s address, for listening or for connecting, opened on first use
     * and held for the caller (who releases it): a listening one on {@link StackLifecycle#udpPort()} while no other
     * holds it, the others on free ports. It closes once no socket holds it.
     */
    static UdpEndpoint udp(Loop loop, InetAddress local, boolean listening) throws IOException {
        EpollPoller poller = (EpollPoller) loop.poller();
        EndpointKey key = new EndpointKey(poller, local, listening);
        synchronized (StackLifecycle.class) {
            UdpEndpoint endpoint = (UdpEndpoint) ENDPOINTS.get(key);
            if (endpoint == null) {
                boolean processPort = listening && !udpPortBound;
                int udpPort = StackLifecycle.udpPort();
                try {
                    endpoint = UdpEndpoint.open(loop, local, processPort ? udpPort : 0, UsrsctpStack.SOCKET_BUFFER,
                            unused -> closeIfUnused(key, unused, processPort));
                } catch (IOException e) {
                    throw processPort ? new IOException("UDP port " + udpPort + " is taken, and usrsctp needs it for "
                            + "SCTP over UDP (RFC 6951): free it or choose another with -D"
                            + UsrsctpStack.UDP_PORT_PROPERTY + "=PORT", e) : e;
                }
                udpPortBound |= processPort;
                ENDPOINTS.put(key, endpoint);
                UdpEndpoint opened = endpoint;
                poller.onClose(() -> closeIfUnused(key, opened, processPort)); // the loop stops: it closes anyway
            }
            endpoint.hold();
            return endpoint;
        }
    }

    /** Closes an endpoint no socket holds, on its loop; the process's port is free again if it had it. */
    private static void closeIfUnused(EndpointKey key, UdpEndpoint endpoint, boolean processPort) {
        synchronized (StackLifecycle.class) {
            if ((endpoint.holders() == 0 || !key.poller().open()) && ENDPOINTS.remove(key, endpoint)) {
                endpoint.close();
                if (processPort) {
                    udpPortBound = false;
                }
            }
        }
    }

    /** {@code loop}'s raw IP endpoint, opened on first use. */
    static RawIpEndpoint raw(Loop loop) throws IOException {
        EpollPoller poller = (EpollPoller) loop.poller();
        EndpointKey key = new EndpointKey(poller, null, false);
        synchronized (StackLifecycle.class) {
            Links.Endpoint endpoint = ENDPOINTS.get(key);
            if (endpoint == null) {
                endpoint = RawIpEndpoint.open(loop, UsrsctpStack.SOCKET_BUFFER);
                ENDPOINTS.put(key, endpoint);
                poller.onClose(() -> ENDPOINTS.remove(key));
            }
            return (RawIpEndpoint) endpoint;
        }
    }

    /**
     * What a socket's end gives back: its hold on {@code endpoint} and on its {@code link} (null: none), and a raw
     * socket's SCTP port (0: none).
     */
    static Runnable freeing(Links.Endpoint endpoint, int port, Links.Link link) {
        return () -> {
            if (link != null) {
                Links.release(link);
            }
            if (endpoint instanceof RawIpEndpoint raw && port != 0) {
                raw.disown(port);
            }
            endpoint.release();
        };
    }
}
