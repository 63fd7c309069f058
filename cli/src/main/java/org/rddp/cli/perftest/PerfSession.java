package org.rddp.cli.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rddp.cli.Completions;
import org.rddp.cli.Driver;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.cli.perftest.Perftest.Dest;
import org.rddp.cli.perftest.Perftest.Test;
import org.rddp.work.QpState;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;

/**
 * One side of one perftest-style run, the perftest protocol itself (see {@link Perftest}): sets up the control and
 * data connections, exchanges buffers and handshakes, has the test family run each size ({@link BandwidthTests},
 * {@link LatencyTests}), hands each size's result on and ends the connections. Single-threaded: the data queue pairs
 * share one completion queue, polled round-robin as perftest does.
 *
 * <p>Each data queue pair has a buffer of two halves, as perftest's: the first is the source of this side's
 * Writes and Sends and the sink of its Reads, the second is what it advertises (the target of the peer's Writes,
 * the source of its Reads, where Sends are received). Messages of at most half a page cycle through the page, one
 * cache-line-aligned slot after another; larger ones all use offset 0.
 *
 * <p>With {@code verify}, sources hold a pattern that depends on the offset only, so the receiving side checks
 * what landed: every received Send, every Write ping-pong message, every Read, and after a Write bandwidth run
 * every slot written. Both sides must be rddp with {@code --verify} (perftest's buffers hold other data).
 */
public final class PerfSession {
    static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    static final ValueLayout.OfInt CREDIT_VALUE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final VarHandle CREDIT = CREDIT_VALUE.varHandle();
    static final int CREDIT_SOURCE = 0;
    static final int CREDIT_SINK = 4;
    /** How long the end of a run waits for the peer to answer its disconnect before the connections are closed. */
    static final Duration DISCONNECT_WAIT = Duration.ofSeconds(5);
    static final int CONNECT_ATTEMPTS = 10;
    static final java.util.Random PSN = new java.util.Random(); // printed only, as perftest's lrand48
    static final Duration CONNECT_PAUSE = Duration.ofMillis(100);
    static final Duration PROGRESS = Duration.ofSeconds(2);
    /** The slowest round trips perftest leaves out of a latency report. */
    static final int LATENCY_TAIL = 2;
    /** How long a server waits in a handshake while the client runs: the connection ending ends the wait. */
    static final Duration WHILE_PEER_RUNS = Duration.ofDays(1);

    /**
     * What to run; both sides need the same.
     *
     * @param test       which test
     * @param sizes      message sizes, in order
     * @param iterations messages per size and queue pair (0 with a duration)
     * @param seconds    run this long instead of a number of iterations (bandwidth only; 0: iterations)
     * @param txDepth    work requests outstanding per queue pair
     * @param rxDepth    receives posted per queue pair (Sends)
     * @param qps        data queue pairs
     * @param verify     check the data that lands
     * @param timeout    how long one step waits for the peer
     * @param cqMod      bandwidth clients: one work request in this many is signaled (perftest's {@code --cq-mod},
     *                   at most the tx depth); the others complete unseen with it
     * @param postList   bandwidth clients: work requests posted per call (perftest's {@code --post-list})
     * @param rate       {@code send-lat} clients: Sends offered a second, each on its schedule whatever the echoes
     *                   do (at most the tx and rx depths in flight), and the round trip of each timed from when it
     *                   was due; 0: ping-pong, one at a time, as perftest. {@code write-lat} (both sides): the same
     *                   with an RDMA Write and a notifying Send of no data for each message, each way
     */
    public record Settings(Test test, List<Integer> sizes, int iterations, int seconds, int txDepth, int rxDepth,
            int qps, boolean verify, Duration timeout, int cqMod, int postList, int rate) {
        /** perftest's default: one in 100 signaled. */
        public static final int CQ_MOD = 100;

        /** With perftest's defaults: one request in {@link #CQ_MOD} signaled, posted one by one. */
        public Settings(Test test, List<Integer> sizes, int iterations, int seconds, int txDepth, int rxDepth,
                int qps, boolean verify, Duration timeout) {
            this(test, sizes, iterations, seconds, txDepth, rxDepth, qps, verify, timeout, CQ_MOD, 1);
        }

        /** Without an offered rate: latency as ping-pong. */
        public Settings(Test test, List<Integer> sizes, int iterations, int seconds, int txDepth, int rxDepth,
                int qps, boolean verify, Duration timeout, int cqMod, int postList) {
            this(test, sizes, iterations, seconds, txDepth, rxDepth, qps, verify, timeout, cqMod, postList, 0);
        }

        public Settings {
            if (cqMod < 1 || postList < 1) {
                throw new IllegalArgumentException("--cq-mod and --post-list are at least 1");
            }
            if (rate < 0 || (rate > 0 && test != Test.SEND_LAT && test != Test.WRITE_LAT)) {
                throw new IllegalArgumentException("an offered rate is for send-lat and write-lat, and positive");
            }
            sizes = List.copyOf(sizes);
            if (iterations < 0 || seconds < 0 || (iterations == 0) == (seconds == 0)) {
                throw new IllegalArgumentException("give either iterations or a duration");
            }
            if (seconds > 0 && !test.bandwidth) {
                throw new IllegalArgumentException("a duration is for bandwidth tests: give iterations (-n)");
            }
            if (seconds > 0 && sizes.size() > 1) {
                throw new IllegalArgumentException("a duration runs one size, not all sizes (as perftest)");
            }
            if (!test.bandwidth && qps != 1) {
                throw new IllegalArgumentException("latency tests run one queue pair");
            }
            if (qps < 1 || txDepth < 1 || rxDepth < 1) {
                throw new IllegalArgumentException("queue pairs, tx depth and rx depth are at least 1");
            }
            for (int size : sizes) {
                if (size < 1 || size > Perftest.MAX_SIZE) {
                    throw new IllegalArgumentException("size " + size + " outside 1.." + Perftest.MAX_SIZE);
                }
            }
        }

        int largest() {
            return sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
        }
    }

    final Settings settings;
    final Test test;
    final boolean client;
    final Consumer<String> info;
    final Consumer<String> progress;
    private final Arena arena = Arena.ofAuto(); // freed when unreachable: no late access can fault
    final ProtectionDomain pd;
    final ControlChannel control;
    final Completions completions;
    final CompletionQueue cq;
    final List<DataQp> qps = new ArrayList<>();
    final BandwidthTests bandwidthTests = new BandwidthTests(this);
    final LatencyTests latencyTests = new LatencyTests(this);
    Driver driver = Driver.NONE;
    /** The client's data connections as they were set up, once they are. */
    private Setup setup;
    /** {@code --timeline}: where a bandwidth run's second-by-second lines go, or null. */
    Consumer<String> timeline;
    /** {@code --primary-path}: the server's address the client's data connections make their primary path, or null. */
    java.net.InetAddress primaryPath;
    /** {@code --reversed}: send-bw's Sends go from the server to the client. Both ends agree on it. */
    public boolean reversed;
    /** Where a send-bw receiver notes each message's arrival (a failover point), or null. */
    public Arrivals arrivals;
    /** {@code --mptcp}: each data connection's paths (its subflows) are printed as the run ends. */
    boolean showPaths;
    /**
     * A data connection that does not run Multipath TCP fails the run (a comparison's MPTCP series, which must not
     * present TCP's figures as MPTCP's).
     */
    public boolean mptcpOnly;
    int cycle = Perftest.CYCLE_BUFFER;
    int cacheLine = Perftest.CACHE_LINE;
    int half;
    final int txDepth;
    final int rxDepth;

    /** One data connection: its queue pair, buffer, credit buffer, and what the peer advertised. */
    static final class DataQp {
        QueuePair qp;
        MemoryRegion buffer;
        MemoryRegion credit;
        Dest mine;
        Dest remote = Dest.ZERO;
        long posted;
        long completed;
        /** Posted since its last signaled request (--cq-mod). */
        int unsignaled;
        long received;
        long receivesPosted;
        int exchanged;
    }

    public PerfSession(RdmaDevice device, Settings settings, boolean client, Consumer<String> info,
            Consumer<String> progress) {
        this.settings = settings;
        this.test = settings.test();
        this.client = client;
        this.info = info;
        this.progress = progress;
        int iterations = settings.iterations() > 0 ? settings.iterations() : Integer.MAX_VALUE;
        txDepth = Math.min(settings.txDepth(), iterations);
        int rx = Math.min(settings.rxDepth(), iterations);
        // perftest's: an odd depth made even for one size; and a Send client needs two to have one uncredited
        rx = test == Test.SEND_BW && settings.sizes().size() == 1 && rx % 2 == 1 ? rx + 1 : rx;
        rxDepth = test == Test.SEND_BW ? Math.max(2, rx) : rx;
        pd = device.allocateProtectionDomain();
        control = new ControlChannel(pd, arena, client, settings.timeout());
        int n = settings.qps();
        // under a load a consumer looking for receives leaves the Sends' completions behind them: up to a receive
        // queue's worth more than the depths (slots free as work completes, before its completion is polled)
        cq = device.createCompletionQueue(n * (txDepth + rxDepth + 8 + (settings.rate() > 0 ? rxDepth : 0)));
        completions = new Completions(cq, settings.timeout());
    }

    /**
     * How the client's data connections came up: {@code qps} of them one after another in {@code nanos}, this process
     * holding {@code before} (its control connection up) and {@code after} (the data connections up, their memory
     * registered).
     */
    public record Setup(int qps, long nanos, Footprint before, Footprint after) {
    }

    /** How the client's data connections came up; null before they have. */
    public Setup setup() {
        return setup;
    }

    /** The queue pair the server accepts the control connection with, its receive posted. */
    public QueuePair controlQueuePair() {
        return control.armed();
    }

    // ---------------------------------------------------------------------------------------------------------
    // setup

    /** Runs the client: connects to {@code server} through {@code manager}; each size's result goes to results. */
    public void client(ConnectionManager manager, SocketAddress server, ConnectOptions options,
            Consumer<PerfResult> results) throws PeerException, InterruptedException {
        driver = Driver.of(manager);
        await(manager.connect(control.armed(), server, options), "the control connection");
        Footprint before = Footprint.now();
        prologue();
        long connecting = System.nanoTime();
        for (int i = 0; i < settings.qps(); i++) {
            qps.get(i).qp = connectData(manager, server, options, i);
            if (primaryPath != null && server instanceof java.net.InetSocketAddress at) {
                String which = "data connection " + (i + 1);
                await(qps.get(i).qp.choosePrimaryPath(new java.net.InetSocketAddress(primaryPath, at.getPort())),
                        "choosing " + which + "'s primary path");
                info.accept(" " + which + " paths: " + await(qps.get(i).qp.paths(), which + "'s paths"));
            }
        }
        long took = System.nanoTime() - connecting;
        setup = new Setup(settings.qps(), took, before, Footprint.now());
        // not perftest's: how fast data connections come up, one after another (issue 35: many queue pairs)
        info.accept(String.format(java.util.Locale.ROOT, " Data connections: %d in %.1f ms, %.0f a second",
                settings.qps(), took / 1e6, settings.qps() / (took / 1e9)));
        control.exchange(Dest.ZERO.encode(), "handshake after the data connections");
        run(results);
    }

    /**
     * Runs the server on an accepted control connection; the data connections come from {@code requests}, the
     * same listener's. The client's results (Write and Read bandwidth) or this side's go to results.
     */
    public void server(Driver waits, BlockingQueue<ConnectionRequest> requests, AcceptOptions options,
            Consumer<PerfResult> results) throws PeerException, InterruptedException {
        driver = waits;
        prologue();
        for (int i = 0; i < settings.qps(); i++) {
            ConnectionRequest request = driver.poll(requests, settings.timeout());
            if (request == null) {
                throw new PeerException("no data connection " + (i + 1) + " of " + settings.qps() + " within "
                        + settings.timeout().toSeconds() + " s");
            }
            DataQp data = qps.get(i);
            data.qp = createQp();
            connected(await(request.accept(data.qp, options), "data connection " + (i + 1)), i);
        }
        control.exchange(Dest.ZERO.encode(), "handshake after the data connections");
        run(results);
    }

    /** Version, page size, cache line, MTU, handshake: perftest's prologue; then this side's buffers. */
    private void prologue() throws PeerException {
        Perftest.checkedVersion(control.exchange(Perftest.version(), "version"));
        cycle = Perftest.agreed(cycle, control.exchange(Perftest.word(cycle), "page size"), Perftest.LARGEST_PAGE,
                "page size");
        cacheLine = Perftest.agreed(cacheLine, control.exchange(Perftest.word(cacheLine), "cache line"),
                Perftest.LARGEST_CACHE_LINE, "cache line");
        control.exchange(Perftest.MTU, "MTU");
        half = Perftest.inc(Perftest.buffSize(settings.largest(), cycle), cacheLine);
        for (int i = 0; i < settings.qps(); i++) {
            qps.add(buffers());
        }
        control.exchange(Dest.ZERO.encode(), "handshake before the data connections");
    }

    private DataQp buffers() {
        DataQp data = new DataQp();
        MemorySegment memory = arena.allocate(2L * half, cacheLine);
        data.buffer = pd.register(memory, memory.address(),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        MemorySegment credit = arena.allocate(8, 8);
        data.credit = pd.register(credit, credit.address(), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        if (settings.verify()) {
            fill(memory.asSlice(0, half));
            if (test.opcode == WorkOpcode.RDMA_READ) {
                fill(memory.asSlice(half, half));
            }
        }
        data.mine = test == Test.SEND_BW
                ? new Dest(0, 0, 0, data.credit.rkey(), data.credit.iova() + CREDIT_SINK)
                : new Dest(outReads(), 0, PSN.nextInt(1 << 24), data.buffer.rkey(), data.buffer.iova() + half);
        return data;
    }

    private int outReads() {
        return test.opcode == WorkOpcode.RDMA_READ ? settings.txDepth() : 0;
    }

    private QueuePair createQp() {
        // signaled requests complete visibly, the others unseen with the next signaled one (--cq-mod)
        QueuePair qp = pd.createQueuePair(new QpAttributes(cq, cq, null, txDepth + 2, rxDepth + 1, 1, false,
                completions.events()));
        return qp;
    }

    /**
     * Connects data connection {@code index}. A refusal is tried again, as perftest does (its server listens for the
     * data connections only after the first handshake); nothing else is: a connect that timed out may have been
     * accepted by the server, its answer lost or late, and the server then waits for this side's next step, not for
     * another connection (seen under 5 % loss: the server took the first attempt, the second waited for nothing).
     */
    private QueuePair connectData(ConnectionManager manager, SocketAddress server, ConnectOptions options, int index)
            throws PeerException, InterruptedException {
        for (int attempt = 1;; attempt++) {
            QueuePair qp = createQp();
            java.util.concurrent.CompletableFuture<Connection> connecting = manager.connect(qp, server, options);
            try {
                connected(await(connecting, "data connection " + (index + 1)), index);
                return qp;
            } catch (PeerException e) {
                if (attempt == CONNECT_ATTEMPTS || !refused(connecting)) {
                    throw e;
                }
                Thread.sleep(CONNECT_PAUSE); // perftest's own pause between attempts, not a synchronisation
            }
        }
    }

    /** Whether a connect ended refused: nothing listened (TCP's reset), or the peer rejected it. */
    private static boolean refused(java.util.concurrent.CompletableFuture<Connection> connecting) {
        if (connecting.state() != java.util.concurrent.Future.State.FAILED) {
            return false;
        }
        Throwable cause = connecting.exceptionNow();
        return cause instanceof java.net.ConnectException || cause instanceof ConnectionRejectedException;
    }

    private void connected(Connection connection, int index) throws PeerException {
        info.accept(" data connection " + (index + 1) + " " + TransportOptions.describe(connection));
        org.rddp.transport.mpa.Mptcp.Protocol protocol = org.rddp.transport.mpa.Mptcp.protocol(connection);
        if (mptcpOnly && protocol != org.rddp.transport.mpa.Mptcp.Protocol.MPTCP) {
            throw new PeerException("data connection " + (index + 1) + " runs " + protocol + ", not Multipath TCP");
        }
    }

    private <T> T await(java.util.concurrent.CompletableFuture<T> future, String what)
            throws PeerException, InterruptedException {
        try {
            return driver.await(future, settings.timeout());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new PeerException(what + " failed: " + (cause.getMessage() != null ? cause.getMessage() : cause));
        } catch (TimeoutException e) {
            throw new PeerException(what + " not set up within " + settings.timeout().toSeconds() + " s");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // the per-test sequences

    private void run(Consumer<PerfResult> measured) throws PeerException, InterruptedException {
        // the paths a run used, read as each result comes (the connections still up: after the last, the peer may
        // close them)
        Consumer<PerfResult> results = !showPaths ? measured : result -> {
            measured.accept(result);
            printPaths();
        };
        switch (test) {
            case WRITE_BW, READ_BW -> bandwidthTests.rdmaBandwidth(results);
            case SEND_BW -> bandwidthTests.sendBandwidth(results);
            case WRITE_LAT -> {
                if (settings.rate() > 0) { // Writes, each with a notifying Send: run as send-lat
                    sendSequence(results);
                    break;
                }
                handshake();
                exchangeDests();
                exchangeDests();
                handshake();
                for (int size : settings.sizes()) {
                    results.accept(latencyTests.writeLatency(size));
                }
            }
            case READ_LAT -> {
                handshake();
                exchangeDests();
                exchangeDests();
                handshake();
                if (client) {
                    for (int size : settings.sizes()) {
                        results.accept(latencyTests.readLatency(size));
                    }
                    handshake();
                } else {
                    control.exchange(qps.getFirst().mine.encode(), "the client's end of its Reads", WHILE_PEER_RUNS);
                }
            }
            default -> sendSequence(results); // SEND_LAT
        }
        List<QueuePair> closing = new ArrayList<>();
        for (DataQp data : qps) {
            data.qp.disconnect();
            closing.add(data.qp);
        }
        closing.add(control.close());
        awaitDisconnected(closing);
    }

    /**
     * Waits, up to {@link #DISCONNECT_WAIT}, until the peer has answered the disconnect of every connection, the
     * control connection's too. What was sent last may still be on its way (write-lat's last RDMA Write, which
     * nothing acknowledges, can be megabytes; the last control message, which a lossy path may need to send
     * again), and closing the connection manager, or the process, ends a connection still open, dropping it. The
     * peer answers a disconnect only after what came before it (RFC 5043 §6.2, a TCP FIN's order).
     */
    private void awaitDisconnected(List<QueuePair> closing) {
        long deadline = System.nanoTime() + DISCONNECT_WAIT.toNanos();
        for (QueuePair qp : closing) {
            QpState state = qp.state();
            while ((state == QpState.RTS || state == QpState.CLOSING || state == QpState.TERMINATE)
                    && System.nanoTime() - deadline < 0) {
                driver.nap(1_000_000); // a manual loop reads the peer's answer meanwhile, and wakes on it
                state = qp.state();
            }
        }
    }

    void handshake() throws PeerException {
        control.exchange(qps.getFirst().mine.encode(), "handshake");
    }

    /** Each data connection's paths now: what a Multipath TCP connection used (its subflows). */
    private void printPaths() {
        for (int i = 0; i < qps.size(); i++) {
            String which = "data connection " + (i + 1);
            try {
                info.accept(" " + which + " paths at the end: " + driver.await(qps.get(i).qp.paths(),
                        settings.timeout()));
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                info.accept(" " + which + " paths at the end: not told (" + e + ")");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Per data queue pair, this side's buffer for the peer's; printed the second time, as perftest does. */
    void exchangeDests() throws PeerException {
        for (int i = 0; i < qps.size(); i++) {
            DataQp data = qps.get(i);
            data.mine = new Dest(data.mine.outReads(), data.qp.number(), data.mine.psn(), data.mine.rkey(),
                    data.mine.vaddr());
            data.remote = Dest.decode(control.exchange(data.mine.encode(), "buffer"));
            if (data.exchanged++ == 1) {
                info.accept(String.format(Locale.ROOT, " local address: %s%n remote address: %s", data.mine,
                        data.remote));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // bandwidth

    /** send-lat's sequence (and write-lat's under a load): receives posted, then ping-pong or the load per size. */
    private void sendSequence(Consumer<PerfResult> results) throws PeerException {
        exchangeDests();
        handshake();
        exchangeDests();
        for (int size : settings.sizes()) {
            postReceives(size);
            handshake();
            results.accept(client && settings.rate() > 0 ? latencyTests.sendLoad(size, settings.rate())
                    : latencyTests.sendLatency(size));
        }
        handshake();
    }

    void postReceives(int size) {
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        long iterations = settings.iterations() > 0 ? settings.iterations() : Long.MAX_VALUE;
        for (int i = 0; i < qps.size(); i++) {
            DataQp data = qps.get(i);
            data.received = 0;
            data.receivesPosted = 0;
            receive.wrId(i).sge(0, data.buffer, half, size);
            while (data.receivesPosted < Math.min(rxDepth, iterations)) {
                data.qp.postReceive(receive);
                data.receivesPosted++;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // latency

    void post(DataQp data, SendWorkRequest request, String what) throws PeerException {
        post(data, request, what, -1);
    }

    /** Posts {@code request}; {@code what} and {@code number} (-1: none) name it if it fails, built only then. */
    void post(DataQp data, SendWorkRequest request, String what, long number) throws PeerException {
        int status = data.qp.postSend(request);
        if (status != 0) {
            throw new PeerException("posting " + what + (number < 0 ? "" : " " + number) + " failed: "
                    + completions.postFailed(data.qp, status), data.qp.state() != QpState.RTS);
        }
    }

    /** Posts the first {@code count} of {@code list} in one call; all are taken, or it fails as {@link #post} does. */
    void post(DataQp data, SendWorkRequest[] list, int count, String what, long number) throws PeerException {
        for (int i = data.qp.postSend(list, count); i < count; i++) {
            post(data, list[i], what, number + i); // what the list did not take, one by one: a failure says why
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // data checks

    /** The verification pattern: a function of the offset in the buffer half only. */
    static byte pattern(long offset) {
        return (byte) (offset * 31 + (offset >>> 8) + 7);
    }

    static void fill(MemorySegment memory) {
        for (long i = 0; i < memory.byteSize(); i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        }
    }

    /**
     * Checks {@code memory} against the pattern from offset {@code base} on, compared in bulk against a copy of the
     * pattern ({@link MemorySegment#mismatch}, as the TCP baseline's receiver compares its messages): a check octet by
     * octet held a 16 KiB Send receiver to a fraction of the socket's rate.
     */
    static void verify(MemorySegment memory, long base, String what) throws PeerException {
        MemorySegment expected = patternUpTo(base + memory.byteSize()).asSlice(base, memory.byteSize());
        long at = memory.mismatch(expected);
        if (at >= 0) {
            byte octet = memory.get(ValueLayout.JAVA_BYTE, at);
            throw new PeerException(String.format(Locale.ROOT, "data mismatch in %s at offset %d: %#04x, not "
                    + "%#04x (is the peer rddp with --verify?)", what, base + at, octet, pattern(base + at)));
        }
    }

    /** The pattern from offset 0, at least {@code length} octets of it; made once for the largest asked for. */
    private static MemorySegment patternUpTo(long length) {
        MemorySegment pattern = patterns;
        if (pattern.byteSize() < length) {
            pattern = Arena.ofAuto().allocate(Math.max(length, 2 * pattern.byteSize()));
            fill(pattern);
            patterns = pattern; // racing threads each make one: the same octets either way
        }
        return pattern;
    }

    /** {@link #patternUpTo}'s pattern: read by any thread, replaced by a longer one. */
    private static volatile MemorySegment patterns = MemorySegment.NULL;

    /** Checks every slot a Write (in the advertised half) or a Read (in the first half) of {@code size} filled. */
    void verifySlots(int size, boolean written) throws PeerException {
        int inc = Perftest.inc(size, cacheLine);
        int slots = size <= cycle / 2 ? cycle / inc : 1;
        long used = settings.iterations() > 0 ? Math.min(slots, settings.iterations()) : 1;
        for (DataQp data : qps) {
            for (int slot = 0; slot < used; slot++) {
                long offset = (long) slot * inc;
                verify(data.buffer.memory().asSlice((written ? half : 0) + offset, size), offset,
                        (written ? "the RDMA Writes of " : "the RDMA Reads of ") + size + " octets");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // measuring
}
