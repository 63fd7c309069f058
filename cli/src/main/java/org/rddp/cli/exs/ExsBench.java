package org.rddp.cli.exs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rddp.cli.Completions;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.exs.Exs;
import org.rddp.exs.ExsEvent;
import org.rddp.exs.ExsFlag;
import org.rddp.exs.ExsMemory;
import org.rddp.exs.ExsOption;
import org.rddp.exs.ExsQueue;
import org.rddp.exs.ExsSocket;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.verbs.Access;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.Transports;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;
import org.rddp.wire.PrivateData;

/**
 * The paper's section 5 on loopback, both ends in this process: EXS throughput and one-way latency for normal,
 * immediate and persistent sends over one transport, next to the same transport's RDMA Read bandwidth and a TCP
 * socket's. Each point warms up for a while at its own size, then measures for the time asked.
 */
public final class ExsBench {
    /** How an EXS message travels. */
    public enum Mode {
        /** Advertised, read by the receiver, acknowledged (section 3). */
        NORMAL,
        /** Inside its advertisement, copied out by the receiver (section 4.1). */
        IMMEDIATE,
        /** A persistent block the receiver reads again and again (section 4.2): no advertisements, no answers. */
        PERSISTENT
    }

    /**
     * One bandwidth point.
     *
     * @param series         what moved the data ("EXS normal over sctp", "RDMA Read over sctp", "TCP")
     * @param bytes          message size
     * @param mbps           MB/s (2^20 octets) the receiver took during the measured time
     * @param cpuSecondsPerGb CPU time of the whole process (both ends, their transports) per 10^9 octets moved
     * @param senderCpuSecondsPerGb   the sending side's CPU time per 10^9 octets (its thread, which drives its
     *                                transport under manual progress), or NaN when its transport has a thread of
     *                                its own
     * @param receiverCpuSecondsPerGb the receiving side's, likewise
     */
    record Bandwidth(String series, int bytes, double mbps, double cpuSecondsPerGb, double senderCpuSecondsPerGb,
            double receiverCpuSecondsPerGb) {
    }

    /**
     * One latency point.
     *
     * @param series what moved the data
     * @param bytes  message size
     * @param usec   one-way latency, the median: half a ping-pong round trip; for a persistent block, one receive
     *               of it (one RDMA Read), which is what a receiver waits
     */
    record Latency(String series, int bytes, double usec) {
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofMillis(100);

    private final String scheme;
    private final Duration warmUp;
    private final Duration measured;
    private final boolean manual;

    /**
     * @param manual each end's transport driven by the thread that uses it ({@link Progress#manual()}), not by loop
     *               threads of its own
     */
    public ExsBench(String scheme, Duration warmUp, Duration measured, boolean manual) {
        this.scheme = scheme;
        this.manual = manual;
        this.warmUp = warmUp;
        this.measured = measured;
    }

    // ---- EXS ----

    /** What the client end of a {@link Pair} does, on its own thread, with its own EXS, queue and socket. */
    @FunctionalInterface
    private interface ClientRole {
        void run(Exs exs, ExsQueue queue, ExsSocket socket) throws Exception;
    }

    /**
     * Two connected EXS sockets in this process, each end with its own EXS and queue on a thread of its own: the
     * server end on the caller's, the client end on a thread this starts, which runs its role and then closes its
     * end. With manual progress each of the two threads drives its own end's transport (it reads its own sockets as
     * it dequeues), as a latency-bound program would; with automatic progress each transport has a loop thread.
     */
    private final class Pair implements AutoCloseable {
        final Exs serverExs;
        final ExsQueue serverQueue;
        final ExsSocket server;
        private final Thread client;
        private volatile Exception clientFailure;
        /** The client's role is over: it closes its end, which the server end sees as the connection lost. */
        private volatile boolean clientDone;
        private boolean finished;

        Pair(int smallPacket, int credits, ClientRole role) throws Exception {
            URI local = URI.create(scheme + "://127.0.0.1");
            serverExs = Exs.open(local, progress());
            try {
                serverQueue = serverExs.createQueue();
                URI address = URI.create(scheme + "://127.0.0.1:" + freePort());
                ExsSocket listening = configure(serverExs.socket(serverQueue), smallPacket, credits);
                listening.bind(address);
                listening.listen(1);
                CompletableFuture<ExsEvent> accepted = listening.acceptAsync();
                client = Thread.ofPlatform().name("exs-client").start(() -> {
                    try (Exs exs = Exs.open(local, progress())) {
                        ExsQueue queue = exs.createQueue();
                        ExsSocket socket = configure(exs.socket(queue), smallPacket, credits);
                        queue.await(socket.connectAsync(address), TIMEOUT);
                        role.run(exs, queue, socket);
                        clientDone = true;
                    } catch (Exception e) {
                        clientFailure = e;
                    }
                });
                try {
                    server = serverQueue.await(accepted, TIMEOUT).socket();
                } catch (TimeoutException e) {
                    finish();
                    throw e;
                }
                listening.close(null);
            } catch (Exception e) {
                serverExs.close();
                throw e;
            }
        }

        private static ExsSocket configure(ExsSocket socket, int smallPacket, int credits) {
            socket.setOption(ExsOption.CREDITS, credits);
            socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, smallPacket);
            return socket;
        }

        /**
         * Moves the server end (its transport too, under manual progress) until the client end is done, polling
         * busily as a latency-bound server does: a server asleep in its poller would add a wake-up to every read.
         */
        void serveUntilClientDone() throws Exception {
            ExsEvent[] events = new ExsEvent[16];
            while (!clientDone && client.isAlive()) {
                int taken = serverQueue.dequeue(events, 0, Duration.ZERO);
                for (int i = 0; i < taken; i++) {
                    if (!events[i].ok() && !clientDone) {
                        throw events[i].error();
                    }
                }
            }
        }

        /**
         * Waits for the client end to finish its role; throws what it failed with. Once: {@link #close} after a
         * failed finish does not throw the same failure again (it would suppress itself).
         */
        void finish() throws Exception {
            if (finished) {
                return;
            }
            finished = true;
            client.join(TIMEOUT);
            if (client.isAlive()) {
                throw new TimeoutException("the client end of the EXS connection did not finish within " + TIMEOUT);
            }
            if (clientFailure != null) {
                throw clientFailure;
            }
        }

        @Override
        public void close() throws Exception {
            try {
                finish();
            } finally {
                serverExs.close();
            }
        }
    }

    private Progress progress() {
        return manual ? Progress.manual() : Progress.automatic();
    }

    /** EXS throughput: {@code depth} messages of {@code size} octets in flight, each end on a thread of its own. */
    Bandwidth exsBandwidth(Mode mode, int size, int depth) throws Exception {
        Window window = new Window(warmUp, measured, -1);
        run(mode, size, depth, window);
        return window.bandwidth("EXS " + mode.name().toLowerCase() + " over " + scheme, size);
    }

    /**
     * {@code messages} normal sends of {@code size} octets, {@code depth} in flight, counted from the first that
     * arrives: {@code rddp compare}'s EXS bandwidth point (compare warms up itself).
     */
    public PerfResult.Bandwidth exsMessages(int size, long messages, int depth) throws Exception {
        Window window = new Window(Duration.ZERO, Duration.ZERO, messages * size);
        run(Mode.NORMAL, size, depth, window);
        return window.perfResult(size);
    }

    private void run(Mode mode, int size, int depth, Window window) throws Exception {
        try (Pair pair = new Pair(mode == Mode.IMMEDIATE ? size : 0, depth,
                (exs, queue, socket) -> send(exs, queue, socket, mode, size, depth, window))) {
            ExsMemory sink = pair.serverExs.register(Arena.ofAuto().allocate((long) size * depth, 64));
            window.sides(pair.client, Thread.currentThread(), manual);
            window.begin();
            receive(pair, sink, size, depth, window);
            pair.finish();
        }
    }

    private static void send(Exs exs, ExsQueue queue, ExsSocket socket, Mode mode, int size, int depth,
            Window window) {
        try {
            ExsMemory source = exs.register(Arena.ofAuto().allocate((long) size * depth, 64));
            if (mode == Mode.PERSISTENT) {
                socket.send(source, 0, size, "block", EnumSet.of(ExsFlag.PERSISTENT));
            } else {
                for (int i = 0; i < depth; i++) {
                    socket.send(source, (long) i * size, size, i);
                }
            }
            ExsEvent[] events = new ExsEvent[64];
            while (!window.over) {
                int taken = awaitEvents(queue, events);
                for (int i = 0; i < taken; i++) {
                    ExsEvent event = events[i];
                    if (!event.ok()) {
                        throw event.error();
                    }
                    if (event.type() == ExsEvent.Type.SEND && !window.over) {
                        int slot = (Integer) event.context();
                        socket.send(source, (long) slot * size, size, slot);
                    }
                }
            }
        } catch (Exception e) {
            window.failed(e);
        }
    }

    private static void receive(Pair pair, ExsMemory sink, int size, int depth, Window window) {
        try {
            for (int i = 0; i < depth; i++) {
                pair.server.recv(sink, (long) i * size, size, i);
            }
            ExsEvent[] events = new ExsEvent[64];
            while (!window.over) {
                int taken = awaitEvents(pair.serverQueue, events);
                for (int i = 0; i < taken; i++) {
                    ExsEvent event = events[i];
                    if (!event.ok()) {
                        throw event.error();
                    }
                    if (event.type() == ExsEvent.Type.RECV) {
                        window.moved(event.length());
                        int slot = (Integer) event.context();
                        pair.server.recv(sink, (long) slot * size, size, slot);
                    }
                }
                window.tick();
            }
        } catch (Exception e) {
            window.failed(e);
        }
    }

    /** EXS one-way latency over {@code iterations} messages after as many to warm up. */
    Latency exsLatency(Mode mode, int size, int iterations) throws Exception {
        return new Latency("EXS " + mode.name().toLowerCase() + " over " + scheme, size,
                pingPong(mode, size, iterations).typicalUsec());
    }

    /**
     * Samples of {@code iterations} exchanges after as many to warm up: ping-pongs (half of each round trip), or
     * for a persistent block, reads of it.
     */
    public PerfResult.Latency pingPong(Mode mode, int size, int iterations) throws Exception {
        long[] samples = new long[iterations];
        if (mode == Mode.PERSISTENT) { // the client reads the server's block again and again
            try (Pair pair = new Pair(0, 4, (exs, queue, socket) -> {
                ExsMemory memory = exs.register(Arena.ofAuto().allocate(Math.max(1, size), 64));
                for (int i = -iterations; i < iterations; i++) {
                    long start = System.nanoTime();
                    socket.recv(memory, 0, size, i);
                    next(queue, ExsEvent.Type.RECV);
                    if (i >= 0) {
                        samples[i] = System.nanoTime() - start;
                    }
                }
            })) {
                ExsMemory block = pair.serverExs.register(Arena.ofAuto().allocate(Math.max(1, size), 64));
                pair.server.send(block, 0, size, "block", EnumSet.of(ExsFlag.PERSISTENT));
                pair.serveUntilClientDone();
                pair.finish();
            }
            return PerfResult.Latency.of(size, samples, 1);
        }
        try (Pair pair = new Pair(mode == Mode.IMMEDIATE ? size : 0, 4,
                (exs, queue, socket) -> echo(exs, queue, socket, size, 2 * iterations))) {
            ExsMemory memory = pair.serverExs.register(Arena.ofAuto().allocate(Math.max(1, size), 64));
            for (int i = -iterations; i < iterations; i++) {
                long start = System.nanoTime();
                pair.server.recv(memory, 0, size, i);
                pair.server.send(memory, 0, size, i);
                next(pair.serverQueue, ExsEvent.Type.RECV);
                if (i >= 0) {
                    samples[i] = System.nanoTime() - start;
                }
            }
            pair.finish();
        }
        return PerfResult.Latency.of(size, samples, 2);
    }

    /** Sends back each of {@code messages} messages; returns once the last reply was taken (its send event). */
    private static void echo(Exs exs, ExsQueue queue, ExsSocket socket, int size, int messages) throws Exception {
        ExsMemory memory = exs.register(Arena.ofAuto().allocate(Math.max(1, size), 64));
        int replied = 0;
        for (int i = 0; i < messages; i++) {
            socket.recv(memory, 0, size, i);
            for (ExsEvent event = take(queue); event.type() != ExsEvent.Type.RECV; event = take(queue)) {
                replied += event.type() == ExsEvent.Type.SEND ? 1 : 0;
            }
            socket.send(memory, 0, size, i);
        }
        while (replied < messages) {
            replied += take(queue).type() == ExsEvent.Type.SEND ? 1 : 0;
        }
    }

    /**
     * Takes the events there are into {@code events}, at least one unless {@link #WAIT} passes: it polls
     * {@link Completions#SPINS} times before it waits, as the RDMA Read baseline's ends and the latency runs do.
     */
    private static int awaitEvents(ExsQueue queue, ExsEvent[] events) throws InterruptedException {
        for (int polls = 0; polls < Completions.SPINS; polls++) {
            int taken = queue.dequeue(events, 0, Duration.ZERO);
            if (taken > 0) {
                return taken;
            }
        }
        return queue.dequeue(events, 1, WAIT);
    }

    /** Dequeues until an event of {@code type} comes; other successful events pass. */
    private static void next(ExsQueue queue, ExsEvent.Type type) throws Exception {
        while (take(queue).type() != type) {
            // another operation's event
        }
    }

    /**
     * The next event, which must be a success. It polls {@link Completions#SPINS} times before it waits, as the
     * baselines poll their sockets before they sleep: under automatic progress the transports' loop threads need the
     * cores too.
     */
    private static ExsEvent take(ExsQueue queue) throws Exception {
        ExsEvent[] events = new ExsEvent[1];
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (int polls = 0; System.nanoTime() < deadline; polls++) {
            Duration wait = polls < Completions.SPINS ? Duration.ZERO : WAIT;
            if (queue.dequeue(events, polls < Completions.SPINS ? 0 : 1, wait) == 1) {
                if (!events[0].ok()) {
                    throw events[0].error();
                }
                return events[0];
            }
        }
        throw new TimeoutException("no event within " + TIMEOUT);
    }

    // ---- the same transport's RDMA Read ----

    /**
     * RDMA Read bandwidth over the transport with verbs: {@code depth} Reads of {@code size} octets in flight, each
     * from a source slot of its own into a sink slot of its own (EXS normal sends move the same memory). The
     * reading side runs on the caller's thread, the side read from on a thread of its own ({@code read-responder}),
     * each driving its own transport under manual progress, as the EXS ends do.
     */
    Bandwidth readBandwidth(int size, int depth) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, freePort());
        CompletableFuture<MemoryRegion> listening = new CompletableFuture<>();
        Window window = new Window(warmUp, measured, -1);
        Thread responder = Thread.ofPlatform().name("read-responder").start(() -> {
            try (ConnectionManager manager = Transports.open(scheme, loopback, progress())) {
                RdmaDevice device = new RdmaDevice("read-bw-server");
                ProtectionDomain pd = device.allocateProtectionDomain();
                CompletionQueue cq = device.createCompletionQueue(16);
                QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, depth, 1));
                // a source slot per Read in flight, as the EXS sender sends from one per message: the same memory
                // (and cache) footprint on both sides as EXS normal sends have
                MemoryRegion block = pd.register(Arena.ofAuto().allocate((long) size * depth, 64),
                        EnumSet.of(Access.REMOTE_READ));
                try (Listener listener = manager.listen(address, request -> request.accept(qp,
                        new AcceptOptions(PrivateData.EMPTY, depth, depth)))) {
                    listening.complete(block);
                    WorkCompletion completion = new WorkCompletion();
                    int idle = 0;
                    while (!window.over) { // serves the Reads: runs its loop, and waits as the EXS sender does
                        if (Loop.invokeOwned() > 0) {
                            idle = 0;
                        } else if (++idle > Completions.SPINS) {
                            cq.requestNotification(false);
                            if (!cq.poll(completion)) {
                                cq.awaitNotification(WAIT);
                            }
                            idle = 0;
                        }
                    }
                }
            } catch (Exception e) {
                listening.completeExceptionally(e);
                window.failed(e);
            }
        });
        MemoryRegion block;
        try {
            block = listening.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        try (ConnectionManager initiator = Transports.open(scheme, loopback, progress())) {
            RdmaDevice device = new RdmaDevice("read-bw-client");
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(2 * depth);
            QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, depth, 1));
            MemoryRegion sink = pd.register(Arena.ofAuto().allocate((long) size * depth, 64),
                    EnumSet.of(Access.LOCAL_WRITE));
            Loop.joinOwned(initiator.connect(qp, address, ConnectOptions.of(depth, depth)), TIMEOUT);
            SendWorkRequest read = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).signaled(true);
            for (int i = 0; i < depth; i++) {
                qp.postSend(read.wrId(i).sge(0, sink, (long) i * size, size).remote(block.rkey(),
                        block.iova() + (long) i * size));
            }
            window.sides(responder, Thread.currentThread(), manual);
            window.begin();
            WorkCompletion completion = new WorkCompletion();
            int empty = 0;
            while (!window.over) {
                if (!cq.poll(completion)) {
                    window.tick();
                    if (++empty > Completions.SPINS) { // waits as the EXS ends do
                        cq.requestNotification(false);
                        if (!cq.poll(completion)) {
                            cq.awaitNotification(WAIT);
                            continue;
                        }
                    } else {
                        continue;
                    }
                }
                empty = 0;
                if (completion.status() != WcStatus.SUCCESS) {
                    throw new IOException("an RDMA Read failed: " + completion.status());
                }
                window.moved(completion.byteLength());
                long slot = completion.wrId();
                qp.postSend(read.wrId(slot).sge(0, sink, slot * size, size).remote(block.rkey(),
                        block.iova() + slot * size));
                window.tick();
            }
        } catch (Exception e) {
            window.failed(e);
        } finally {
            responder.join(TIMEOUT);
        }
        return window.bandwidth("RDMA Read over " + scheme, size);
    }

    // ---- TCP ----

    /**
     * A TCP socket's throughput: messages of {@code size} octets for about the measured time, after a warm-up, up to
     * {@code depth} of them (EXS's messages in flight) per gathering write.
     */
    static Bandwidth tcpBandwidth(int size, int depth, Duration warmUp, Duration measured) throws Exception {
        try (ServerSocketChannel listening = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = Baselines.noDelay(SocketChannel.open(listening.getLocalAddress()));
                SocketChannel server = listening.accept()) {
            long warmUpIterations = Math.max(16, (long) (warmUp.toNanos() / 1e9 * 1e9 / size));
            double rate = warmUpIterations / Math.max(1e-3, run(client, server, size, depth, warmUpIterations).seconds);
            long iterations = Math.max(16, (long) (rate * measured.toNanos() / 1e9));
            long cpu = processCpu();
            TcpRun run = run(client, server, size, depth, iterations);
            double gb = (double) size * iterations / 1e9;
            return new Bandwidth("TCP", size, gb * 1e9 / run.seconds / (1 << 20), (processCpu() - cpu) / 1e9 / gb,
                    run.senderCpu / 1e9 / gb, run.receiverCpu / 1e9 / gb);
        }
    }

    /** A TCP run: how long it took, and each side's CPU time in nanoseconds (each side is one thread). */
    private record TcpRun(double seconds, long senderCpu, long receiverCpu) {
    }

    /** Moves {@code iterations} messages of {@code size} octets, the sink on a thread of its own. */
    private static TcpRun run(SocketChannel client, SocketChannel server, int size, int depth, long iterations)
            throws Exception {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        CompletableFuture<Long> sunk = CompletableFuture.supplyAsync(() -> {
            try {
                long cpu = threads.getCurrentThreadCpuTime();
                Baselines.tcpSink(server, (long) size * iterations);
                return threads.getCurrentThreadCpuTime() - cpu;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, runnable -> Thread.ofPlatform().name("tcp-sink").start(runnable));
        long cpu = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        Baselines.tcpSend(client, size, iterations, depth);
        double seconds = (System.nanoTime() - start) / 1e9;
        long senderCpu = threads.getCurrentThreadCpuTime() - cpu;
        return new TcpRun(seconds, senderCpu, sunk.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    }

    /** A TCP socket's one-way latency: half the median ping-pong round trip. */
    static Latency tcpLatency(int size, int iterations) throws Exception {
        try (ServerSocketChannel listening = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = Baselines.noDelay(SocketChannel.open(listening.getLocalAddress()));
                SocketChannel server = Baselines.noDelay(listening.accept())) {
            int size1 = Math.max(1, size);
            CompletableFuture<Void> echoed = CompletableFuture.runAsync(() -> {
                try {
                    Baselines.tcpEcho(server, size1, 2 * iterations, TIMEOUT);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, runnable -> Thread.ofPlatform().name("tcp-echo").start(runnable));
            Baselines.tcpPing(client, size1, iterations, TIMEOUT); // warm-up
            PerfResult.Latency latency = Baselines.tcpPing(client, size1, iterations, TIMEOUT);
            echoed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return new Latency("TCP", size, latency.typicalUsec());
        }
    }

    // ---- helpers ----

    /**
     * The measured window of a bandwidth run: octets counted once the warm-up is over, until the measured time is
     * (or a number of octets arrived); CPU time of the process over the same window.
     */
    private static final class Window {
        private final Duration warmUp;
        private final Duration measured;
        private long warmEnd;
        private long end;
        /** The octets after which the window ends, or -1: it ends with the measured time. */
        private final long octets;
        private long moved;
        private long startBytes = -1;
        private long startNanos;
        private long startCpu;
        private long endBytes;
        private long endNanos;
        private long endCpu;
        volatile boolean over;
        volatile Exception failure;
        /** The two sides' threads, when each does all of its side's work (manual progress); else null. */
        private Thread sender;
        private Thread receiver;
        private long startSender;
        private long startReceiver;
        private long endSender;
        private long endReceiver;

        Window(Duration warmUp, Duration measured, long octets) {
            this.octets = octets;
            this.warmUp = warmUp;
            this.measured = measured;
        }

        /** Starts the clock: the warm-up from now, then the measured time. On the thread that ticks. */
        void begin() {
            warmEnd = System.nanoTime() + warmUp.toNanos();
            end = warmEnd + measured.toNanos();
        }

        /**
         * Names the threads of the two sides, whose CPU time is then taken over the window too; only when each does
         * all of its side's work ({@code manual}). Before the window starts, on the thread that ticks it.
         */
        void sides(Thread sendingSide, Thread receivingSide, boolean manual) {
            if (manual) {
                this.sender = sendingSide;
                this.receiver = receivingSide;
            }
        }

        void moved(long octets) {
            moved += octets;
        }

        /** Marks the window's edges as time passes; ends it. */
        void tick() {
            long now = System.nanoTime();
            if (startBytes < 0 && now >= warmEnd) {
                startBytes = moved;
                startNanos = now;
                startCpu = processCpu();
                startSender = threadCpu(sender);
                startReceiver = threadCpu(receiver);
            } else if (startBytes >= 0 && (octets < 0 ? now >= end : moved - startBytes >= octets) && !over) {
                endBytes = moved;
                endNanos = now;
                endCpu = processCpu();
                endSender = threadCpu(sender);
                endReceiver = threadCpu(receiver);
                over = true;
            }
        }

        void failed(Exception e) {
            failure = e;
            over = true;
        }

        PerfResult.Bandwidth perfResult(int size) throws Exception {
            if (failure != null) {
                throw failure;
            }
            return PerfResult.Bandwidth.of(size, (endBytes - startBytes) / size, endNanos - startNanos, 0);
        }

        Bandwidth bandwidth(String series, int size) throws Exception {
            if (failure != null) {
                throw failure;
            }
            double bytes = endBytes - startBytes;
            double seconds = (endNanos - startNanos) / 1e9;
            double gb = Math.max(1, bytes) / 1e9;
            boolean sided = sender != null && startSender >= 0 && endSender >= 0 && startReceiver >= 0
                    && endReceiver >= 0;
            return new Bandwidth(series, size, bytes / seconds / (1 << 20), (endCpu - startCpu) / 1e9 / gb,
                    sided ? (endSender - startSender) / 1e9 / gb : Double.NaN,
                    sided ? (endReceiver - startReceiver) / 1e9 / gb : Double.NaN);
        }
    }

    /** A thread's CPU time in nanoseconds; -1 when there is none (no thread, or one that ended). */
    private static long threadCpu(Thread thread) {
        return thread == null ? -1 : ManagementFactory.getThreadMXBean().getThreadCpuTime(thread.threadId());
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** A port to listen on: free for TCP now; for usrsctp's own port space, one picked at random above the rest. */
    private int freePort() throws IOException {
        if (!scheme.equals("mpa")) {
            return 40_000 + ThreadLocalRandom.current().nextInt(10_000);
        }
        try (ServerSocketChannel probe = ServerSocketChannel.open().bind(new InetSocketAddress(0))) {
            return ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
    }
}
