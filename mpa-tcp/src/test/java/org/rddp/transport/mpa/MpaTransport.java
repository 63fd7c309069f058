package org.rddp.transport.mpa;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.rddp.loop.Progress;
import org.rddp.verbs.testing.TransportFixture;

/** TCP/MPA on loopback as a scenario-suite transport: two managers, each with its own MPA options. */
final class MpaTransport implements TransportFixture {
    /**
     * Ports for the listeners of this JVM: one counter, so that no two tests ask for the same one, below the
     * ephemeral range (32768 up) that connecting sockets take theirs from.
     */
    private static final java.util.concurrent.atomic.AtomicInteger PORTS = new java.util.concurrent.atomic
            .AtomicInteger(10000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(5000));
    private final MpaConnectionManager initiator;
    private final MpaConnectionManager responder;
    /** Where both ends are: IPv4's loopback, or IPv6's. */
    private final InetAddress address;

    /** Both sides with {@code options}. */
    MpaTransport(MpaOptions options) {
        this(options, options);
    }

    /** The initiator with {@code initiatorOptions}, the responder with {@code responderOptions}. */
    MpaTransport(MpaOptions initiatorOptions, MpaOptions responderOptions) {
        this(initiatorOptions, responderOptions, Progress.automatic());
    }

    /** Both sides with {@code options}, their loops driven as {@code progress} says (manual: by this thread). */
    MpaTransport(MpaOptions initiatorOptions, MpaOptions responderOptions, Progress progress) {
        this(initiatorOptions, responderOptions, progress, InetAddress.getLoopbackAddress());
    }

    /** As above, both ends at {@code address} (IPv6's loopback, say). */
    MpaTransport(MpaOptions initiatorOptions, MpaOptions responderOptions, Progress progress, InetAddress address) {
        this.address = address;
        initiator = new MpaConnectionManager(initiatorOptions, address, progress);
        responder = new MpaConnectionManager(responderOptions, address, progress);
    }

    @Override
    public MpaConnectionManager initiator() {
        return initiator;
    }

    @Override
    public MpaConnectionManager responder() {
        return responder;
    }

    @Override
    public SocketAddress nextAddress() {
        return new InetSocketAddress(address, PORTS.incrementAndGet());
    }

    @Override
    public int mulpdu() {
        int mtu = Math.min(mtuOf(initiator), mtuOf(responder));
        return MpaConnectionManager.mulpdu(address, initiator.options().markers()
                || responder.options().markers(), mtu == Integer.MAX_VALUE ? 0 : mtu, initiator.options().mptcp());
    }

    /** The MTU {@code manager} cuts FPDUs for; the loopback's own is larger than any set one. */
    private static int mtuOf(MpaConnectionManager manager) {
        return manager.options().mtu() == 0 ? Integer.MAX_VALUE : manager.options().mtu();
    }

    @Override
    public boolean enhancedSetup() {
        return initiator.options().revision() >= 2 && responder.options().revision() >= 2;
    }

    @Override
    public void close() {
        initiator.close();
        responder.close();
    }

    /** The channels on the manager's one loop's selector, counted on that loop (after what was queued before). */
    static int registered(MpaConnectionManager manager) throws Exception {
        org.rddp.loop.Loop loop = manager.loops().getFirst();
        java.util.concurrent.CompletableFuture<Integer> count = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> count.complete(((SelectorPoller) loop.poller()).registered()));
        return count.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * The channels on the manager's one loop once they are {@code expected}, or what they are after 30 s: each look
     * is a command on the loop, after what it had to do (the peer's FIN to read, say).
     */
    static int awaitRegistered(MpaConnectionManager manager, int expected) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        int now = registered(manager);
        while (now != expected && System.nanoTime() - deadline < 0) {
            Thread.yield();
            now = registered(manager);
        }
        return now;
    }
}
