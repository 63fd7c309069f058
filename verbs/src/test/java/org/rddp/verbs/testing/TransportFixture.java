package org.rddp.verbs.testing;

import java.net.SocketAddress;
import org.rddp.verbs.ConnectionManager;

/** What the scenario suite needs from a transport: two connection managers and addresses to listen at. */
public interface TransportFixture extends AutoCloseable {
    /** The initiator's connection manager. */
    ConnectionManager initiator();

    /** The responder's connection manager. */
    ConnectionManager responder();

    /** A fresh address for the responder to listen at. */
    SocketAddress nextAddress();

    /** The MULPDU of the streams, to size messages around segment boundaries. */
    int mulpdu();

    @Override
    void close();
}
