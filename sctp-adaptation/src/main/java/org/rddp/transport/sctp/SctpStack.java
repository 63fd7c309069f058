package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.rddp.loop.Deadline;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;

/**
 * An SCTP implementation the adaptation can run on: the kernel's, or a user-space one. Its sockets belong to a
 * {@link Loop} whose poller ({@link #newPoller()}) owns the descriptors their packets or readiness come through: a
 * socket's ready hook is run by that loop (or, for usrsctp, by whichever loop is inside usrsctp: its own reading a
 * packet, or another driving usrsctp's clock; the hook then only queues work for the socket's loop).
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
     * Starts an association to {@code remote}, bound to {@code local}'s address only, with {@code streams} streams
     * each way and the given Adaptation Layer Indication in the INIT, on {@code loop}. On {@code loop}'s owner thread,
     * and it never blocks: {@code done} runs there once, with the established socket or with why there is none. The
     * stack sets no deadline of its own (the caller does, with {@link Loop#schedule}, and
     * {@linkplain Connecting#abandon() abandons} what is late).
     *
     * The socket detects failures with {@code parameters} (RTO bounds, retransmission limits, heartbeats), and binds
     * the addresses of {@code moreLocal} besides {@code local}'s (multi-homing, RFC 9260 §6.4; RFC 5043 §7.2 binds
     * one unless the user asks for more): the peer learns them from the INIT.
     *
     * @throws IOException the association could not even be started (no socket, no route, a stack that cannot bind
     *                     more than one address); {@code done} never runs
     */
    Connecting connect(Loop loop, InetSocketAddress local, java.util.List<java.net.InetAddress> moreLocal,
            InetSocketAddress remote, int streams, int adaptation, ProtocolParameters parameters, Connected done)
            throws IOException;

    /**
     * {@link #connect(Loop, InetSocketAddress, java.util.List, InetSocketAddress, int, int, ProtocolParameters,
     * Connected)} bound to {@code local} only.
     */
    default Connecting connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams,
            int adaptation, ProtocolParameters parameters, Connected done) throws IOException {
        return connect(loop, local, java.util.List.of(), remote, streams, adaptation, parameters, done);
    }

    /**
     * {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int, ProtocolParameters, Connected)} with
     * {@link ProtocolParameters#defaults()}.
     */
    default Connecting connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams,
            int adaptation, Connected done) throws IOException {
        return connect(loop, local, remote, streams, adaptation, ProtocolParameters.defaults(), done);
    }

    /**
     * {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int, Connected)} from another thread, waiting
     * up to {@code timeout} for the handshake: for raw test peers and tools. The loop runs it (a manual loop is driven
     * by this thread meanwhile, which must be its owner); not on the thread of a loop with a thread of its own, which
     * could not run the handshake while it waits.
     */
    default SctpSocket connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams,
            int adaptation, java.time.Duration timeout) throws IOException {
        return connect(loop, local, remote, streams, adaptation, ProtocolParameters.defaults(), timeout);
    }

    /**
     * {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int, java.time.Duration)} with
     * {@code parameters}.
     */
    default SctpSocket connect(Loop loop, InetSocketAddress local, InetSocketAddress remote, int streams,
            int adaptation, ProtocolParameters parameters, java.time.Duration timeout) throws IOException {
        return connect(loop, local, java.util.List.of(), remote, streams, adaptation, parameters, timeout);
    }

    /**
     * {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int, ProtocolParameters, java.time.Duration)}
     * bound to the addresses of {@code moreLocal} too (multi-homing).
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever the stack throws must reach the waiting caller
    default SctpSocket connect(Loop loop, InetSocketAddress local, java.util.List<java.net.InetAddress> moreLocal,
            InetSocketAddress remote, int streams, int adaptation, ProtocolParameters parameters,
            java.time.Duration timeout) throws IOException {
        if (loop.inLoop() && !loop.manual()) {
            throw new IllegalStateException("the SCTP handshake comes through " + loop + ", which cannot run it while "
                    + "its own thread waits for it: connect from another thread, or without waiting");
        }
        java.util.concurrent.CompletableFuture<SctpSocket> result = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> {
            try {
                Connecting connecting = connect(loop, local, moreLocal, remote, streams, adaptation, parameters,
                        (socket, failure) -> {
                    if (socket == null) {
                        result.completeExceptionally(failure);
                    } else if (!result.complete(socket)) {
                        socket.close(); // whoever waited is gone
                    }
                });
                Deadline late = loop.schedule(System.nanoTime() + timeout.toNanos(), () -> {
                    connecting.abandon();
                    result.completeExceptionally(new IOException("SCTP connect to " + remote + " timed out after "
                            + timeout.toMillis() + " ms"));
                });
                result.whenComplete((socket, failure) -> loop.runNowOrLater(late::cancel));
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return loop.join(result, timeout.plusSeconds(1));
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("SCTP connect to " + remote + " timed out after " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while connecting to " + remote);
        }
    }

    /**
     * {@link #connect(Loop, InetSocketAddress, InetSocketAddress, int, int, java.time.Duration)} on the
     * {@link #sharedLoop()}, waiting up to {@link #CONNECT_TIMEOUT}.
     */
    default SctpSocket connect(InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation)
            throws IOException {
        return connect(sharedLoop(), local, remote, streams, adaptation, CONNECT_TIMEOUT);
    }

    /** How long a waiting {@link #connect(InetSocketAddress, InetSocketAddress, int, int)} waits for the handshake. */
    java.time.Duration CONNECT_TIMEOUT = java.time.Duration.ofSeconds(60);

    /** What a connect ends with: the socket, or null and why. On the loop. */
    @FunctionalInterface
    interface Connected {
        void done(SctpSocket socket, IOException failure);
    }

    /** A connect under way. */
    interface Connecting {
        /** Gives up: the half-made association is closed and {@code done} never runs. Loop thread; idempotent. */
        void abandon();
    }

    /**
     * Listens at {@code local} (that address only, and those of {@code moreLocal}: multi-homing), on {@code loop};
     * accepted associations offer {@code streams} streams each way, detect failures with {@code parameters}, and
     * live on the same loop.
     */
    Listening listen(Loop loop, InetSocketAddress local, java.util.List<java.net.InetAddress> moreLocal, int streams,
            int adaptation, ProtocolParameters parameters) throws IOException;

    /** {@link #listen(Loop, InetSocketAddress, java.util.List, int, int, ProtocolParameters)} at {@code local} only. */
    default Listening listen(Loop loop, InetSocketAddress local, int streams, int adaptation,
            ProtocolParameters parameters) throws IOException {
        return listen(loop, local, java.util.List.of(), streams, adaptation, parameters);
    }

    /** {@link #listen(Loop, InetSocketAddress, int, int, ProtocolParameters)} with the default parameters. */
    default Listening listen(Loop loop, InetSocketAddress local, int streams, int adaptation) throws IOException {
        return listen(loop, local, streams, adaptation, ProtocolParameters.defaults());
    }

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
