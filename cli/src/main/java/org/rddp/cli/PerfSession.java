package org.rddp.cli;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rddp.cli.Perftest.Dest;
import org.rddp.cli.Perftest.Test;
import org.rddp.engine.QpState;
import org.rddp.engine.WorkOpcode;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * One side of one perftest-style run (see {@link Perftest} for the control protocol): sets up the control and data
 * connections, exchanges buffers, runs the test for each size and hands each size's result on. Single-threaded:
 * the data queue pairs share one completion queue, polled round-robin as perftest does.
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
final class PerfSession {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final ValueLayout.OfInt CREDIT_VALUE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle CREDIT = CREDIT_VALUE.varHandle();
    private static final int CREDIT_SOURCE = 0;
    private static final int CREDIT_SINK = 4;
    /** How long the end of a run waits for the peer to answer its disconnect before the connections are closed. */
    private static final Duration DISCONNECT_WAIT = Duration.ofSeconds(5);
    private static final int CONNECT_ATTEMPTS = 10;
    private static final java.util.Random PSN = new java.util.Random(); // printed only, as perftest's lrand48
    private static final Duration CONNECT_PAUSE = Duration.ofMillis(100);
    private static final Duration PROGRESS = Duration.ofSeconds(2);
    /** The slowest round trips perftest leaves out of a latency report. */
    private static final int LATENCY_TAIL = 2;
    /** How long a server waits in a handshake while the client runs: the connection ending ends the wait. */
    private static final Duration WHILE_PEER_RUNS = Duration.ofDays(1);

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
     */
    record Settings(Test test, List<Integer> sizes, int iterations, int seconds, int txDepth, int rxDepth, int qps,
            boolean verify, Duration timeout) {
        Settings {
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

    private final Settings settings;
    private final Test test;
    private final boolean client;
    private final Consumer<String> info;
    private final Consumer<String> progress;
    private final Arena arena = Arena.ofAuto(); // freed when unreachable: no late access can fault
    private final ProtectionDomain pd;
    private final ControlChannel control;
    private final Completions completions;
    private final CompletionQueue cq;
    private final List<DataQp> qps = new ArrayList<>();
    private Driver driver = Driver.NONE;
    private int cycle = Perftest.CYCLE_BUFFER;
    private int cacheLine = Perftest.CACHE_LINE;
    private int half;
    private final int txDepth;
    private final int rxDepth;

    /** One data connection: its queue pair, buffer, credit buffer, and what the peer advertised. */
    private static final class DataQp {
        QueuePair qp;
        MemoryRegion buffer;
        MemoryRegion credit;
        Dest mine;
        Dest remote = Dest.ZERO;
        long posted;
        long completed;
        long received;
        long receivesPosted;
        int exchanged;
    }

    PerfSession(RdmaDevice device, Settings settings, boolean client, Consumer<String> info,
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
        cq = device.createCompletionQueue(n * (txDepth + rxDepth + 8));
        completions = new Completions(cq, settings.timeout());
    }

    /** The queue pair the server accepts the control connection with, its receive posted. */
    QueuePair controlQueuePair() {
        return control.armed();
    }

    // ---------------------------------------------------------------------------------------------------------
    // setup

    /** Runs the client: connects to {@code server} through {@code manager}; each size's result goes to results. */
    void client(ConnectionManager manager, SocketAddress server, ConnectOptions options,
            Consumer<PerfResult> results) throws PeerException, InterruptedException {
        driver = Driver.of(manager);
        await(manager.connect(control.armed(), server, options), "the control connection");
        prologue();
        for (int i = 0; i < settings.qps(); i++) {
            qps.get(i).qp = connectData(manager, server, options, i);
        }
        control.exchange(Dest.ZERO.encode(), "handshake after the data connections");
        run(results);
    }

    /**
     * Runs the server on an accepted control connection; the data connections come from {@code requests}, the
     * same listener's. The client's results (Write and Read bandwidth) or this side's go to results.
     */
    void server(Driver waits, BlockingQueue<ConnectionRequest> requests, AcceptOptions options,
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
        String version = Perftest.version(control.exchange(Perftest.version(), "version"));
        double number;
        try {
            number = Double.parseDouble(version);
        } catch (NumberFormatException e) {
            throw new PeerException("the peer's version is '" + version + "': not perftest's");
        }
        if (number < Perftest.OLDEST_VERSION) {
            throw new PeerException("the peer speaks perftest " + version + ", older than " + Perftest.OLDEST_VERSION);
        }
        cycle = Math.max(cycle, Perftest.word(control.exchange(Perftest.word(cycle), "page size")));
        cacheLine = Math.max(cacheLine, Perftest.word(control.exchange(Perftest.word(cacheLine), "cache line")));
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
        QueuePair qp = pd.createQueuePair(new QpAttributes(cq, cq, null, txDepth + 2, rxDepth + 1, 1, true,
                completions.events()));
        return qp;
    }

    /** Connects data connection {@code index}: perftest's server listens for it only after the first handshake. */
    private QueuePair connectData(ConnectionManager manager, SocketAddress server, ConnectOptions options, int index)
            throws PeerException, InterruptedException {
        PeerException last = null;
        for (int attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
            QueuePair qp = createQp();
            try {
                connected(await(manager.connect(qp, server, options), "data connection " + (index + 1)), index);
                return qp;
            } catch (PeerException e) {
                last = e;
                Thread.sleep(CONNECT_PAUSE); // perftest's own pause between attempts, not a synchronisation
            }
        }
        throw last;
    }

    private void connected(Connection connection, int index) {
        info.accept(" data connection " + (index + 1) + " " + PingCommand.describe(connection));
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

    private void run(Consumer<PerfResult> results) throws PeerException {
        switch (test) {
            case WRITE_BW, READ_BW -> rdmaBandwidth(results);
            case SEND_BW -> sendBandwidth(results);
            case WRITE_LAT -> {
                handshake();
                exchangeDests();
                exchangeDests();
                handshake();
                for (int size : settings.sizes()) {
                    results.accept(writeLatency(size));
                }
            }
            case READ_LAT -> {
                handshake();
                exchangeDests();
                exchangeDests();
                handshake();
                if (client) {
                    for (int size : settings.sizes()) {
                        results.accept(readLatency(size));
                    }
                    handshake();
                } else {
                    control.exchange(qps.getFirst().mine.encode(), "the client's end of its Reads", WHILE_PEER_RUNS);
                }
            }
            default -> { // SEND_LAT
                exchangeDests();
                handshake();
                exchangeDests();
                for (int size : settings.sizes()) {
                    postReceives(size);
                    handshake();
                    results.accept(sendLatency(size));
                }
                handshake();
            }
        }
        for (DataQp data : qps) {
            data.qp.disconnect();
        }
        awaitDisconnected();
        control.close();
    }

    /**
     * Waits, up to {@link #DISCONNECT_WAIT}, until the peer has answered the disconnect of every data connection.
     * What was sent last may still be on its way (write-lat's last RDMA Write, which nothing acknowledges, can be
     * megabytes), and closing the connection manager aborts a connection still open, dropping it.
     */
    private void awaitDisconnected() {
        long deadline = System.nanoTime() + DISCONNECT_WAIT.toNanos();
        for (DataQp data : qps) {
            QpState state = data.qp.state();
            while ((state == QpState.RTS || state == QpState.CLOSING || state == QpState.TERMINATE)
                    && System.nanoTime() - deadline < 0) {
                driver.nap(1_000_000); // a manual loop reads the peer's answer meanwhile, and wakes on it
                state = data.qp.state();
            }
        }
    }

    private void rdmaBandwidth(Consumer<PerfResult> results) throws PeerException {
        exchangeDests();
        exchangeDests();
        handshake();
        if (client) {
            PerfResult.Bandwidth last = null;
            for (int size : settings.sizes()) {
                last = bandwidthClient(size);
                results.accept(last);
            }
            handshake();
            control.exchange(Perftest.quad(last.bytes()), "report: size");
            control.exchange(Perftest.quad(last.iterations()), "report: iterations");
            control.exchange(Perftest.real(last.peakMbps()), "report: peak");
            control.exchange(Perftest.real(last.averageMbps()), "report: average");
            control.exchange(Perftest.real(last.messageRateMpps()), "report: message rate");
        } else {
            control.exchange(qps.getFirst().mine.encode(), "the client's end of its run", WHILE_PEER_RUNS);
            long size = Perftest.quad(control.exchange(new byte[8], "report: size"));
            long iterations = Perftest.quad(control.exchange(new byte[8], "report: iterations"));
            double peak = Perftest.real(control.exchange(new byte[8], "report: peak"));
            double average = Perftest.real(control.exchange(new byte[8], "report: average"));
            double rate = Perftest.real(control.exchange(new byte[8], "report: message rate"));
            if (settings.verify() && test == Test.WRITE_BW) {
                for (int written : settings.sizes()) {
                    verifySlots(written, true);
                }
            }
            results.accept(new PerfResult.Bandwidth((int) size, iterations, peak, average, rate));
        }
        handshake();
    }

    private void sendBandwidth(Consumer<PerfResult> results) throws PeerException {
        exchangeDests();
        handshake();
        exchangeDests();
        boolean all = settings.sizes().size() > 1;
        for (int size : settings.sizes()) {
            if (!client) {
                postReceives(size);
            }
            handshake();
            for (DataQp data : qps) {
                data.credit.memory().set(CREDIT_VALUE, CREDIT_SINK, 0);
            }
            results.accept(client ? bandwidthClient(size) : sendBandwidthServer(size));
            if (all) {
                handshake();
            }
        }
        handshake();
    }

    private void handshake() throws PeerException {
        control.exchange(qps.getFirst().mine.encode(), "handshake");
    }

    /** Per data queue pair, this side's buffer for the peer's; printed the second time, as perftest does. */
    private void exchangeDests() throws PeerException {
        for (int i = 0; i < qps.size(); i++) {
            DataQp data = qps.get(i);
            data.mine = new Dest(data.mine.outReads(), data.qp.number(), data.mine.psn(), data.mine.rkey(),
                    data.mine.vaddr());
            data.remote = Dest.decode(MemorySegment.ofArray(control.exchange(data.mine.encode(), "buffer")));
            if (data.exchanged++ == 1) {
                info.accept(String.format(Locale.ROOT, " local address: %s%n remote address: %s", data.mine,
                        data.remote));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // bandwidth

    /** Write, Read or Send bandwidth as the client: txDepth outstanding per queue pair, round-robin. */
    private PerfResult.Bandwidth bandwidthClient(int size) throws PeerException {
        int inc = Perftest.inc(size, cacheLine);
        int slots = size <= cycle / 2 ? cycle / inc : 1;
        boolean send = test.opcode == WorkOpcode.SEND;
        if (settings.verify() && test.opcode == WorkOpcode.RDMA_READ) {
            for (DataQp data : qps) {
                data.buffer.memory().asSlice(0, half).fill((byte) 0);
            }
        }
        SendWorkRequest request = new SendWorkRequest(1).opcode(test.opcode).signaled(true);
        Meter meter = new Meter(size);
        long iterations = settings.iterations();
        for (DataQp data : qps) {
            data.posted = 0;
            data.completed = 0;
        }
        while (true) {
            boolean running = iterations > 0 || !meter.over();
            boolean blockedOnCredit = false;
            long outstanding = 0;
            for (int i = 0; i < qps.size(); i++) {
                DataQp data = qps.get(i);
                while (running && data.posted - data.completed < txDepth
                        && (iterations == 0 || data.posted < iterations)) {
                    if (send && data.posted + 1 - creditOf(data) >= rxDepth) {
                        blockedOnCredit = true;
                        break;
                    }
                    long offset = send ? 0 : (data.posted % slots) * inc;
                    request.wrId(i).sge(0, data.buffer, offset, size);
                    if (!send) {
                        request.remote(data.remote.rkey(), data.remote.vaddr() + offset);
                    }
                    post(data, request, test.opcode.name(), data.posted);
                    meter.start();
                    data.posted++;
                }
                outstanding += data.posted - data.completed;
            }
            if (outstanding == 0) {
                if (blockedOnCredit) {
                    pause(meter);
                    continue;
                }
                if (!running || iterations > 0) {
                    break;
                }
            }
            WorkCompletion completion = completions.poll();
            if (completion == null) {
                if (outstanding > 0) {
                    completion = completions.next("a " + test.opcode + " completion",
                            (int) Math.max(1, Math.min(outstanding, txDepth / 2)));
                } else {
                    continue;
                }
            }
            qps.get((int) completion.wrId()).completed++;
            meter.tick();
            report(meter, size);
        }
        if (settings.verify() && test.opcode == WorkOpcode.RDMA_READ) {
            verifySlots(size, false);
        }
        return meter.result();
    }

    /** The receive count the peer credited, as perftest writes it (a little-endian 32-bit count). */
    private static long creditOf(DataQp data) {
        return Integer.toUnsignedLong((int) CREDIT.getVolatile(data.credit.memory(), (long) CREDIT_SINK));
    }

    private void postReceives(int size) {
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

    /** Send bandwidth as the server: receives, posted again while more are due, and credits for the client. */
    private PerfResult.Bandwidth sendBandwidthServer(int size) throws PeerException {
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        SendWorkRequest credit = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(true);
        long iterations = settings.iterations();
        int every = Math.max(1, rxDepth / 3);
        Meter meter = new Meter(size);
        long due = iterations * qps.size(); // receives still to come, counted down rather than recounted each time
        while (iterations == 0 ? !meter.over() : due > 0) {
            WorkCompletion completion = completions.next("a Send from the client");
            if (completion.opcode() != WcOpcode.RECV) {
                continue; // a credit Write done
            }
            int i = (int) completion.wrId();
            DataQp data = qps.get(i);
            if (completion.byteLength() != size) {
                throw new PeerException("received a Send of " + completion.byteLength() + " octets, not " + size
                        + ": give both sides the same size");
            }
            if (settings.verify()) {
                verify(data.buffer.memory().asSlice(half, size), 0, "Send " + data.received);
            }
            meter.start();
            data.received++;
            due--;
            meter.tick();
            if (iterations == 0 || data.receivesPosted < iterations) {
                receive.wrId(i).sge(0, data.buffer, half, size);
                data.qp.postReceive(receive);
                data.receivesPosted++;
            }
            if ((data.received % rxDepth) % every == 0) {
                data.credit.memory().set(CREDIT_VALUE, CREDIT_SOURCE, (int) data.received);
                credit.wrId(i).sge(0, data.credit, CREDIT_SOURCE, 4).remote(data.remote.rkey(), data.remote.vaddr());
                post(data, credit, "a credit");
            }
            report(meter, size);
        }
        return meter.result();
    }

    // ---------------------------------------------------------------------------------------------------------
    // latency

    /** Write ping-pong: the server writes first; each side polls the last octet of its buffer for the count. */
    private PerfResult.Latency writeLatency(int size) throws PeerException {
        DataQp data = qps.getFirst();
        MemorySegment source = data.buffer.memory().asSlice(0, size);
        MemorySegment sink = data.buffer.memory().asSlice(half, size);
        SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(true)
                .sge(0, data.buffer, 0, size).remote(data.remote.rkey(), data.remote.vaddr());
        int iterations = settings.iterations();
        long[] posted = new long[iterations];
        for (int sent = 0, received = 0; sent < iterations || received < iterations;) {
            if (received < iterations && (client || sent > 0)) {
                received++;
                awaitByte(sink, size - 1, (byte) received, "the peer's RDMA Write", received);
                if (settings.verify() && size > 1) {
                    verify(sink.asSlice(0, size - 1), 0, "RDMA Write " + received);
                }
            }
            if (sent < iterations) {
                source.set(ValueLayout.JAVA_BYTE, size - 1, (byte) (sent + 1));
                posted[sent] = System.nanoTime();
                post(data, write, "RDMA Write", sent);
                sent++;
                completions.spin("the completion of RDMA Write", sent);
            }
        }
        source.set(ValueLayout.JAVA_BYTE, size - 1, pattern(size - 1)); // as it was, for the next size's source
        return latency(size, posted);
    }

    /** Read latency: one Read at a time, the client alone. */
    private PerfResult.Latency readLatency(int size) throws PeerException {
        DataQp data = qps.getFirst();
        SendWorkRequest read = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).signaled(true)
                .sge(0, data.buffer, 0, size).remote(data.remote.rkey(), data.remote.vaddr());
        long[] posted = new long[settings.iterations()];
        for (int i = 0; i < posted.length; i++) {
            if (settings.verify()) {
                data.buffer.memory().asSlice(0, size).fill((byte) 0);
            }
            posted[i] = System.nanoTime();
            post(data, read, "RDMA Read", i);
            completions.spin("the completion of RDMA Read", i);
            if (settings.verify()) {
                verify(data.buffer.memory().asSlice(0, size), 0, "RDMA Read " + i);
            }
        }
        return latency(size, posted);
    }

    /** Send ping-pong: the client sends first; each side answers a receive with a Send. */
    private PerfResult.Latency sendLatency(int size) throws PeerException {
        DataQp data = qps.getFirst();
        SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true)
                .sge(0, data.buffer, 0, size);
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).sge(0, data.buffer, half, size);
        int iterations = settings.iterations();
        long[] posted = new long[iterations];
        for (int sent = 0, received = 0; sent < iterations || received < iterations;) {
            if (received < iterations && (!client || sent > 0)) {
                WorkCompletion completion;
                do {
                    completion = completions.spin("the peer's Send", received);
                } while (completion.opcode() != WcOpcode.RECV);
                if (completion.byteLength() != size) {
                    throw new PeerException("received a Send of " + completion.byteLength() + " octets, not "
                            + size + ": give both sides the same size");
                }
                if (settings.verify()) {
                    verify(data.buffer.memory().asSlice(half, size), 0, "Send " + received);
                }
                received++;
                if (data.receivesPosted < iterations) {
                    data.qp.postReceive(receive);
                    data.receivesPosted++;
                }
            }
            if (sent < iterations) {
                posted[sent] = System.nanoTime();
                post(data, send, "Send", sent);
                sent++;
            }
        }
        return latency(size, posted);
    }

    private PerfResult.Latency latency(int size, long[] posted) {
        if (posted.length < 2) {
            return PerfResult.Latency.of(size, posted.length, new long[] {0}, test.rttFactor());
        }
        long[] deltas = new long[posted.length - 1];
        for (int i = 0; i < deltas.length; i++) {
            deltas[i] = posted[i + 1] - posted[i];
        }
        java.util.Arrays.sort(deltas);
        int kept = deltas.length > LATENCY_TAIL ? deltas.length - LATENCY_TAIL : deltas.length; // as perftest
        return PerfResult.Latency.of(size, posted.length, java.util.Arrays.copyOf(deltas, kept), test.rttFactor());
    }

    private void post(DataQp data, SendWorkRequest request, String what) throws PeerException {
        post(data, request, what, -1);
    }

    /** Posts {@code request}; {@code what} and {@code number} (-1: none) name it if it fails, built only then. */
    private void post(DataQp data, SendWorkRequest request, String what, long number) throws PeerException {
        int status = data.qp.postSend(request);
        if (status != 0) {
            throw new PeerException("posting " + what + (number < 0 ? "" : " " + number) + " failed (" + status
                    + "): " + data.qp);
        }
    }

    /**
     * Waits for an octet of registered memory to take {@code value}: spins briefly, then yields, then parks in
     * short naps (on a machine with few cores a spinning thread would starve the transport that brings it).
     * The connection's state is read before the memory, so a peer that writes its last octet and closes at once
     * is not taken for one that left without writing.
     */
    private void awaitByte(MemorySegment memory, long offset, byte value, String what, long number)
            throws PeerException {
        QueuePair qp = qps.getFirst().qp;
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        for (int round = 0; ; round++) {
            boolean ended = round >= 2_000 && qp.state() != QpState.RTS;
            if ((byte) BYTE.getVolatile(memory, offset) == value) {
                return;
            }
            if (ended) {
                completions.check(qp, "waiting for " + what + " " + number);
            }
            if (round < 2_000) {
                driver.spin();
            } else {
                driver.nap(20_000); // a manual loop blocks in its poller: the Write wakes it
                if (System.nanoTime() - deadline > 0) {
                    throw new PeerException("no answer within " + settings.timeout().toSeconds() + " s waiting for "
                            + what + " " + number);
                }
            }
        }
    }

    /** Waits a moment for the peer's credit: it comes as an RDMA Write, with no completion on this side. */
    private void pause(Meter meter) throws PeerException {
        if (meter.over()) {
            return;
        }
        driver.nap(20_000);
        for (DataQp data : qps) {
            completions.check(data.qp, "waiting for the server's credit");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // data checks

    /** The verification pattern: a function of the offset in the buffer half only. */
    static byte pattern(long offset) {
        return (byte) (offset * 31 + (offset >>> 8) + 7);
    }

    private static void fill(MemorySegment memory) {
        for (long i = 0; i < memory.byteSize(); i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        }
    }

    private static void verify(MemorySegment memory, long base, String what) throws PeerException {
        for (long i = 0; i < memory.byteSize(); i++) {
            byte octet = memory.get(ValueLayout.JAVA_BYTE, i);
            if (octet != pattern(base + i)) {
                throw new PeerException(String.format(Locale.ROOT, "data mismatch in %s at offset %d: %#04x, not "
                        + "%#04x (is the peer rddp with --verify?)", what, base + i, octet, pattern(base + i)));
            }
        }
    }

    /** Checks every slot a Write (in the advertised half) or a Read (in the first half) of {@code size} filled. */
    private void verifySlots(int size, boolean written) throws PeerException {
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

    private void report(Meter meter, int size) {
        long now = System.nanoTime();
        if (now - meter.lastReport >= PROGRESS.toNanos()) {
            meter.lastReport = now;
            progress.accept(String.format(Locale.ROOT, "%s %d octets: %d messages, %.2f MB/sec so far",
                    test.command(), size, meter.count, meter.count * (double) size / ((now - meter.begin) / 1e9)
                            / (1 << 20)));
        }
    }

    /**
     * Counts completions: start to last, and the fastest window of an eighth of them, at least four send queues
     * full (perftest's "peak": local completions come fast while the transport's buffers fill). With a
     * duration, only the middle of the run counts, as perftest samples it: a quarter of the duration (whole
     * seconds) is left out at each end.
     */
    private final class Meter {
        private final int size;
        private final long window = Math.max(4L * txDepth, settings.iterations() / 8);
        long begin;
        long end;
        long count;
        long lastReport;
        private long markTime;
        private long markCount;
        private double peak;
        private long sampleFrom;
        private long sampleTo;
        private long stopAt;
        private long countAtFrom = -1;
        private long timeAtFrom;
        private long countAtTo = -1;
        private long timeAtTo;

        Meter(int size) {
            this.size = size;
        }

        boolean started() {
            return begin != 0;
        }

        void start() {
            if (begin == 0) {
                begin = System.nanoTime();
                markTime = begin;
                lastReport = begin;
                long seconds = settings.seconds();
                long margin = seconds / 4;
                sampleFrom = begin + TimeUnit.SECONDS.toNanos(margin);
                sampleTo = begin + TimeUnit.SECONDS.toNanos(seconds - margin);
                stopAt = begin + TimeUnit.SECONDS.toNanos(seconds);
            }
        }

        /** With a duration: whether it is over (never before the first post). */
        boolean over() {
            return settings.seconds() > 0 && begin != 0 && System.nanoTime() - stopAt >= 0;
        }

        void tick() {
            long now = System.nanoTime();
            count++;
            end = now;
            if (count - markCount >= window) {
                peak = Math.max(peak, (count - markCount) * (double) size / ((now - markTime) / 1e9) / (1 << 20));
                markTime = now;
                markCount = count;
            }
            if (settings.seconds() > 0) {
                if (countAtFrom < 0 && now - sampleFrom >= 0) {
                    countAtFrom = count;
                    timeAtFrom = now;
                }
                if (countAtTo < 0 && now - sampleTo >= 0) {
                    countAtTo = count;
                    timeAtTo = now;
                }
            }
        }

        PerfResult.Bandwidth result() {
            if (settings.seconds() > 0) {
                long from = countAtFrom < 0 ? 0 : countAtFrom;
                long to = countAtTo < 0 ? count : countAtTo;
                long nanos = Math.max(1, (countAtTo < 0 ? end : timeAtTo) - (countAtFrom < 0 ? begin : timeAtFrom));
                return PerfResult.Bandwidth.of(size, to - from, nanos, 0);
            }
            return PerfResult.Bandwidth.of(size, count, Math.max(1, end - begin), peak);
        }
    }
}
