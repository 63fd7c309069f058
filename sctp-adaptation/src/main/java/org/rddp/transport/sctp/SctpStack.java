package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetSocketAddress;

/** An SCTP implementation the adaptation can run on: the kernel's, or a user-space one. */
public interface SctpStack extends AutoCloseable {

    /** A short name for messages and benchmark tables ({@code usrsctp-udp}, {@code kernel}, ...). */
    String name();

    /**
     * Opens an association to {@code remote}, bound to {@code local}'s address only, with {@code streams}
     * streams each way and the given Adaptation Layer Indication in the INIT. Blocks until established.
     */
    SctpSocket connect(InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation)
            throws IOException;

    /** Listens at {@code local} (that address only); accepted associations offer {@code streams} streams each way. */
    Listening listen(InetSocketAddress local, int streams, int adaptation) throws IOException;

    /** A listening socket. */
    interface Listening extends AutoCloseable {
        /** The bound address, with the chosen port. */
        InetSocketAddress address();

        /**
         * Starts accepting: every new association goes to {@code onAssociation}, on the listener's own thread
         * (nothing blocks in accept, so closing never races a blocked call).
         */
        void start(java.util.function.Consumer<SctpSocket> onAssociation);

        @Override
        void close();
    }

    @Override
    void close();
}
