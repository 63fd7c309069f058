package org.rddp.exs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.EnumSet;
import org.rddp.loop.Progress;
import org.rddp.verbs.Access;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.Transports;

/**
 * The Extended Sockets API over this stack ({@code exs_init}): one per transport a program uses. It registers
 * memory, makes event queues and sockets; the transport is the connection manager given here (TCP/MPA, SCTP, or the
 * in-memory LLP), so an EXS program is the same over each.
 */
public final class Exs implements AutoCloseable {
    private final ConnectionManager manager;
    private final String scheme;
    private final boolean owned;
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    /** The thread that drives the transport's loop, when {@link #open(URI, Progress)} made it manual; else null. */
    private final Thread driver;

    private Exs(ConnectionManager manager, String scheme, boolean owned, Thread driver) {
        this.manager = manager;
        this.scheme = scheme;
        this.owned = owned;
        this.driver = driver;
        this.device = new RdmaDevice("exs");
        this.pd = device.allocateProtectionDomain();
    }

    /** EXS over the transport {@code manager} sets up connections on; the caller closes the manager. */
    public static Exs init(ConnectionManager manager) {
        return new Exs(manager, null, false, null);
    }

    /**
     * EXS over the installed transport the URI's scheme names ({@code mpa://}, {@code sctp://}, or {@code exs://}
     * for {@link #defaultScheme()}), its connections leaving from the URI's host (loopback when it has none), as in
     * {@code Exs.open(URI.create("sctp://192.0.2.1"))}. {@link #close} closes the transport.
     *
     * @throws IllegalArgumentException when no such transport is installed
     * @throws IOException              when it cannot run here, saying why
     */
    public static Exs open(URI local) throws IOException {
        return open(local, Progress.automatic());
    }

    /**
     * As {@link #open(URI)}, the transport's loops driven as {@code progress} says. With {@link Progress#manual()}
     * the calling thread drives the transport whenever it dequeues, polls or awaits on this instance's queues, and
     * no other thread may: a program with one thread per connection end (a latency-bound one, typically) then reads
     * its own sockets with no hand-off between threads. Its queues are {@link ExsQueue.Driver#CALLER} queues.
     *
     * @throws IllegalArgumentException when no such transport is installed
     * @throws IOException              when it cannot run here, saying why
     */
    public static Exs open(URI local, Progress progress) throws IOException {
        String scheme = local.getScheme() == null || local.getScheme().equals("exs") ? defaultScheme()
                : local.getScheme();
        InetAddress address = local.getHost() == null ? InetAddress.getLoopbackAddress()
                : InetAddress.getByName(local.getHost());
        return new Exs(Transports.open(scheme, address, progress), scheme.toLowerCase(java.util.Locale.ROOT), true,
                progress.isManual() ? Thread.currentThread() : null);
    }

    /**
     * The transport this machine has for EXS: {@code sctp} where SCTP runs (the kernel's, or usrsctp's library),
     * else {@code mpa}.
     */
    public static String defaultScheme() {
        return Transports.schemes().contains("sctp") && Transports.unavailable("sctp") == null ? "sctp" : "mpa";
    }

    /** The transport's URI scheme, or null for one given as a connection manager. */
    public String scheme() {
        return scheme;
    }

    /** Closes the transport, if {@link #open} made it: every connection on it ends. */
    @Override
    public void close() throws IOException {
        if (owned) {
            manager.close();
        }
    }

    /**
     * The socket address a URI names ({@code sctp://host:port}), checking that its scheme is this transport's.
     *
     * @throws IllegalArgumentException when it names another transport or no port
     */
    SocketAddress address(URI uri) {
        if (uri.getScheme() != null && scheme != null && !uri.getScheme().equalsIgnoreCase(scheme)
                && !uri.getScheme().equals("exs")) {
            throw new IllegalArgumentException(uri + " names the " + uri.getScheme() + " transport; this EXS runs "
                    + "over " + scheme);
        }
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException(uri + " names no host and port");
        }
        return new InetSocketAddress(uri.getHost(), uri.getPort());
    }

    /** Registers {@code memory} for sends and receives ({@code exs_mregister}). */
    public ExsMemory register(MemorySegment memory) {
        return new ExsMemory(pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND)));
    }

    /**
     * An event queue ({@code exs_qcreate}) driven by the threads that dequeue or await on it: its sockets'
     * operations complete on it.
     */
    public ExsQueue createQueue() {
        return createQueue(ExsQueue.Driver.CALLER);
    }

    /**
     * An event queue driven as {@code queueDriver} says.
     *
     * @throws IllegalArgumentException a queue with a thread of its own on a transport its opener drives
     */
    public ExsQueue createQueue(ExsQueue.Driver queueDriver) {
        return createQueue(queueDriver, ExsQueue.DEFAULT_COMPLETIONS);
    }

    /**
     * An event queue driven as {@code queueDriver} says, whose sockets may have {@code completions} outstanding
     * together ({@value ExsQueue#DEFAULT_COMPLETIONS} by default: about 120 connections of 16 credits; a connection
     * of {@code c} credits reserves {@code 8c + 4}).
     *
     * @throws IllegalArgumentException a queue with a thread of its own on a transport its opener drives, or
     *                                  {@code completions} outside {@value ExsQueue#MIN_COMPLETIONS} to
     *                                  {@value ExsQueue#MAX_COMPLETIONS}
     */
    public ExsQueue createQueue(ExsQueue.Driver queueDriver, int completions) {
        if (queueDriver == ExsQueue.Driver.THREAD && driver != null) {
            throw new IllegalArgumentException("this EXS's transport is driven by " + driver.getName()
                    + ", which opened it (Progress.manual()): a queue with a thread of its own would never move");
        }
        return new ExsQueue(this, queueDriver, completions);
    }

    /**
     * Checks that the calling thread may wait on this instance's queues: any may, unless the transport is driven
     * by the thread that opened it.
     *
     * @throws IllegalStateException when another thread drives it
     */
    void checkDriver() {
        if (driver != null && driver != Thread.currentThread()) {
            throw new IllegalStateException("this EXS's transport is driven by " + driver.getName()
                    + ", which opened it (Progress.manual()); " + Thread.currentThread().getName()
                    + " cannot wait on its queues: nothing would move");
        }
    }

    /** A new socket whose events go to {@code queue} ({@code exs_socket}). */
    public ExsSocket socket(ExsQueue queue) {
        if (queue.exs != this) {
            throw new IllegalArgumentException("the queue belongs to another EXS instance");
        }
        return new ExsSocket(this, queue);
    }

    ConnectionManager manager() {
        return manager;
    }

    RdmaDevice device() {
        return device;
    }

    ProtectionDomain pd() {
        return pd;
    }
}
