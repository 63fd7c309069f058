package org.rddp.cli.interop;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.rddp.check.AcceptingResponder;
import org.rddp.check.MpaInitiatorChecks;
import org.rddp.check.MpaResponderChecks;
import org.rddp.check.SctpInitiatorChecks;
import org.rddp.check.SctpResponderChecks;
import org.rddp.check.Verdict;
import org.rddp.cli.TransportOptions;
import org.rddp.cli.perftest.PerfReport;
import org.rddp.cli.ping.Ping;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.verbs.ConnectionManager;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rddp interop}: the session-control interop checks of {@link org.rddp.check} against a peer. With an
 * address it is the initiator and walks the matrix against the peer's responder; with {@code --respond} it is the
 * responder and judges the peer's initiator, one connection (MPA) or session (SCTP) per case; with {@code --serve}
 * it is this stack's own accepting responder, for other implementations' checks. Exit status 1 if any case failed.
 */
@Command(name = "interop", sortOptions = false, mixinStandardHelpOptions = true,
        description = "Session-control interop checks against a peer (RFC 5044/6581 over TCP, RFC 5043/6581 over "
                + "SCTP): per case what the RFCs expect, what the peer did on the wire, pass or FAIL.")
public final class InteropCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "PEER", description = "the peer's responder: run the initiator checks")
    String peer;

    @ArgGroup(exclusive = true)
    Role role = new Role();

    /** Without PEER: which passive role. */
    static final class Role {
        @Option(names = "--respond", description = "be the responder the peer's initiator connects to, once per "
                + "case (MPA: " + MpaResponderChecks.CASES + " connections; SCTP: " + SctpResponderChecks.CASES
                + " sessions)")
        boolean respond;

        @Option(names = "--serve", description = "be this stack's accepting responder (for other tools' checks) "
                + "until interrupted")
        boolean serve;
    }

    @Option(names = "-p", defaultValue = "" + Ping.DEFAULT_PORT, description = "port; default: ${DEFAULT-VALUE} "
            + "(rping's)")
    int port;

    @Option(names = "-B", defaultValue = "0.0.0.0", description = "address to listen on (--respond, --serve); "
            + "default: ${DEFAULT-VALUE}")
    String bind;

    @Option(names = "--wait", defaultValue = "5", description = "seconds to wait for each answer of the peer; "
            + "default: ${DEFAULT-VALUE}")
    int waitSeconds;

    @Option(names = "--connect-wait", defaultValue = "60", description = "--respond: seconds to wait for each of "
            + "the peer's connections; default: ${DEFAULT-VALUE}")
    int connectWaitSeconds;

    @Option(names = "--json", description = "print the verdicts as JSON at the end instead of the table")
    boolean json;

    @Mixin
    TransportOptions transport;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        boolean sctp = transport.transport == TransportOptions.Transport.SCTP;
        if (transport.mptcp) {
            throw new IllegalArgumentException("the session-control checks drive TCP or SCTP by hand: --mptcp does not "
                    + "apply to them");
        }
        Duration wait = Duration.ofSeconds(waitSeconds);
        Consumer<Verdict> print = json ? verdict -> { } : verdict -> {
            out.print(row(verdict));
            out.flush();
        };
        List<Verdict> verdicts;
        if (peer != null) {
            if (role.respond || role.serve) {
                throw new IllegalArgumentException("give a PEER to check its responder, or --respond/--serve, "
                        + "not both");
            }
            InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(peer), port);
            header(out, "initiator", remote);
            verdicts = sctp ? new SctpInitiatorChecks(transport.sctpStack(), new InetSocketAddress(
                    TransportOptions.localFor(remote.getAddress()), 0), remote, wait).run(print)
                    : new MpaInitiatorChecks(remote, wait).run(print);
        } else if (role.serve) {
            return serve(out);
        } else if (role.respond) {
            InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(bind), port);
            Duration connectWait = Duration.ofSeconds(connectWaitSeconds);
            SctpStack stack = sctp ? transport.sctpStack() : null;
            Consumer<InetSocketAddress> listening = address -> {
                header(out, "responder", address);
                out.println("interop: listening on " + address + "; now run the peer's initiator "
                        + (sctp ? SctpResponderChecks.CASES + " times" : MpaResponderChecks.CASES + " times")
                        + TransportOptions.encapsulation(stack));
                out.flush();
            };
            verdicts = sctp ? new SctpResponderChecks(stack, local, connectWait, wait)
                    .run(listening, print) : new MpaResponderChecks(local, connectWait, wait).run(listening, print);
        } else {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "give the PEER to check, or --respond, or --serve");
        }
        long failed = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.FAIL).count();
        if (json) {
            ObjectNode document = PerfReport.JSON.createObjectNode();
            document.put("transport", sctp ? "sctp" : "mpa");
            document.put("role", peer != null ? "initiator" : "responder");
            document.set("cases", PerfReport.JSON.valueToTree(verdicts));
            out.println(PerfReport.JSON.writeValueAsString(document));
        } else {
            out.println(summary(verdicts));
        }
        return failed == 0 ? 0 : 1;
    }

    private void header(PrintWriter out, String side, InetSocketAddress address) {
        if (!json) {
            out.println("rddp interop: " + (transport.transport == TransportOptions.Transport.SCTP
                    ? "SCTP (RFC 5043, RFC 6581 §7)" : "TCP/MPA (RFC 5044, RFC 6581)") + ", this side the " + side
                    + (side.equals("initiator") ? ", the peer's responder at " + address : ""));
            out.flush();
        }
    }

    private int serve(PrintWriter out) throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(bind), port);
        try (ConnectionManager manager = transport.open(local.getAddress());
                AcceptingResponder responder = new AcceptingResponder(manager, local, transport.acceptOptions(),
                        line -> {
                            out.println("interop: " + line);
                            out.flush();
                        })) {
            out.println("interop: serving on " + responder.address() + transport.encapsulation(manager)
                    + "; every connection request is accepted");
            out.flush();
            new java.util.concurrent.CountDownLatch(1).await(); // until interrupted
        }
        return 0;
    }

    /** One verdict as a block of the table. */
    static String row(Verdict verdict) {
        return String.format(Locale.ROOT, "%-4s %-24s %s%n     sent:     %s%n     expected: %s%n     observed: %s%n",
                verdict.outcome().label(), verdict.id(), verdict.rfc(), verdict.sent(), verdict.expected(),
                verdict.observed());
    }

    /** The closing line: how many cases passed, failed, did not apply. */
    static String summary(List<Verdict> verdicts) {
        return String.format(Locale.ROOT, "interop: %d cases, %d passed, %d failed, %d not applicable",
                verdicts.size(), count(verdicts, Verdict.Outcome.PASS), count(verdicts, Verdict.Outcome.FAIL),
                count(verdicts, Verdict.Outcome.NOT_APPLICABLE));
    }

    private static long count(List<Verdict> verdicts, Verdict.Outcome outcome) {
        return verdicts.stream().filter(v -> v.outcome() == outcome).count();
    }
}
