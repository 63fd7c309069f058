package org.rddp.verbs.testing;

import java.net.SocketAddress;
import org.rddp.verbs.ConnectionManager;

/** What the scenario suite needs from a transport: two connection managers and addresses to listen at. */
public interface TransportFixture extends AutoCloseable {
    /** IPv6's loopback address, {@code ::1}: for the scenario suites over IPv6. */
    static java.net.InetAddress ipv6Loopback() {
        try {
            return java.net.InetAddress.getByName("::1");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The initiator's connection manager. */
    ConnectionManager initiator();

    /** The responder's connection manager. */
    ConnectionManager responder();

    /** A fresh address for the responder to listen at. */
    SocketAddress nextAddress();

    /** The MULPDU of the streams, to size messages around segment boundaries. */
    int mulpdu();

    /**
     * Whether connection setup negotiates IRD/ORD and the peer-to-peer model (RFC 6581). Without it (MPA
     * revision 1) the ULPs must agree on depths themselves, and peer-to-peer setup is refused.
     */
    default boolean enhancedSetup() {
        return true;
    }

    /** Whether its streams tell the paths of their connections ({@code LlpStream.paths()}): real transports do. */
    default boolean tellsPaths() {
        return true;
    }

    @Override
    void close();
}
