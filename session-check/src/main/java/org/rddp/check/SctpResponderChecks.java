package org.rddp.check;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.rddp.error.MpaError;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.raw.RawSctpPeer;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.wire.PrivateData;

/**
 * The RFC 5043 / RFC 6581 §7 session-control matrix with this side as the passive side: the peer opens one DDP
 * stream session per case (on any association) and each Initiate gets the next answer: an Accept of the matching
 * kind (the Initiate checked: unordered, DDP-SSN 0, sane enhanced data), a Reject with private data, a non-ULP
 * reject (Terminate), an answer of the wrong kind (Enhanced Accept to a plain Initiate, plain Accept to an enhanced
 * one: the peer must end the session with a Terminate), and an Enhanced Accept whose ORD exceeds the initiator's IRD
 * (an RDMAP Terminate 0x2/0x0/0x06, then a Terminate).
 */
public final class SctpResponderChecks {
    /** Sessions the peer must open: one per case. */
    public static final int CASES = 5;
    private static final int DEPTH = 16;
    private static final Duration QUIET = Duration.ofMillis(500);
    private static final Duration POLL = Duration.ofMillis(20);
    private static final PrivateData REJECTED = PrivateData.of("rddp interop: rejected"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));

    private final SctpStack stack;
    private final InetSocketAddress local;
    private final Duration connectWait;
    private final Duration wait;

    /**
     * Checks the active sides that open sessions at {@code local}, through {@code stack}.
     *
     * @param connectWait how long to wait for each of the peer's Initiates
     * @param wait        how long to wait for each answer of the peer
     */
    public SctpResponderChecks(SctpStack stack, InetSocketAddress local, Duration connectWait, Duration wait) {
        this.stack = stack;
        this.local = local;
        this.connectWait = connectWait;
        this.wait = wait;
    }

    /** One Initiate of the peer, on the association it came on. */
    private record Initiate(SctpEvents events, RawSctpPeer.Chunk chunk, SessionControl control) {
        boolean enhanced() {
            return control.functionCode() == FunctionCode.ENHANCED_INITIATE;
        }

        int stream() {
            return chunk.streamId();
        }

        void answer(SessionControl answer) throws IOException {
            events.peer().control(stream(), 0, answer);
        }
    }

    /** What one case answers, and how it judges what follows. */
    @FunctionalInterface
    private interface Answer {
        Verdict run(Verdict.Case check, Initiate initiate, String asked) throws IOException, InterruptedException;
    }

    private record Step(Verdict.Case check, Answer answer) {
    }

    /**
     * Listens at the local address and judges one peer session per case; {@code listening} hears the bound
     * address, {@code each} every verdict as it is reached.
     */
    public List<Verdict> run(Consumer<InetSocketAddress> listening, Consumer<Verdict> each) throws IOException,
            InterruptedException {
        List<Verdict> verdicts = new ArrayList<>();
        LinkedBlockingQueue<RawSctpPeer> arriving = new LinkedBlockingQueue<>();
        List<SctpEvents> associations = new ArrayList<>();
        try (SctpStack.Listening listener = RawSctpPeer.serve(stack, local, DdpSctp.ADAPTATION_INDICATION,
                arriving::add)) {
            listening.accept(listener.address());
            for (Step step : steps()) {
                Initiate initiate = nextInitiate(arriving, associations);
                Verdict verdict;
                if (initiate == null) {
                    verdict = step.check().judged("no Initiate from the peer within " + connectWait.toSeconds()
                            + " s", false);
                } else {
                    String asked = SctpEvents.describe(initiate.chunk());
                    String problem = initiateProblem(initiate);
                    verdict = problem != null ? step.check().judged(asked + ": " + problem, false)
                            : step.answer().run(step.check(), initiate, asked);
                }
                each.accept(verdict);
                verdicts.add(verdict);
            }
        } finally {
            associations.forEach(events -> events.peer().close());
        }
        return verdicts;
    }

    private Initiate nextInitiate(LinkedBlockingQueue<RawSctpPeer> arriving, List<SctpEvents> associations)
            throws InterruptedException {
        long deadline = System.nanoTime() + connectWait.toNanos();
        while (System.nanoTime() < deadline) {
            for (RawSctpPeer peer; (peer = arriving.poll()) != null;) {
                associations.add(new SctpEvents(peer));
            }
            if (associations.isEmpty()) {
                RawSctpPeer peer = arriving.poll(POLL.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                if (peer != null) {
                    associations.add(new SctpEvents(peer));
                }
                continue;
            }
            for (SctpEvents events : associations) {
                RawSctpPeer.Chunk chunk = events.any(POLL);
                FunctionCode code = SctpEvents.code(chunk);
                if (code == FunctionCode.INITIATE || code == FunctionCode.ENHANCED_INITIATE) {
                    try {
                        return new Initiate(events, chunk, chunk.control());
                    } catch (org.rddp.wire.MalformedFrameException e) {
                        throw new IllegalStateException("decoded once already", e);
                    }
                }
            }
        }
        return null;
    }

    private static String initiateProblem(Initiate initiate) {
        if (!initiate.chunk().unordered() || initiate.chunk().ddpSsn() != 0) {
            return "an Initiate must be unordered with DDP-SSN 0";
        }
        return initiate.enhanced() && Ulpdus.strayRtrBits(SctpEvents.enhancedWord(initiate.chunk()))
                ? "A=0 with an RTR bit set" : null;
    }

    private List<Step> steps() {
        return List.of(
                new Step(new Verdict.Case("accept", "RFC 5043 §6.2, §10, RFC 6581 §7", "Accept of the matching kind "
                        + "(IRD/ORD per §9.1)", "a valid Initiate; after the Accept nothing illegal on the stream"),
                        this::accept),
                new Step(new Verdict.Case("reject", "RFC 5043 §6.3, RFC 6581 §7", "Reject (0x3, or 0x7 to an "
                        + "enhanced Initiate, its private data the ULP's alone) with 22 octets of PD",
                        "nothing more on that stream"),
                        (check, initiate, asked) -> quiet(check, initiate, asked, initiate.enhanced()
                                ? new SessionControl.EnhancedReject(REJECTED) : new SessionControl.Reject(REJECTED))),
                new Step(new Verdict.Case("non-ulp-reject", "RFC 5043 §6.4", "Terminate (0x4)",
                        "nothing more on that stream"), (check, initiate, asked) -> quiet(check, initiate, asked,
                                new SessionControl.Terminate())),
                new Step(new Verdict.Case("wrong-kind", "RFC 5043 §6.1, RFC 6581 §7", "Enhanced Accept to a plain "
                        + "Initiate, or plain Accept to an enhanced one", "Terminate (0x4) on that stream"),
                        this::wrongKind),
                new Step(new Verdict.Case("ird-short", "RFC 6581 §9.1", "Enhanced Accept with ORD one more than the "
                        + "initiator's IRD", "RDMAP Terminate 0x2/0x0/0x06 (PPID 16), then Terminate (0x4)"),
                        this::irdShort));
    }

    private Verdict accept(Verdict.Case check, Initiate initiate, String asked) throws IOException,
            InterruptedException {
        if (initiate.enhanced()) {
            EnhancedConnectionData theirs = initiate.control().enhancedData().orElseThrow();
            IrdOrdNegotiation.Answer answer = IrdOrdNegotiation.respond(theirs.ird(), theirs.ord(), DEPTH, DEPTH,
                    false);
            initiate.answer(new SessionControl.EnhancedAccept(EnhancedConnectionData.clientServer(answer.replyIrd(),
                    answer.replyOrd()), PrivateData.EMPTY));
        } else {
            initiate.answer(new SessionControl.Accept(PrivateData.EMPTY));
        }
        RawSctpPeer.Chunk next = initiate.events().next(initiate.stream(), QUIET);
        String observed = asked + "; after our Accept: " + (next == null ? initiate.events().silence(QUIET)
                : SctpEvents.describe(next));
        boolean pass = next == null ? !initiate.events().down()
                : next.unordered() && next.ddpSsn() == 1 && SctpEvents.code(next) != FunctionCode.INITIATE;
        initiate.events().peer().control(initiate.stream(), 1, new SessionControl.Terminate());
        return check.judged(observed, pass);
    }

    private Verdict quiet(Verdict.Case check, Initiate initiate, String asked, SessionControl answer)
            throws IOException, InterruptedException {
        initiate.answer(answer);
        RawSctpPeer.Chunk next = initiate.events().next(initiate.stream(), QUIET);
        FunctionCode code = SctpEvents.code(next);
        if ((code == FunctionCode.INITIATE || code == FunctionCode.ENHANCED_INITIATE) && next.ddpSsn() == 0) {
            initiate.events().putBack(next); // a new session on the stream, after the refused one: the next case's
            next = null;
        }
        return check.judged(asked + "; then: " + (next == null ? "nothing more of that session"
                : SctpEvents.describe(next)), next == null);
    }

    private Verdict wrongKind(Verdict.Case check, Initiate initiate, String asked) throws IOException,
            InterruptedException {
        initiate.answer(initiate.enhanced() ? new SessionControl.Accept(PrivateData.EMPTY)
                : new SessionControl.EnhancedAccept(EnhancedConnectionData.clientServer(DEPTH, 0), PrivateData.EMPTY));
        RawSctpPeer.Chunk next = initiate.events().next(initiate.stream(), wait);
        return check.judged(asked + "; then: " + (next == null ? initiate.events().silence(wait)
                : SctpEvents.describe(next)), SctpEvents.code(next) == FunctionCode.TERMINATE);
    }

    private Verdict irdShort(Verdict.Case check, Initiate initiate, String asked) throws IOException,
            InterruptedException {
        EnhancedConnectionData theirs = initiate.control().enhancedData().orElse(null);
        if (theirs == null || theirs.ird() >= EnhancedConnectionData.NO_NEGOTIATION - 1) {
            initiate.answer(new SessionControl.Reject(REJECTED));
            return check.notApplicable(asked + ": needs an Enhanced Initiate with an IRD to exceed");
        }
        initiate.answer(new SessionControl.EnhancedAccept(EnhancedConnectionData.clientServer(Math.max(theirs.ord(),
                1), theirs.ird() + 1), PrivateData.EMPTY));
        RawSctpPeer.Chunk first = initiate.events().next(initiate.stream(), wait);
        String observed = asked + "; then: " + (first == null ? initiate.events().silence(wait)
                : SctpEvents.describe(first));
        boolean terminate = first != null && first.ppid() == DdpSctp.PPID_DDP_SEGMENT && Ulpdus.decode(
                java.util.Arrays.copyOfRange(first.octets(), 2, first.octets().length))
                .terminates(MpaError.INSUFFICIENT_IRD);
        if (!terminate) {
            return check.judged(observed, false);
        }
        RawSctpPeer.Chunk last = initiate.events().next(initiate.stream(), wait);
        return check.judged(observed + ", then " + (last == null ? initiate.events().silence(wait)
                : SctpEvents.describe(last)), SctpEvents.code(last) == FunctionCode.TERMINATE);
    }
}
