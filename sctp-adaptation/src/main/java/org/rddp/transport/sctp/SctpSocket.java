package org.rddp.transport.sctp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One SCTP association as a one-to-one socket (RFC 6458 style), as small as the adaptation needs. Non-blocking:
 * {@link #send} and {@link #receive} return {@link #WOULD_BLOCK} rather than wait, and the socket calls its
 * ready hook when it may have become readable or writable. Sends come from one thread at a time and receives
 * from one thread at a time (the two may differ); {@link #close} from any.
 */
public interface SctpSocket extends AutoCloseable {
    /** Nothing could be done now; the ready hook fires when it may be. */
    int WOULD_BLOCK = -1;

    /** Installs the hook the backend calls, on any thread and quickly, when the socket may be ready. */
    void onReady(Runnable hook);

    /**
     * Sends {@code length} octets at {@code offset} of {@code data} (native memory) as one user message.
     *
     * @param unordered the DATA chunk's U bit
     * @param ppid      the payload protocol identifier, as a number (the backend puts it in network order)
     * @return {@code length}, or {@link #WOULD_BLOCK}
     * @throws IOException if the association is gone
     */
    int send(MemorySegment data, long offset, int length, int streamId, int ppid, boolean unordered)
            throws IOException;

    /**
     * Receives one whole message or notification into {@code buffer} (native memory) and describes it in
     * {@code into}.
     *
     * @return the octets received, or {@link #WOULD_BLOCK}
     * @throws IOException if the association is gone
     */
    int receive(MemorySegment buffer, ReceivedMessage into) throws IOException;

    /** The peer's primary address. */
    java.net.InetSocketAddress remoteAddress();

    /** Whether a send would find room now. */
    boolean writable();

    /**
     * Lets the stack hold small messages while data is in flight and bundle them into full packets (Nagle on:
     * {@code SCTP_NODELAY} off), or sends each message as soon as it may (off, the default). A sender that knows it is
     * in the middle of a burst turns it on, and off again before the burst's last message, which then takes what was
     * held out with it. Owner thread; a backend that cannot does nothing.
     */
    default void bundle(boolean on) throws IOException {
        // each message goes as it comes
    }

    /**
     * Whether every DATA chunk handed to the stack so far has been acknowledged by the peer's SCTP (SCTP_STATUS
     * reports no unacknowledged DATA chunk: with nothing in flight a stack holds nothing back either, since Nagle
     * waits only for data in flight and a closed window still lets one chunk go, RFC 9260 §6.1). RFC 5043 §6.6 reuses
     * a stream only once no chunk of its previous session may be outstanding. Owner thread; a backend that cannot
     * tell says true.
     */
    default boolean allSentAcknowledged() {
        return true;
    }

    /**
     * DATA chunks the stack sent again on this association so far (a timeout or a fast retransmit), or -1 when the
     * stack does not count them per association (usrsctp counts them for the process: {@code Counter}). Owner thread.
     */
    default long retransmittedChunks() {
        return -1;
    }

    /**
     * The protocol parameters the stack applies to this association, read back from it (RTO bounds, retransmission
     * limits, the potentially-failed threshold, heartbeats). Owner thread.
     *
     * @throws IOException the stack would not say
     */
    default ProtocolParameters protocolParameters() throws IOException {
        throw new IOException("this socket does not tell its protocol parameters");
    }

    /** The association's paths, as the stack sees them now; empty when it does not say. Owner thread. */
    default java.util.List<org.rddp.llp.LlpPath> paths() {
        return java.util.List.of();
    }

    /**
     * Makes the path to {@code peer} the association's primary path ({@code SCTP_PRIMARY_ADDR}). Owner thread.
     *
     * @throws IOException the association has no path to {@code peer}, or the stack cannot choose
     */
    default void choosePrimaryPath(InetSocketAddress peer) throws IOException {
        throw new IOException("this association has one path: there is no other to choose");
    }

    /** Outbound streams of the association (equal to the inbound ones on a DDP association, RFC 5043 §8). */
    int streams();

    /** The largest user message that avoids SCTP and IP fragmentation on the path when the association started. */
    int maxMessage();

    /**
     * The largest user message that avoids SCTP and IP fragmentation on the path now, as the stack learned it (path
     * MTU discovery, RFC 5043 §9); {@link #maxMessage()} for a stack that does not follow the path. Owner thread.
     */
    default int currentMaxMessage() {
        return maxMessage();
    }

    /**
     * Whether the stack learned of a change in the path MTU since {@link #currentMaxMessage()} was last asked, for a
     * backend that learns of it as packets go (usrsctp: the kernel refused one) rather than by being asked. Called at
     * every poll: a field's read. Owner thread.
     */
    default boolean pathMtuLearned() {
        return false;
    }

    /**
     * Starts a graceful shutdown (SHUTDOWN) and keeps the socket until the association is down, which
     * {@link #receive} reports ({@link ReceivedMessage#ASSOCIATION_DOWN}); {@link #close} frees it then. A backend
     * whose stack finishes a shutdown by itself (the kernel's) just closes. Owner thread.
     */
    default void shutdown() {
        close();
    }

    /** Closes gracefully (SHUTDOWN) and frees the socket. Any thread. */
    @Override
    void close();

    /** Aborts the association (ABORT) and frees the socket. Any thread. */
    void abort();

    /** What {@link #receive} got. */
    final class ReceivedMessage {
        /** A data message. */
        public static final int DATA = 0;
        /** The peer's Adaptation Layer Indication; {@link #value} holds it. */
        public static final int ADAPTATION = 1;
        /** The association went down (lost, or shut down by the peer); {@link #value} says how, if known. */
        public static final int ASSOCIATION_DOWN = 2;
        /** {@link #ASSOCIATION_DOWN}: the peer aborted or stopped answering (SCTP_COMM_LOST). */
        public static final int LOST = 1;
        /** {@link #ASSOCIATION_DOWN}: the graceful shutdown completed (SCTP_SHUTDOWN_COMP). */
        public static final int SHUT_DOWN = 2;
        /** {@link #ASSOCIATION_DOWN}: the association could not be set up (SCTP_CANT_STR_ASSOC). */
        public static final int NOT_STARTED = 3;
        /** The peer started a graceful shutdown. */
        public static final int SHUTDOWN = 3;
        /** Any other notification. */
        public static final int OTHER = 4;
        /**
         * One of the association's paths changed (SCTP_PEER_ADDR_CHANGE): {@link #path} is its peer address,
         * {@link #value} what happened ({@link #PATH_STATES}, by the kernel's code points).
         */
        public static final int PATH_CHANGE = 5;
        /** What {@link #PATH_CHANGE}'s value means, by index: RFC 6458 §6.1.2's states. */
        public static final java.util.List<String> PATH_STATES = java.util.List.of("available",
                "unreachable", "removed", "added", "made the primary path", "confirmed", "potentially failed");

        /** One of the constants above. */
        public int kind;
        /** Data: the SCTP stream. */
        public int streamId;
        /** Data: the PPID, as a number. */
        public int ppid;
        /** Data: the U bit was set. */
        public boolean unordered;
        /** Data: the whole message fit (MSG_EOR). */
        public boolean complete;
        /** {@link #ADAPTATION}: the indication; {@link #ASSOCIATION_DOWN}: {@link #LOST}, {@link #SHUT_DOWN},
         * {@link #NOT_STARTED}, or 0 (the socket ended without saying). */
        public int value;
        /** {@link #PATH_CHANGE}: the path's peer address. */
        public InetSocketAddress path;

        /** An empty description, filled by {@link SctpSocket#receive}. */
        public ReceivedMessage() {
            // filled by receive
        }
    }
}
