package org.rddp.cli.perftest;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rddp.cli.Driver;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.cli.perftest.Perftest.Test;
import org.rddp.verbs.Connection;
import org.rddp.loop.Progress;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rddp write-bw}, {@code read-bw}, {@code send-bw}, {@code write-lat}, {@code read-lat}, {@code send-lat}:
 * perftest's tools, with perftest's rdma_cm protocol ({@link Perftest}) and output, over either transport. Without a
 * server address a command is the server; with one, the client. Over MPA each is the peer of perftest's
 * {@code ib_write_bw -R} (and the rest) on any iWARP device.
 */
@Command(sortOptions = false, mixinStandardHelpOptions = true)
public final class PerfCommand implements Callable<Integer> {
    private static final String LINE = "-".repeat(87);
    /** Sends in flight at most under {@code --rate}, unless {@code --tx-depth} says otherwise. */
    public static final int LOAD_WINDOW = 128;

    private final Test test;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server's address: run as client "
            + "(without it: run as server)")
    InetAddress server;

    @Option(names = {"-p", "--port"}, defaultValue = "" + Perftest.DEFAULT_PORT,
            description = "port; default: ${DEFAULT-VALUE}")
    int port = Perftest.DEFAULT_PORT;

    @Option(names = {"-B", "--bind"}, defaultValue = "0.0.0.0", description = "server: the address to listen on; "
            + "default: ${DEFAULT-VALUE}")
    InetAddress bind;

    @Option(names = {"-s", "--size"}, description = "message size in octets; default: 65536 (bw), 2 (lat)")
    Integer size;

    @Option(names = {"-a", "--all"}, description = "run every size from 2 to 2^23 octets")
    boolean all;

    @Option(names = {"-n", "--iters"}, description = "messages per size; default: 5000 (write-bw), 1000 (others)")
    Integer iterations;

    @Option(names = {"-D", "--duration"}, description = "run this many seconds instead (bandwidth tests)")
    Integer seconds;

    @Option(names = "--tx-depth", description = "work requests outstanding per queue pair; default: 128 (bw), 1 (lat)")
    Integer txDepth;

    @Option(names = "--rx-depth", description = "receives posted per queue pair; default: 512 (send), 1 (others)")
    Integer rxDepth;

    @Option(names = {"-q", "--qp"}, defaultValue = "1", description = "data queue pairs (bw); default: 1")
    int qps = 1;

    @Option(names = "--rate", defaultValue = "0", description = "send-lat client: offer this many Sends a second, "
            + "each posted when due whatever the echoes do (up to the tx depth in flight, 128 by default then), and "
            + "report whole round trips timed from when each fell due; default: ping-pong, one at a time. write-lat "
            + "(both sides): the same with an RDMA Write and a Send of no data behind it, which tells the peer it is "
            + "placed, for each message each way")
    int rate;

    @Option(names = "--verify", description = "check the data that lands (both sides rddp with --verify)")
    boolean verify;

    @Option(names = "--json", description = "print the results as JSON instead of a table")
    boolean json;

    @Option(names = "--progress", negatable = true, description = "print a progress line every 2 s on long runs "
            + "(default: when on a terminal)")
    Boolean progress;

    @Mixin
    PostingOptions posting;

    @Option(names = "--timeline", description = "bandwidth tests: print each second's messages and MB/sec with the "
            + "time, and the longest pause between completions (a path failure's gap)")
    boolean timeline;

    @Option(names = "--reversed", description = "send-bw: the server sends and the client receives (perftest's "
            + "--reversed); give it to both")
    boolean reversed;

    @Option(names = "--primary-path", description = "client over SCTP: make the path to this address of the server "
            + "(one it binds with --multihome) its data connections' primary path")
    InetAddress primaryPath;

    @Option(names = "--timeout", defaultValue = "30", description = "seconds to wait for each step of the peer; "
            + "default: ${DEFAULT-VALUE}")
    int timeoutSeconds = 30;

    @Mixin
    TransportOptions transport;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    PerfCommand(Test test) {
        this.test = test;
    }

    /** The six commands, by name, with their descriptions. */
    public static Map<String, PerfCommand> all() {
        Map<String, PerfCommand> commands = new LinkedHashMap<>();
        for (Test each : Test.values()) {
            commands.put(each.command(), new PerfCommand(each));
        }
        return commands;
    }

    /** What the command does, for its help. */
    public String description() {
        return switch (test) {
            case WRITE_BW -> "RDMA Write bandwidth (perftest's ib_write_bw -R)";
            case READ_BW -> "RDMA Read bandwidth (perftest's ib_read_bw -R)";
            case SEND_BW -> "Send bandwidth, with receive credits (perftest's ib_send_bw -R)";
            case WRITE_LAT -> "RDMA Write ping-pong latency (perftest's ib_write_lat -R)";
            case READ_LAT -> "RDMA Read latency (perftest's ib_read_lat -R)";
            case SEND_LAT -> "Send ping-pong latency (perftest's ib_send_lat -R)";
        };
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PerfSession.Settings settings = settings();
        boolean client = server != null;
        boolean showProgress = progress != null ? progress : System.console() != null;
        List<PerfResult> results = new ArrayList<>();
        Consumer<PerfResult> sink = result -> {
            if (!json && results.isEmpty()) {
                out.println(LINE);
                out.println(test.bandwidth ? PerfReport.BANDWIDTH_HEADER : PerfReport.LATENCY_HEADER);
            }
            results.add(result);
            if (!json) {
                out.println(PerfReport.row(result));
                out.flush();
            }
        };
        Consumer<String> info = json ? line -> { } : out::println;
        PerfSession session = new PerfSession(new RdmaDevice("rddp0"), settings, client, info,
                showProgress ? err::println : line -> { });
        if (timeline) {
            session.timeline = line -> {
                out.println(line);
                out.flush();
            };
        }
        session.primaryPath = primaryPath;
        session.showPaths = transport.mptcp;
        if (reversed && test != Test.SEND_BW) {
            throw new IllegalArgumentException("--reversed is for send-bw");
        }
        session.reversed = reversed;
        try {
            if (client) {
                if (test == Test.WRITE_LAT || reversed) {
                    transport.serverSendsFirst();
                }
                try (ConnectionManager manager = transport.open(TransportOptions.localFor(server), Progress.manual())) {
                    banner(out, settings);
                    session.client(manager, new InetSocketAddress(server, port), transport.connectOptions(), sink);
                }
            } else {
                serve(session, settings, out, err, sink);
            }
        } catch (PeerException e) {
            err.println("rddp " + test.command() + ": " + e.getMessage());
            return 1;
        }
        if (json) {
            out.println(PerfReport.json(test, client ? "client" : "server", transport.transport.name()
                    .toLowerCase(Locale.ROOT), results));
        } else if (!results.isEmpty()) {
            out.println(LINE);
        }
        return 0;
    }

    private void serve(PerfSession session, PerfSession.Settings settings, PrintWriter out, PrintWriter err,
            Consumer<PerfResult> sink) throws Exception {
        BlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
        CompletableFuture<ConnectionRequest> first = new CompletableFuture<>();
        try (ConnectionManager manager = TransportOptions.watchRefusals(transport.open(bind, Progress.manual()),
                test.command(), err, reason -> first.completeExceptionally(new PeerException(
                        "refused the client's connection: " + reason)));
                Listener listener = manager.listen(new InetSocketAddress(bind, port), firstThen(first,
                        Driver.of(manager).adder(requests)))) {
            Driver driver = Driver.of(manager);
            out.println("server: listening on " + listener.address() + transport.encapsulation(manager));
            if (!json) {
                out.println("************************************");
                out.println("* Waiting for client to connect... *");
                out.println("************************************");
            }
            out.flush();
            ConnectionRequest client = awaitClient(driver, first);
            Connection connection = driver.await(client.accept(session.controlQueuePair(), transport.acceptOptions()),
                    Duration.ofSeconds(timeoutSeconds));
            banner(out, settings);
            if (!json) {
                out.println(" control connection " + TransportOptions.describe(connection));
            }
            session.server(driver, requests, transport.acceptOptions(), sink);
            for (ConnectionRequest late = requests.poll(); late != null; late = requests.poll()) {
                late.reject(PrivateData.EMPTY); // one client per run, as perftest's server
            }
        }
    }

    /** Hands the first connection request to {@code first}, the later ones to {@code rest}. */
    private static Consumer<ConnectionRequest> firstThen(CompletableFuture<ConnectionRequest> first,
            Consumer<ConnectionRequest> rest) {
        return request -> {
            if (!first.complete(request)) {
                rest.accept(request);
            }
        };
    }

    /** The first connection request, as long as it takes, as perftest's server; or why its client was refused. */
    private static ConnectionRequest awaitClient(Driver driver, CompletableFuture<ConnectionRequest> first)
            throws InterruptedException, PeerException {
        while (true) {
            try {
                return driver.await(first, Duration.ofHours(1));
            } catch (ExecutionException e) {
                throw e.getCause() instanceof PeerException refused ? refused
                        : new PeerException(e.getCause().toString());
            } catch (TimeoutException e) {
                // waiting on: perftest's server waits for its client as long as it takes
            }
        }
    }

    private void banner(PrintWriter out, PerfSession.Settings settings) {
        if (json) {
            return;
        }
        out.println(LINE);
        out.println("                    " + test.title());
        out.printf(Locale.ROOT, " Number of qps   : %d\t\tTransport type : %s%n", settings.qps(),
                "IW (" + transport.transportName() + ")");
        out.printf(Locale.ROOT, " Connection type : RC\t\tUsing SRQ      : OFF%n");
        out.printf(Locale.ROOT, " TX depth        : %d%n", settings.txDepth());
        if (test == Test.SEND_BW || test == Test.SEND_LAT) {
            out.printf(Locale.ROOT, " RX depth        : %d%n", settings.rxDepth());
        }
        out.println(" rdma_cm QPs\t : ON");
        out.println(" Data ex. method : rdma_cm");
        out.println(LINE);
        out.flush();
    }

    private PerfSession.Settings settings() {
        if (all && size != null) {
            throw new IllegalArgumentException("give -s or -a, not both");
        }
        List<Integer> sizes = new ArrayList<>();
        if (all) {
            for (int each = 2; each <= Perftest.MAX_SIZE; each *= 2) {
                sizes.add(each);
            }
        } else {
            sizes.add(size != null ? size : test.defaultSize());
        }
        int runSeconds = seconds != null ? seconds : 0;
        int count = runSeconds > 0 ? 0 : iterations != null ? iterations : test.defaultIterations;
        if (runSeconds > 0 && iterations != null) {
            throw new IllegalArgumentException("give -n or -D, not both");
        }
        return new PerfSession.Settings(test, sizes, count, runSeconds,
                txDepth != null ? txDepth : rate > 0 ? loadTxDepth(test) : test.defaultTxDepth(),
                rxDepth != null ? rxDepth : rate > 0 ? Math.max(LOAD_WINDOW, test.defaultRxDepth())
                        : test.defaultRxDepth(), qps, verify, Duration.ofSeconds(timeoutSeconds),
                posting.cqMod, posting.postList, rate);
    }

    /** The tx depth for {@link #LOAD_WINDOW} messages in flight: write-lat's take two work requests each. */
    public static int loadTxDepth(Test test) {
        return test == Test.WRITE_LAT ? 2 * LOAD_WINDOW : LOAD_WINDOW;
    }
}
