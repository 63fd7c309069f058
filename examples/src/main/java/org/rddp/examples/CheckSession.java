package org.rddp.examples;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.rddp.check.AcceptingResponder;
import org.rddp.check.MpaInitiatorChecks;
import org.rddp.check.SctpInitiatorChecks;
import org.rddp.check.Verdict;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.Transports;
import org.rddp.wire.PrivateData;

/**
 * The session-control interop check ({@code org.rddp.check}, what {@code rddp interop} runs) against a server
 * started here: this stack's {@link AcceptingResponder}, which accepts every connection request, listening on
 * loopback over {@code mpa} or {@code sctp}. The checks play the initiator by hand, legal and illegal setups of
 * RFC 5044 / RFC 5043 with RFC 6581, and judge each answer on the wire: one {@link Verdict} per case. Point the
 * same checks at another implementation's responder to test it instead.
 */
public final class CheckSession {
    /** How long each case waits for an answer of the server. */
    private static final Duration WAIT = Duration.ofSeconds(3);

    private CheckSession() {
    }

    /** {@code CheckSession [mpa|sctp]}: runs the checks and prints each verdict and a summary. */
    public static void main(String[] args) throws Exception {
        List<Verdict> verdicts = run(args.length > 0 ? args[0] : "mpa", verdict -> System.out.printf(Locale.ROOT,
                "%-4s %-24s %s%n     expected: %s%n     observed: %s%n", verdict.outcome().label(), verdict.id(),
                verdict.rfc(), verdict.expected(), verdict.observed()));
        long passed = verdicts.stream().filter(verdict -> verdict.outcome() == Verdict.Outcome.PASS).count();
        System.out.println("CheckSession: " + passed + " of " + verdicts.size() + " cases passed");
    }

    /**
     * Starts the server over {@code transport}, runs the initiator checks against it, handing each verdict to
     * {@code each} as it comes, and stops the server.
     *
     * @return every verdict, in the order the cases ran
     */
    public static List<Verdict> run(String transport, Consumer<Verdict> each) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ConnectionManager manager = Transports.open(transport, loopback);
                AcceptingResponder server = new AcceptingResponder(manager, new InetSocketAddress(loopback, 0),
                        new AcceptOptions(PrivateData.EMPTY, 16, 16), line -> { })) { // it logs each accept here
            InetSocketAddress address = (InetSocketAddress) server.address();
            return switch (transport) {
                // one TCP connection per case, each carrying an MPA Request made by hand
                case "mpa" -> new MpaInitiatorChecks(address, WAIT).run(each);
                // one association, a DDP stream per case; the same SCTP backend as the server's: usrsctp reaches
                // only peers in its own process
                case "sctp" -> new SctpInitiatorChecks(SctpStacks.preferred(), new InetSocketAddress(loopback, 0),
                        address, WAIT).run(each);
                default -> throw new IllegalArgumentException("no checks for the transport '" + transport + "'");
            };
        }
    }
}
