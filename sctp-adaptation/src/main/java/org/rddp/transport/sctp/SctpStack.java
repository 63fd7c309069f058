package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;

/**
 * An SCTP implementation the adaptation can run on: the kernel's, or a user-space one. Its sockets belong to a
 * {@link Loop} whose poller ({@link #newPoller()}) owns the descriptors their packets or readiness come through: a
 * socket's ready hook is run by that loop (or, for usrsctp, by whichever thread feeds usrsctp, its timer included).
 */
public interface SctpStack extends AutoCloseable {

    /** A short name for messages and benchmark tables ({@code usrsctp-udp}, {@code kernel}, ...). */
    String name();

    /** The send and receive socket buffers the stack gives each association, in octets together. */
    long socketBufferOctets();

    /** The I/O of a loop that runs this stack's sockets. */
    Poller newPoller();

    /** A loop with a thread of its own, shared by the sockets of this stack that are given no loop. */
    Loop sharedLoop();

    /**
     * Opens an association to {@code remote}, bound to {@code local}'s address only, with {@code streams} streams
     * each way and the given Adaptation Layer Indication in the INIT, on {@code loop}. Blocks until established:
     * not on {@code loop}'s own thread, which must run meanwhile (usrsctp's handshake comes through it).
     */
    SctpSocket connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation)
            throws IOException;

    /** {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int)} on the {@link #sharedLoop()}. */
    default SctpSocket connect(InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation)
            throws IOException {
        return connect(sharedLoop(), local, remote, streams, adaptation);
    }

    /**
     * Listens at {@code local} (that address only), on {@code loop}; accepted associations offer {@code streams}
     * streams each way, and live on the same loop.
     */
    Listening listen(Loop loop, InetSocketAddress local, int streams, int adaptation) throws IOException;

    /** {@link #listen(Loop, InetSocketAddress, int, int)} on the {@link #sharedLoop()}. */
    default Listening listen(InetSocketAddress local, int streams, int adaptation) throws IOException {
        return listen(sharedLoop(), local, streams, adaptation);
    }

    /** A listening socket. */
    interface Listening extends AutoCloseable {
        /** The bound address, with the chosen port. */
        InetSocketAddress address();

        /** The loop it and its associations live on. */
        Loop loop();

        /**
         * Starts accepting: every new association goes to {@code onAssociation}, on the listener's loop (nothing
         * blocks in accept, so closing never races a blocked call).
         */
        void start(java.util.function.Consumer<SctpSocket> onAssociation);

        @Override
        void close();
    }

    @Override
    void close();
}
