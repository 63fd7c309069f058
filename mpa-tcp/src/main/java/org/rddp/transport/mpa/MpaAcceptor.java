package org.rddp.transport.mpa;

import static org.rddp.transport.mpa.MpaConnectionManager.closeQuietly;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rddp.loop.Loop;
import org.rddp.verbs.ConnectionRequest;

/**
 * A listener's socket on its loop, which takes its connections as they come: a bounded number per duty cycle, each
 * one admitted or refused (reset, and reported) by the limits on connections in startup (the manager's memory limit,
 * {@link StartupAdmission} per address, {@link MpaOptions#maxStartups} in all, where a silent one makes room); each
 * one admitted goes to the {@link MpaResponderStartup} on the next of the manager's loops. Loop thread (the
 * listener's).
 */
final class MpaAcceptor implements SelectorPoller.Handler {
    /** Connections a listener takes from the kernel's backlog per duty cycle of its loop. */
    private static final int ACCEPTS_PER_CYCLE = 64;

    private final MpaConnectionManager manager;
    private final MpaResponderStartup responder;
    private final MpaOptions mpa;
    private final Set<ServerSocketChannel> servers;
    private final Set<MpaStartup> startups;
    private final AtomicInteger accepting;
    private final StartupAdmission admission;
    private final ServerSocketChannel server;
    private final Loop loop;
    private final Consumer<ConnectionRequest> handler;
    private boolean watching;

    /**
     * The acceptor of {@code server}, a listener of {@code manager}'s, on {@code loop}: its connections' Requests go
     * to {@code handler} through {@code responder}.
     */
    MpaAcceptor(MpaConnectionManager manager, MpaResponderStartup responder, ServerSocketChannel server, Loop loop,
            Consumer<ConnectionRequest> handler) {
        this.manager = manager;
        this.responder = responder;
        this.mpa = manager.options();
        this.servers = manager.servers;
        this.startups = manager.startups;
        this.accepting = manager.accepting;
        this.admission = manager.admission;
        this.server = server;
        this.loop = loop;
        this.handler = handler;
    }

    void start() {
        try {
            ((SelectorPoller) loop.poller()).watch(server, SelectionKey.OP_ACCEPT, this);
            watching = true;
        } catch (IOException e) {
            servers.remove(server); // closed before its loop got to it
        }
    }

    void stop() {
        if (watching) {
            watching = false;
            ((SelectorPoller) loop.poller()).unwatch();
        }
        closeQuietly(server);
    }

    @Override
    public int ready(int readyOps) {
        return watching ? acceptAll() : 0;
    }

    /** Accepting threw (the heap ran out, say): the listener stays, for the connections that come next. */
    @Override
    public void failed(Throwable error) {
        // reported by the poller; nothing of this listener's is broken
    }

    /** Takes the connections waiting on the listener; each starts up on the next loop. The listener's loop. */
    private int acceptAll() {
        int accepted = 0;
        while (accepted < ACCEPTS_PER_CYCLE) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                stop(); // closed: the listener is gone
                return accepted;
            }
            if (channel == null) {
                return accepted;
            }
            accepted++;
            SocketAddress peer = null;
            String full;
            try {
                peer = channel.getRemoteAddress();
                full = manager.overMemory();
            } catch (IOException e) {
                full = "the connection failed at once: " + e.getMessage();
            }
            InetAddress source = peer instanceof InetSocketAddress address ? address.getAddress() : null;
            if (full == null) {
                full = admission.admit(source);
                if (full == null && startups.size() + accepting.get() >= mpa.maxStartups()) {
                    full = makeRoom();
                    if (full != null) {
                        admission.left(source);
                    }
                }
            }
            if (full != null) {
                try {
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                } catch (IOException e) {
                    // reset or not, it goes
                }
                manager.refuse(peer, new IOException(full)); // told before the peer can see the reset
                closeQuietly(channel);
                continue;
            }
            accepting.incrementAndGet();
            Loop startupLoop = manager.nextLoop();
            SocketAddress from = peer;
            startupLoop.execute(() -> responder.receiveRequest(channel, startupLoop, handler, from, source));
        }
        return accepted;
    }

    /**
     * Every startup slot is taken: resets a connection still waiting for its Request (the oldest of the address with
     * the most), so that a flood of silent connections cannot keep a client out; null when it did, else why the new
     * connection is refused (every startup has its Request in, waiting for the ULP, or is connecting). The acceptor's
     * loop.
     */
    private String makeRoom() {
        MpaStartup oldest = admission.evictable();
        if (oldest == null) {
            return "too many connections in startup: " + mpa.maxStartups() + " (MpaOptions.withLimits), none of them "
                    + "silent";
        }
        oldest.loop().execute(() -> oldest.evict(new IOException("reset to make room: " + mpa.maxStartups()
                + " connections in startup (MpaOptions.withLimits), and this one the oldest still without a "
                + "Request from the address with the most such")));
        return null;
    }
}
