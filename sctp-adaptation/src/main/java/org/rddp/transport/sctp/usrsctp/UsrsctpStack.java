package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.transport.sctp.io.EpollPoller;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.io.SharedLoops;

/**
 * SCTP in user space: Debian's libusrsctp2 through {@code java.lang.foreign}, as a protocol engine whose packets
 * this package carries (see {@link Links}). One usrsctp stack per process, shared by every {@code UsrsctpStack} of a
 * JVM; {@link #udp()} encapsulates in UDP (RFC 6951, unprivileged), {@link #nativeIp()} sends SCTP straight over IP
 * through a raw socket (so root or CAP_NET_RAW).
 *
 * <p>Every loop has its own UDP socket (or raw socket), read by its own thread: an association lives on the loop
 * whose socket its packets arrive at, the connecting loop's for an association it opened, the listening loop's for
 * one it accepted. The first listening UDP socket of the process takes the process's port ({@link #udpPort()}, fixed
 * with {@code -Drddp.usrsctp.udp-port}), the port a peer in another process is told; the others take free ports.
 *
 * <p>The path MTU is fixed per association (path MTU discovery off), to the MTU of the interface the peer is
 * reached through, so that the largest message that avoids fragmentation is known: RFC 5043 §9 asks the
 * adaptation to advertise exactly that. {@code -Drddp.usrsctp.pmtu=N} sets it (the IP packet size) instead.
 *
 * <p>A {@code UsrsctpStack} is the entry point and one view's choices: the encapsulation, the peer's UDP port, the
 * path MTU. {@link StackLifecycle} starts and stops the process's stack, {@link LoopEndpoints} keeps each loop's
 * sockets, {@link SocketSetup} makes usrsctp sockets ready for DDP, and {@link PendingConnect} and
 * {@link UsrsctpListening} make the associations.
 */
public final class UsrsctpStack implements SctpStack {
    /** System property fixing the path MTU (IP packet size) of every association instead of the interface's. */
    public static final String PATH_MTU_PROPERTY = "rddp.usrsctp.pmtu";
    private static final int IP_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int UDP_HEADER = 8;
    static final int SCTP_COMMON_HEADER = 12;
    private static final int DATA_CHUNK_HEADER = 16;
    private static final int LARGEST_IP_PACKET = 65535;
    /** Each socket buffer, send and receive: of usrsctp's sockets, and of the endpoints' UDP and raw sockets. */
    static final int SOCKET_BUFFER = 4 << 20;

    /** System property naming the UDP port for this process's usrsctp stack; a free one is chosen without it. */
    public static final String UDP_PORT_PROPERTY = "rddp.usrsctp.udp-port";

    private final boolean encapsulated;
    private final int remoteUdpPort;

    private UsrsctpStack(boolean encapsulated, int remoteUdpPort) {
        this.encapsulated = encapsulated;
        this.remoteUdpPort = remoteUdpPort;
    }

    /** Why usrsctp cannot be used here (its library did not load), or null if it can. */
    public static String unavailable() {
        return Usrsctp.unavailable();
    }

    /** SCTP over UDP (RFC 6951) on this process's usrsctp stack, started on first use, to peers in this process. */
    public static UsrsctpStack udp() throws IOException {
        StackLifecycle.start();
        return new UsrsctpStack(true, 0); // the peer is a listener of this process: its port is looked up
    }

    /**
     * SCTP over UDP to peers whose usrsctp encapsulates on {@code remoteUdpPort} (another process's stack): the
     * initiator must know the responder's UDP port; the responder learns the initiator's (RFC 6951 §5.4).
     */
    public static UsrsctpStack udp(int remoteUdpPort) throws IOException {
        StackLifecycle.start();
        return new UsrsctpStack(true, remoteUdpPort);
    }

    /** SCTP straight over IP on this process's usrsctp stack; needs root or CAP_NET_RAW for the raw socket. */
    public static UsrsctpStack nativeIp() throws IOException {
        StackLifecycle.start();
        UsrsctpStack stack = new UsrsctpStack(false, 0);
        LoopEndpoints.raw(stack.sharedLoop()); // fails here, clearly, without the privilege
        return stack;
    }

    /**
     * Stops this process's usrsctp stack once every socket is closed ({@code usrsctp_finish} refuses while any
     * exists), trying until {@code timeout}, then closes its UDP and raw sockets. Returns whether it stopped;
     * afterwards no stack can be started again in this process.
     */
    public static boolean shutdown(java.time.Duration timeout) {
        return StackLifecycle.shutdown(timeout);
    }

    /** The UDP port this process's first listening socket encapsulates on (RFC 6951): the port to tell peers. */
    public static int udpPort() {
        return StackLifecycle.udpPort();
    }

    /** The largest SCTP packet (common header and chunks) this process has sent so far. */
    public static int largestPacketSent() {
        return UsrsctpRuntime.largestPacketSent();
    }

    /** SCTP packets this process's associations have sent so far (for tests and diagnostics). */
    public static long packetsSent() {
        return UsrsctpRuntime.packetsSent();
    }

    /**
     * usrsctp's own counts for this process (its struct sctpstat) of sending and of loss recovery (fast
     * retransmits, retransmission timeouts, SACKs), by name; empty when the stack has not started.
     */
    public static java.util.Map<String, Long> statistics() {
        return StackLifecycle.udpPort() < 0 ? java.util.Map.of() : Usrsctp.statistics();
    }

    /** The most chunks usrsctp keeps queued or unacknowledged per association (so per stream too). */
    public static int maxChunksInFlight() {
        return StackLifecycle.maxChunksInFlight();
    }

    @Override
    public long socketBufferOctets() {
        return 2L * SOCKET_BUFFER;
    }

    @Override
    public String name() {
        return encapsulated ? "usrsctp-udp" : "usrsctp-native";
    }

    @Override
    public Poller newPoller() {
        return new EpollPoller();
    }

    @Override
    public Loop sharedLoop() {
        return SharedLoops.of("usrsctp-loop");
    }

    /** The largest user message that avoids SCTP and IP fragmentation on loopback (RFC 5043 §9). */
    public int maxMessage() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return maxMessage(sctpMtu(loopback, loopback));
    }

    /** The largest message that leaves in one packet of at most {@code sctpMtu} octets. */
    static int maxMessage(int sctpMtu) {
        return sctpMtu - SCTP_COMMON_HEADER - DATA_CHUNK_HEADER;
    }

    /** The largest SCTP packet (common header and chunks) that avoids IP fragmentation between the two. */
    int sctpMtu(InetAddress local, InetAddress remote) {
        return sctpMtu(ipMtu(local, remote), remote != null ? remote : local, encapsulated);
    }

    /** The largest SCTP packet an IP packet of {@code ipMtu} octets to {@code peer} carries. */
    static int sctpMtu(int ipMtu, InetAddress peer, boolean encapsulated) {
        int ipHeader = peer instanceof java.net.Inet6Address ? IPV6_HEADER : IP_HEADER;
        return (ipMtu - ipHeader - (encapsulated ? UDP_HEADER : 0)) & ~3;
    }

    /**
     * The IP MTU towards {@code remote} (null: unknown): the path MTU the kernel knows to it, else the MTU of the
     * interface holding the peer's address if it is this host's, else of the interface holding {@code local}, else
     * the smallest of the interfaces that are up (the wildcard address could use any of them).
     */
    private static int ipMtu(InetAddress local, InetAddress remote) {
        Integer fixed = Integer.getInteger(PATH_MTU_PROPERTY);
        if (fixed != null) {
            return Math.min(fixed, LARGEST_IP_PACKET);
        }
        int known = remote == null ? -1 : org.rddp.posix.Posix.pathMtu(remote);
        if (known > 0) { // the kernel's path MTU to the peer: its route's, what it learned, less IPsec's headers
            return Math.min(known, LARGEST_IP_PACKET);
        }
        try {
            NetworkInterface via = remote == null ? null : NetworkInterface.getByInetAddress(remote);
            if (via == null && remote != null && remote.isLoopbackAddress()) {
                via = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
            }
            if (via == null && local != null && !local.isAnyLocalAddress()) {
                via = NetworkInterface.getByInetAddress(local);
            }
            if (via != null && via.getMTU() > 0) {
                return Math.min(via.getMTU(), LARGEST_IP_PACKET);
            }
            int smallest = LARGEST_IP_PACKET;
            for (NetworkInterface candidate : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (candidate.isUp() && !candidate.isLoopback() && candidate.getMTU() > 0) {
                    smallest = Math.min(smallest, candidate.getMTU());
                }
            }
            return smallest;
        } catch (SocketException e) {
            return 1500; // Ethernet's, the common case
        }
    }

    /**
     * A non-blocking {@code usrsctp_connect}: the INIT leaves through the loop's endpoint at once, and the socket's
     * upcall, raised from inside usrsctp as the handshake ends either way, has the loop look at it. Loop thread.
     */
    @Override
    public Connecting connect(Loop loop, InetSocketAddress local, java.util.List<InetAddress> moreLocal,
            InetSocketAddress remote, int streams, int adaptation, ProtocolParameters parameters, Connected done)
            throws IOException {
        oneAddress(moreLocal);
        if (!loop.inLoop()) {
            throw new IllegalStateException("a connect starts on the loop it will live on, " + loop);
        }
        rawOverIpv4(remote.getAddress());
        RawIpEndpoint raw = encapsulated ? null : LoopEndpoints.raw(loop);
        // a wildcard of the other family than the peer's: this family's, so that the UDP socket can reach it
        InetAddress from = org.rddp.posix.Posix.bindable(local,
                org.rddp.posix.Posix.family(remote.getAddress())).getAddress();
        Links.Endpoint endpoint = encapsulated ? LoopEndpoints.udp(loop, from, false) : raw;
        return PendingConnect.start(this, loop, endpoint, raw, local, remote, streams, adaptation, parameters, done);
    }

    /**
     * The UDP port the peer encapsulates on: the one this stack was made for, else, for a peer in this process, the
     * port of the loop listening at {@code remote}'s SCTP port, else the process's.
     */
    int remoteUdpPort(InetSocketAddress remote) {
        if (remoteUdpPort > 0) {
            return remoteUdpPort;
        }
        int listening = Links.listeningUdpPort(remote.getPort());
        return listening > 0 ? listening : udpPort();
    }

    @Override
    public Listening listen(Loop loop, InetSocketAddress local, java.util.List<InetAddress> moreLocal, int streams,
            int adaptation, ProtocolParameters parameters) throws IOException {
        oneAddress(moreLocal);
        rawOverIpv4(local.getAddress());
        // datagrams to this address and port arrive on this loop's socket, bound to it
        Links.Endpoint endpoint = encapsulated ? LoopEndpoints.udp(loop, local.getAddress(), true)
                : LoopEndpoints.raw(loop);
        return UsrsctpListening.open(loop, endpoint, local, sctpMtu(local.getAddress(), null),
                peer -> sctpMtu(local.getAddress(), peer), streams, adaptation, parameters);
    }

    /**
     * usrsctp runs here as a protocol engine over AF_CONN: its packets go through links of ours, and an AF_CONN
     * address cannot be put in an INIT (RFC 9260 §3.3.2 carries IPv4 and IPv6 addresses only), so an association has
     * exactly one path. Multi-homing needs kernel SCTP.
     */
    private static void oneAddress(java.util.List<InetAddress> moreLocal) throws IOException {
        if (!moreLocal.isEmpty()) {
            throw new IOException("usrsctp here carries one path per association (AF_CONN addresses cannot be put in "
                    + "an INIT): multi-homing over " + moreLocal + " needs kernel SCTP");
        }
    }

    /** SCTP straight over IP runs over IPv4 only here (its raw socket reads IPv4 headers); over UDP, both. */
    private void rawOverIpv4(InetAddress address) throws IOException {
        if (!encapsulated && address instanceof java.net.Inet6Address) {
            throw new IOException("SCTP straight over IPv6 is not supported by the usrsctp backend (its raw socket is "
                    + "IPv4's): use SCTP over UDP (UsrsctpStack.udp()) or kernel SCTP for " + address);
        }
    }

    /** usrsctp's stack lives as long as the process; individual sockets are closed by their owners. */
    @Override
    public void close() {
        // nothing per view
    }
}
