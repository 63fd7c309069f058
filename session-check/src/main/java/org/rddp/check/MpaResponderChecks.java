package org.rddp.check;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.rddp.error.MpaError;
import org.rddp.rdmap.RtrType;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.transport.mpa.raw.RawMpaPeer;
import org.rddp.wire.PrivateData;

/**
 * The MPA setup matrix with this side as the responder (RFC 5044 §7.1, RFC 6581 §9): the peer connects once per
 * case (run its initiator that many times, e.g. {@code rping -c} in a loop) and each connection gets the next
 * answer: an accepting Reply (its Request checked, then its first FPDU: an RTR in peer-to-peer), a reject with
 * private data, an enhanced Reply whose ORD exceeds the initiator's IRD (it must Terminate with 0x06), a
 * peer-to-peer Reply offering no RTR type the initiator can send (0x07), then the malformed Replies: a bad key,
 * PD_Length 513 (last, as they may leave a peer's connection manager in a state of its own).
 */
public final class MpaResponderChecks {
    /** Connections the peer must make: one per case. */
    public static final int CASES = 6;
    private static final int DEPTH = 16;
    private static final PrivateData REJECTED = PrivateData.of("rddp interop: rejected"
            .getBytes(StandardCharsets.US_ASCII));

    private final InetSocketAddress local;
    private final Duration connectWait;
    private final Duration wait;

    /**
     * Checks the initiators that connect to {@code local}.
     *
     * @param connectWait how long to wait for each of the peer's connections
     * @param wait        how long to wait for each answer of the peer
     */
    public MpaResponderChecks(InetSocketAddress local, Duration connectWait, Duration wait) {
        this.local = local;
        this.connectWait = connectWait;
        this.wait = wait;
    }

    /** What one case answers to a request, and how it judges what follows. */
    @FunctionalInterface
    private interface Answer {
        Verdict run(Verdict.Case check, RawMpaPeer connection, Request request) throws IOException;
    }

    private record Step(Verdict.Case check, Answer answer) {
    }

    /** The peer's request, as it came and as decoded ({@code null} when malformed). */
    private record Request(MpaEvents seen, MpaStartupFrame frame, String problem) {
        boolean crc() {
            return frame.crc();
        }

        String describe() {
            return seen.describe(MpaStartupFrame.Kind.REQUEST) + (problem == null ? "" : " (" + problem + ")");
        }
    }

    /**
     * Listens at the local address, takes one connection per case and judges each; hands each verdict to
     * {@code each} as it is reached; {@code listening} hears the bound address once the socket is open.
     */
    public List<Verdict> run(Consumer<InetSocketAddress> listening, Consumer<Verdict> each) throws IOException {
        List<Verdict> verdicts = new ArrayList<>();
        try (RawMpaPeer.Server server = new RawMpaPeer.Server(local, connectWait, wait)) {
            listening.accept((InetSocketAddress) server.address());
            for (Step step : steps()) {
                Verdict verdict;
                try (RawMpaPeer connection = server.accept()) {
                    Request request = request(connection);
                    verdict = request.frame() == null || request.problem() != null
                            ? step.check().judged("a bad Request: " + request.describe(), false)
                            : step.answer().run(step.check(), connection, request);
                } catch (SocketTimeoutException e) {
                    verdict = step.check().judged("no connection from the peer within " + connectWait.toSeconds()
                            + " s", false);
                }
                each.accept(verdict);
                verdicts.add(verdict);
            }
        }
        return verdicts;
    }

    private Request request(RawMpaPeer connection) {
        MpaEvents seen = MpaEvents.frame(connection, wait);
        if (seen.frame() == null) {
            return new Request(seen, null, null);
        }
        MpaStartupFrame frame = seen.decoded(MpaStartupFrame.Kind.REQUEST);
        String problem = null;
        if (frame != null && frame.enhanced() && Ulpdus.strayRtrBits(seen.enhancedWord())) {
            problem = "A=0 with an RTR bit set (RFC 6581 §9.2: they MUST be 0)";
        } else if (frame != null && frame.enhanced() && frame.enhancedData().peerToPeer()
                && frame.enhancedData().rtrTypes().isEmpty()) {
            problem = "A=1 without any RTR type (RFC 6581 §9.2)";
        }
        return new Request(seen, frame, problem);
    }

    private List<Step> steps() {
        return List.of(
                new Step(new Verdict.Case("accept", "RFC 5044 §7.1.2, RFC 6581 §5, §9.2", "an accepting Reply "
                        + "matching the Request (Rev, S, C; IRD/ORD per §9.1; the RTR types asked for)",
                        "a valid Request; then a well-formed first FPDU, in peer-to-peer an RTR we offered"),
                        this::accept),
                new Step(new Verdict.Case("reject", "RFC 5044 §7.1.2 (3)", "a Reply with R=1 and 22 octets of PD",
                        "no FPDU (the connection closed, or left to the ULP)"), this::reject),
                new Step(new Verdict.Case("ird-short", "RFC 6581 §9.1", "an enhanced Reply with ORD one more than "
                        + "the initiator's IRD", "an RDMAP Terminate with MPA error 0x06 (insufficient IRD), the "
                        + "connection closed"), this::irdShort),
                new Step(new Verdict.Case("no-rtr", "RFC 6581 §9.2", "a peer-to-peer Reply offering only an RTR "
                        + "type the initiator did not offer", "an RDMAP Terminate with MPA error 0x07 (no matching "
                        + "RTR), the connection closed"), this::noRtr),
                new Step(new Verdict.Case("bad-key", "RFC 5044 §7.1.2 (3)", "a Reply with the Request's key",
                        "the connection closed, no FPDU"), (check, connection, request) -> malformed(check,
                                connection, request, MpaStartupFrame.Kind.REQUEST, 0)),
                new Step(new Verdict.Case("pd-513", "RFC 5044 §7.1.1 (PD_Length)", "a Reply with PD_Length 513",
                        "the connection closed, no FPDU"), (check, connection, request) -> malformed(check,
                                connection, request, MpaStartupFrame.Kind.REPLY, 513)));
    }

    private Verdict accept(Verdict.Case check, RawMpaPeer connection, Request request) throws IOException {
        MpaStartupFrame asked = request.frame();
        if (asked.markers()) {
            connection.send(reply(asked, true, null, REJECTED));
            return check.notApplicable(request.describe() + ": Markers asked for, which these checks do not add");
        }
        EnhancedConnectionData answer = null;
        Set<RtrType> offered = Set.of();
        if (asked.enhanced()) {
            EnhancedConnectionData theirs = asked.enhancedData();
            offered = theirs.peerToPeer() ? theirs.rtrTypes() : Set.of();
            IrdOrdNegotiation.Answer irdOrd = IrdOrdNegotiation.respond(theirs.ird(), theirs.ord(), DEPTH, DEPTH,
                    offered.contains(RtrType.READ));
            answer = EnhancedConnectionData.of(theirs.peerToPeer(), offered, irdOrd.replyIrd(), irdOrd.replyOrd());
        }
        connection.send(reply(asked, false, answer, PrivateData.EMPTY));
        MpaEvents first = MpaEvents.fpdu(connection, asked.crc(), wait);
        String observed = request.describe() + "; after our Reply: " + first.describe(MpaStartupFrame.Kind.REQUEST);
        if (first.fpdu() == null) {
            return check.judged(observed, false);
        }
        Ulpdus.Received fpdu = first.fpdu();
        if (offered.isEmpty()) {
            return check.judged(observed, fpdu.problem() == null && !fpdu.is(RdmapOpcode.TERMINATE));
        }
        RtrType rtr = rtrType(fpdu);
        if (rtr == RtrType.READ) {
            connection.sendFpdu(Ulpdus.readResponse(ReadRequestHeader.decode(fpdu.segment().buffer(),
                    fpdu.segment().payloadOffset()).sinkStag()), asked.crc());
            observed += " (answered with a zero-length Read Response)";
        }
        return check.judged(observed + (rtr == RtrType.NONE ? ": not an RTR" : offered.contains(rtr) ? ""
                : ": an RTR type we did not offer"), rtr != RtrType.NONE && offered.contains(rtr));
    }

    /** Which RTR message {@code fpdu} is, or NONE. */
    private static RtrType rtrType(Ulpdus.Received fpdu) {
        if (fpdu.is(RdmapOpcode.RDMA_READ_REQUEST)) {
            return ReadRequestHeader.decode(fpdu.segment().buffer(), fpdu.segment().payloadOffset())
                    .readMessageSize() == 0 ? RtrType.READ : RtrType.NONE;
        }
        if (fpdu.problem() != null || fpdu.segment().payloadLength() != 0) {
            return RtrType.NONE;
        }
        if (fpdu.is(RdmapOpcode.SEND)) {
            return RtrType.SEND;
        }
        if (fpdu.is(RdmapOpcode.RDMA_WRITE)) {
            return RtrType.WRITE;
        }
        return RtrType.NONE;
    }

    private Verdict reject(Verdict.Case check, RawMpaPeer connection, Request request) throws IOException {
        MpaStartupFrame asked = request.frame();
        EnhancedConnectionData ours = asked.enhanced() ? EnhancedConnectionData.clientServer(DEPTH, DEPTH) : null;
        connection.send(reply(asked, true, ours, REJECTED));
        MpaEvents after = MpaEvents.fpdu(connection, asked.crc(), wait);
        return check.judged(request.describe() + "; after our reject: " + after.describe(MpaStartupFrame.Kind.REQUEST),
                after.end() != null);
    }

    /** Answers with a Reply frame carrying {@code key}'s key and PD_Length {@code pdLength}. */
    private Verdict malformed(Verdict.Case check, RawMpaPeer connection, Request request, MpaStartupFrame.Kind key,
            int pdLength) throws IOException {
        connection.send(RawMpaPeer.frame(key.key(), request.crc() ? MpaStartupFrame.CRC_FLAG : 0,
                request.frame().revision(), pdLength, new byte[pdLength]));
        MpaEvents after = MpaEvents.fpdu(connection, false, wait);
        return check.judged(request.describe() + "; then: " + after.describe(MpaStartupFrame.Kind.REQUEST),
                after.closed());
    }

    private Verdict irdShort(Verdict.Case check, RawMpaPeer connection, Request request) throws IOException {
        MpaStartupFrame asked = request.frame();
        if (!asked.enhanced() || asked.enhancedData().ird() >= EnhancedConnectionData.NO_NEGOTIATION - 1) {
            connection.send(reply(asked, true, null, REJECTED));
            return check.notApplicable(request.describe() + ": needs an enhanced Request with an IRD to exceed");
        }
        EnhancedConnectionData theirs = asked.enhancedData();
        EnhancedConnectionData answer = EnhancedConnectionData.of(theirs.peerToPeer(), theirs.rtrTypes(),
                Math.max(theirs.ord(), 1), theirs.ird() + 1);
        return expectTerminate(check, connection, request, answer, MpaError.INSUFFICIENT_IRD);
    }

    private Verdict noRtr(Verdict.Case check, RawMpaPeer connection, Request request) throws IOException {
        MpaStartupFrame asked = request.frame();
        Set<RtrType> missing = asked.enhanced() ? EnumSet.complementOf(EnumSet.of(RtrType.NONE)) : Set.of();
        if (asked.enhanced()) {
            missing.removeAll(asked.enhancedData().rtrTypes());
        }
        if (!asked.enhanced() || !asked.enhancedData().peerToPeer() || missing.isEmpty()) {
            connection.send(reply(asked, true, null, REJECTED));
            return check.notApplicable(request.describe() + ": needs a peer-to-peer Request without every RTR type");
        }
        EnhancedConnectionData theirs = asked.enhancedData();
        EnhancedConnectionData answer = EnhancedConnectionData.of(true, Set.of(RtrType.preferred(missing)),
                Math.max(theirs.ord(), 1), Math.min(theirs.ird(), DEPTH));
        return expectTerminate(check, connection, request, answer, MpaError.NO_MATCHING_RTR);
    }

    private Verdict expectTerminate(Verdict.Case check, RawMpaPeer connection, Request request,
            EnhancedConnectionData answer, MpaError cause) throws IOException {
        connection.send(reply(request.frame(), false, answer, PrivateData.EMPTY));
        MpaEvents after = MpaEvents.fpdu(connection, request.crc(), wait);
        String observed = request.describe() + "; we answered " + Ulpdus.enhanced(answer.encode()) + "; then: "
                + after.describe(MpaStartupFrame.Kind.REQUEST);
        if (after.fpdu() == null || !after.fpdu().terminates(cause)) {
            return check.judged(observed, false);
        }
        MpaEvents last = MpaEvents.fpdu(connection, request.crc(), wait);
        return check.judged(observed + ", then " + last.describe(MpaStartupFrame.Kind.REQUEST), last.closed());
    }

    private static byte[] reply(MpaStartupFrame asked, boolean reject, EnhancedConnectionData enhanced,
            PrivateData privateData) {
        return new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, false, asked.crc(), reject, asked.revision(),
                asked.enhanced() ? enhanced : null, privateData).toByteArray();
    }
}
