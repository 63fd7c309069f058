package org.rddp.verbs;

import java.net.SocketAddress;

/** A listening endpoint of a {@link ConnectionManager}. */
public interface Listener extends AutoCloseable {
    /** Where it listens (with the port the system chose, if port 0 was asked for). */
    SocketAddress address();

    /** Stops taking requests. */
    @Override
    void close();
}
