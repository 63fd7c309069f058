package org.rddp.cli.compare;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.rddp.cli.perftest.PostingOptions;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rddp compare}, the main job: RDDP over every transport this machine has, next to the raw socket
 * baselines, over a size sweep; a table, and JSON and charts in a folder. Both ends run in this process on loopback,
 * or, with {@code --serve} on one host and {@code --peer} on another, in two processes ({@link CompareResponder},
 * {@link ComparePeer}). See {@link Compare}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"RDMA Write bandwidth and Send latency of RDDP over MPA and SCTP next to plain TCP and SCTP "
                + "sockets, for a size sweep; prints a table and writes JSON and charts.",
            "Both ends on loopback in this process; or a responder (--serve) and an initiator (--peer HOST) in two "
                + "processes or hosts, the initiator printing the table."})
public final class CompareCommand implements Callable<Integer> {
    @Option(names = "--serve", description = "be the responder of comparisons run from elsewhere with --peer, one "
            + "after another until killed")
    boolean serve;

    @Option(names = "--once", description = "with --serve: serve one comparison, then exit (0 if it went through)")
    boolean once;

    @Option(names = "--stats", description = "on exit, print the process's counters (refused, malformed, "
            + "terminated, lost, retransmitted) on stderr")
    boolean stats;

    @Option(names = {"-B", "--bind"}, defaultValue = "0.0.0.0", description = "with --serve: the address to listen "
            + "on; default: ${DEFAULT-VALUE}")
    InetAddress bind;

    @Option(names = {"-p", "--port"}, defaultValue = "" + CompareResponder.DEFAULT_PORT, description = "with "
            + "--serve: the control port; default: ${DEFAULT-VALUE} (also --peer's when it names none)")
    int port = CompareResponder.DEFAULT_PORT;

    @Option(names = "--peer", paramLabel = "HOST[:PORT]", description = "run against the responder there (rddp "
            + "compare --serve) instead of in this process")
    String peer;

    @Option(names = "--udp-port", description = "usrsctp over UDP: this side's UDP port (RFC 6951); default: a free "
            + "one (the responder tells the initiator its own)")
    Integer udpPort;

    @Option(names = "--sizes", split = ",", description = "message sizes in octets; default: "
            + "64,256,1024,4096,16384,65536,262144,1048576")
    List<Integer> sizes = List.of(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576);

    @Option(names = "--mib-per-point", defaultValue = "0", description = "MiB moved per bandwidth point (100 to "
            + "50000 messages) instead of sizing each point to --seconds-per-point")
    int mibPerPoint;

    @Option(names = "--seconds-per-point", defaultValue = "1", description = "how long a bandwidth point lasts, "
            + "at the rate its warm-up showed; default: ${DEFAULT-VALUE}")
    double secondsPerPoint = 1;

    @Option(names = "--repeat", defaultValue = "1", description = "measure every point this many times; the table "
            + "shows the median, the spread and the median of the ratios taken within each run; default: "
            + "${DEFAULT-VALUE}")
    int repeat = 1;

    @Option(names = "--latency-iters", defaultValue = "1000", description = "round trips per latency point; "
            + "default: ${DEFAULT-VALUE}")
    int latencyIterations = 1000;

    @Option(names = "--latency-max", defaultValue = "65536", description = "largest size latency is measured at; "
            + "default: ${DEFAULT-VALUE}")
    int latencyMax = 65536;

    @Option(names = {"-t", "--transports"}, split = ",", description = "mpa, sctp; default: every one available")
    List<String> transports;

    @Option(names = "--sctp-stack", defaultValue = "auto", description = "SCTP backend: auto, kernel, usrsctp, "
            + "usrsctp-udp, usrsctp-native; default: ${DEFAULT-VALUE} (with --peer the responder runs the same)")
    String sctpStack = "auto";

    @Option(names = "--crc", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "MPA CRCs (RFC 5044 §4.4); --no-crc compares without them (both ends ask for none)")
    boolean crc = true;

    @Option(names = "--mpa-mtu", defaultValue = "0", description = "the path MTU MPA cuts FPDUs for; default: the "
            + "interface's")
    int mpaMtu;

    @Option(names = "--load-rate", defaultValue = "0", description = "also time round trips under an offered load: "
            + "this many messages a second (RDDP's Sends, the TCP socket's messages), each echoed, each timed from "
            + "when it fell due, p50/p99/p99.9 and a percentile chart; default: none (with --scenarios: 1000)")
    int loadRate;

    @Option(names = "--load-size", defaultValue = "1024", description = "the load's message size in octets; "
            + "default: ${DEFAULT-VALUE}")
    int loadSize;

    @Option(names = "--load-seconds", defaultValue = "5", description = "how long a load point lasts; "
            + "default: ${DEFAULT-VALUE}")
    double loadSeconds;

    @Option(names = "--qps", split = ",", description = "also measure RDDP with this many queue pairs to the peer "
            + "(e.g. 1,100,1000; at most 1000): how fast they come up one after another, the Write bandwidth of all "
            + "together, and the threads and memory each adds; default: none")
    List<Integer> qps;

    @Option(names = "--qp-size", defaultValue = "4096", description = "with --qps: the Writes' size in octets; "
            + "default: ${DEFAULT-VALUE}")
    int qpSize;

    @Option(names = "--scenarios", split = ";", paramLabel = "SCENARIO", description = "network conditions to "
            + "measure under, separated by ';' (e.g. 'loss 0;loss 0.01'): before each, --scenario-command runs with "
            + "the scenario's words as arguments, and after the last with 'clear'; every output names its scenario. "
            + "One scenario without a command names conditions set otherwise")
    List<String> scenarios;

    @Option(names = "--scenario-command", paramLabel = "COMMAND", description = "what sets a scenario, split at "
            + "spaces (e.g. 'interop-tests/faults/netns.sh' or 'interop-tests/vm/netem.sh')")
    String scenarioCommand;

    @Option(names = {"-o", "--out"}, defaultValue = "compare-results", description = "folder for compare.json, "
            + "bandwidth.png and latency.png; default: ${DEFAULT-VALUE}")
    Path out = Path.of("compare-results");

    @Option(names = "--json", description = "print the JSON instead of the table")
    boolean json;

    @Option(names = "--exs", description = "add the Extended Sockets API's normal sends over each transport (EXS "
            + "over MPA, EXS over SCTP: advertised, read, acknowledged), each end driven by its own thread; both ends "
            + "in this process, with the transports' defaults")
    boolean exs;

    /** RDDP's Write bandwidth series posts as {@code write-bw} does. */
    @picocli.CommandLine.Mixin
    PostingOptions posting;

    @Option(names = "--ipv6", description = "add each transport's series over IPv6's loopback (::1) next to IPv4's, "
            + "both ends in this process")
    boolean ipv6;

    @Option(names = "--sctp-profile", defaultValue = "default", description = "SCTP's protocol parameters for RDDP "
            + "over SCTP and the SCTP socket: default, rfc9260 or fast-failover (docs/transports.md); with --peer the "
            + "responder takes the same; default: ${DEFAULT-VALUE}")
    String sctpProfile = "default";

    @Option(names = "--multihome", split = ",", description = "RDDP over SCTP and the SCTP socket bind these local "
            + "addresses too, so that their associations outlive a failed path (kernel SCTP; with --serve, the "
            + "responder's own)")
    List<InetAddress> multihome = List.of();

    @Option(names = "--mptcp", description = "add the TCP side's series over Multipath TCP (RFC 8684), their sockets "
            + "opened as MPTCP at both ends: TCP socket over MPTCP, RDDP over MPA over MPTCP; the conditions name "
            + "the path manager's limits and endpoints")
    boolean mptcp;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Messages a second a load offers under --scenarios when --load-rate is not given. */
    static final int DEFAULT_LOAD_RATE = 1000;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (udpPort != null) {
            System.setProperty(UsrsctpStack.UDP_PORT_PROPERTY, udpPort.toString()); // read once, when usrsctp starts
        }
        if (serve) {
            if (peer != null) {
                throw new IllegalArgumentException("give --serve or --peer, not both");
            }
            try (CompareResponder responder = new CompareResponder(bind, port, multihome, stdout, err)) {
                return responder.serve(once);
            }
        }
        if (once) {
            throw new IllegalArgumentException("--once is for the responder (--serve)");
        }
        if (exs && (peer != null || !crc || mpaMtu != 0 || !sctpStack.equals("auto"))) {
            throw new IllegalArgumentException("--exs runs EXS in this process over the transports' defaults (the "
                    + "preferred SCTP backend, MPA with CRCs): give it without --peer, --no-crc, --mpa-mtu and "
                    + "--sctp-stack");
        }
        org.rddp.transport.sctp.ProtocolParameters.named(sctpProfile); // a wrong name fails before anything runs
        List<Compare.Series> series = new ArrayList<>();
        SctpStack stack = null;
        for (String transport : transports != null ? transports : List.of("mpa", "sctp")) {
            switch (transport.toLowerCase(Locale.ROOT)) {
                case "mpa" -> {
                    series.addAll(List.of(Compare.Series.TCP_SOCKET, Compare.Series.RDDP_MPA,
                            Compare.Series.MPA_FLOOR));
                    if (exs) {
                        series.add(Compare.Series.EXS_MPA);
                    }
                }
                case "sctp" -> {
                    try {
                        stack = SctpStacks.byName(sctpStack);
                        series.add(Compare.Series.SCTP_SOCKET);
                        if (stack.name().equals("kernel") && peer == null) {
                            String jdk = JdkSctp.unavailable();
                            if (jdk == null) {
                                series.add(Compare.Series.JDK_SCTP_SOCKET); // what a Java user would pick
                                series.add(Compare.Series.NETTY_SCTP_SOCKET); // and a Netty user
                            } else {
                                err.println("compare: " + jdk + "; comparing without it");
                            }
                        }
                        series.add(Compare.Series.RDDP_SCTP);
                        if (exs) {
                            series.add(Compare.Series.EXS_SCTP);
                        }
                    } catch (java.io.IOException | UnsupportedOperationException e) {
                        if (transports != null) {
                            throw e; // asked for by name: no quiet fallback
                        }
                        err.println("compare: no SCTP here (" + e.getMessage() + "); comparing TCP/MPA only");
                    }
                }
                default -> throw new IllegalArgumentException("a transport is mpa or sctp, not " + transport);
            }
        }
        if (ipv6) {
            if (peer != null) {
                throw new IllegalArgumentException("--ipv6 runs both ends in this process, on ::1: give it without "
                        + "--peer (a responder's series run on the address it was reached at)");
            }
            for (Compare.Series each : List.copyOf(series)) {
                if (each.overIpv6() != null) {
                    series.add(each.overIpv6());
                }
            }
        }
        if (mptcp) {
            String why = org.rddp.transport.mpa.Mptcp.unavailable();
            if (why != null) {
                throw new IllegalArgumentException("--mptcp: " + why);
            }
            for (Compare.Series each : List.copyOf(series)) {
                if (each.overMptcp() != null) {
                    series.add(series.indexOf(each) + 1, each.overMptcp()); // beside its TCP series
                }
            }
            if (series.stream().noneMatch(Compare.Series::mptcp)) {
                throw new IllegalArgumentException("--mptcp adds MPA's series over Multipath TCP: give it with mpa");
            }
        }
        // what the conditions add to where the ends ran: this host's MPTCP, SCTP's protocol parameters
        String setupMore = (mptcp ? MptcpHost.conditions() : "") + (stack == null ? "" : "; SCTP profile "
                + sctpProfile + ": " + org.rddp.transport.sctp.ProtocolParameters.named(sctpProfile).describe());
        List<String> named = scenarios == null ? java.util.Collections.singletonList(null) : scenarios.stream()
                .map(String::strip).toList();
        Scenarios setter = Scenarios.of(scenarioCommand, named, err);
        Compare.Load load = loadRate > 0 || scenarios != null ? new Compare.Load(loadSize, loadRate > 0 ? loadRate
                : DEFAULT_LOAD_RATE, loadSeconds) : null;
        List<Compare.Results> results = new ArrayList<>();
        List<List<Failover.Result>> failovers = new ArrayList<>();
        List<String> failoverConditions = new ArrayList<>();
        if (peer == null) {
            TransportOptions mpa = new TransportOptions();
            mpa.crc = crc;
            mpa.mpaMtu = mpaMtu;
            TransportOptions sctp = new TransportOptions();
            sctp.transport = TransportOptions.Transport.SCTP;
            sctp.sctpStack = sctpStack;
            sctp.sctpProfile = sctpProfile;
            sctp.multihome = multihome;
            Compare.Plan plan = plan(series, stack, load);
            banner(stdout, series, stack, "loopback, both ends in this process" + Compare.tcpCongestionControl());
            Compare.Measure measure = Compare.inProcess(new CompareEnds.Transports(mpa, sctp, stack,
                    posting.cqMod, posting.postList));
            String setup = Compare.IN_PROCESS + Compare.mtu(InetAddress.getLoopbackAddress()) + setupMore;
            try (setter) {
                for (String scenario : named) {
                    if (Failover.Scenario.is(scenario)) {
                        failovers.add(failover(scenario, series, setter, measure, err));
                        failoverConditions.add(failoverConditions(setup, stack, scenario));
                        continue;
                    }
                    setter.set(scenario);
                    results.add(Compare.run(plan.under(scenario), measure, setup, err::println));
                    kept(results, series, err);
                }
            }
        } else {
            if (!crc) {
                throw new IllegalArgumentException("--no-crc is for the comparison in this process: a responder "
                        + "asks for CRCs, and either side's asking turns them on (RFC 5044 §7.1.1)");
            }
            InetSocketAddress responder = responder(peer, port);
            try (ComparePeer remote = ComparePeer.connect(responder, stack, sctpProfile, multihome, posting.cqMod,
                    posting.postList, mptcp, err); setter) {
                String conditions = remote.setup() + setupMore + remote.responderMptcp();
                SctpStack remoteStack = remote.transports().sctpStack();
                banner(stdout, series, remoteStack, "initiator here, responder at " + responder.getHostString() + ":"
                        + responder.getPort() + Compare.tcpCongestionControl().replace("control", "control here"));
                for (String scenario : named) {
                    if (Failover.Scenario.is(scenario)) {
                        failovers.add(failover(scenario, series, setter, remote, err));
                        failoverConditions.add(failoverConditions(conditions, remoteStack, scenario));
                        continue;
                    }
                    setter.set(scenario);
                    results.add(Compare.run(plan(series, remoteStack, load).under(scenario), remote, conditions,
                            err::println));
                    kept(results, series, err);
                }
            } catch (PeerException e) {
                err.println("rddp compare: " + e.getMessage());
                return 1;
            }
        }
        List<Path> written = new ArrayList<>(results.isEmpty() ? List.of() : Compare.write(results, series, out));
        if (!failovers.isEmpty()) {
            written.addAll(FailoverOutput.write(failovers, failoverConditions, out));
        }
        if (json) {
            for (Path each : written.stream().filter(path -> path.toString().endsWith(".json")).toList()) {
                stdout.println(java.nio.file.Files.readString(each));
            }
        } else {
            for (Compare.Results each : results) {
                stdout.print(Compare.tables(each, series));
            }
            for (List<Failover.Result> each : failovers) {
                stdout.print(Failover.table(each));
            }
            stdout.println("written: " + String.join(", ", written.stream().map(Path::toString).toList()));
        }
        return failovers.stream().flatMap(List::stream).anyMatch(result -> result.error() != null) ? 1 : 0;
    }

    /**
     * Runs the failover {@code scenario} over {@code series} through {@code measure}, the network cleared of what an
     * earlier scenario set first.
     */
    private static List<Failover.Result> failover(String scenario, List<Compare.Series> series, Scenarios setter,
            Compare.Measure measure, PrintWriter err) throws java.io.IOException, InterruptedException {
        setter.close(); // no loss or reordering left from a scenario before
        err.println("compare: network: " + scenario);
        err.flush();
        return Failover.run(series, Failover.Scenario.parse(scenario), setter, measure, line -> {
            err.println(line);
            err.flush();
        });
    }

    /** The conditions line of a failover scenario, as {@link Compare#conditions} says a sweep's. */
    private static String failoverConditions(String setup, SctpStack stack, String scenario) {
        Failover.Scenario parsed = Failover.Scenario.parse(scenario);
        return Compare.conditions(new Compare.Results(setup, stack == null ? null : stack.name(),
                List.of(parsed.idle() ? FailoverIdle.SIZE : Failover.SIZE), 1, List.of(), null, parsed.toString()));
    }

    /**
     * With more scenarios to go, writes what the ones so far measured, so that a long matrix stopped part way keeps
     * it; the last write, after all, is the caller's.
     */
    private void kept(List<Compare.Results> results, List<Compare.Series> series, PrintWriter err)
            throws java.io.IOException {
        if (scenarios != null && results.size() < scenarios.size()) {
            Compare.write(results, series, out);
            err.println("compare: " + results.size() + " of " + scenarios.size() + " scenarios written to " + out);
        }
    }

    private Compare.Plan plan(List<Compare.Series> series, SctpStack stack, Compare.Load load) {
        return new Compare.Plan(sizes, (long) mibPerPoint << 20, secondsPerPoint, latencyIterations, latencyMax,
                repeat, series, stack, load, null, qps == null || qps.isEmpty() ? null : new Compare.Many(qps, qpSize,
                        Compare.Many.MESSAGES));
    }

    private static void banner(PrintWriter stdout, List<Compare.Series> series, SctpStack stack, String where) {
        stdout.println("rddp compare: " + String.join(", ", series.stream().map(each -> each.label).toList())
                + (stack != null ? " (SCTP: " + stack.name() + ")" : "") + "; " + where);
        stdout.flush();
    }

    /** {@code HOST}, {@code HOST:PORT} or {@code [IPv6]:PORT}; the port defaults to {@code port}. */
    static InetSocketAddress responder(String peer, int port) throws UnknownHostException {
        String host = peer;
        int at = port;
        int colon = peer.lastIndexOf(':');
        boolean bracketed = peer.startsWith("[");
        if (colon > 0 && (bracketed ? peer.indexOf(']') < colon : peer.indexOf(':') == colon)) {
            host = peer.substring(0, colon);
            try {
                at = Integer.parseInt(peer.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--peer is HOST or HOST:PORT, not " + peer);
            }
        }
        if (bracketed) {
            host = host.substring(1, host.indexOf(']'));
        }
        return new InetSocketAddress(InetAddress.getByName(host), at);
    }
}
