package org.rddp.check;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.rddp.error.MpaError;
import org.rddp.rdmap.RtrType;
import org.rddp.mpa.MpaFramer;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.transport.mpa.raw.RawMpaPeer;
import org.rddp.wire.PrivateData;

/**
 * The MPA setup matrix with this side as the initiator (RFC 5044 §7.1, RFC 6581 §6, §9, §10): one TCP connection
 * per case to a responder whose ULP accepts every connection (rping -s, {@code rddp ping}, ...). Legal requests of
 * revision 1 and 2, plain and enhanced, client-server and peer-to-peer with each RTR type (the RTR sent and, for a
 * Read, its Read Response awaited), IRD/ORD edge values, Markers, the largest private data; then malformed requests
 * (bad key, PD_Length over 512, an unknown revision, S=1 without room for the enhanced data), a revision-1 request
 * with the S bit among its reserved bits, and an FPDU with a bad CRC.
 */
public final class MpaInitiatorChecks {
    private static final int DEPTH = 16;
    private static final int NO_NEGOTIATION = EnhancedConnectionData.NO_NEGOTIATION;
    private static final Duration AFTER_RTR = Duration.ofMillis(500);
    private static final int CRC = MpaStartupFrame.CRC_FLAG;
    private static final int MARKERS = MpaStartupFrame.MARKERS_FLAG;
    private static final int ENHANCED = MpaStartupFrame.ENHANCED_FLAG;

    private final InetSocketAddress peer;
    private final Duration wait;

    /**
     * Checks against the responder at {@code peer}.
     *
     * @param wait how long to wait for each answer of the peer
     */
    public MpaInitiatorChecks(InetSocketAddress peer, Duration wait) {
        this.peer = peer;
        this.wait = wait;
    }

    /** What one case does with its fresh connection. */
    @FunctionalInterface
    private interface Body {
        Verdict run(Verdict.Case check, RawMpaPeer connection) throws IOException;
    }

    private record Step(Verdict.Case check, Body body) {
    }

    /** Runs every case in order, handing each verdict to {@code each} as it is reached; returns them all. */
    public List<Verdict> run(Consumer<Verdict> each) {
        List<Verdict> verdicts = new ArrayList<>();
        for (Step step : steps()) {
            Verdict verdict;
            try (RawMpaPeer connection = RawMpaPeer.connect(peer, wait)) {
                verdict = step.body().run(step.check(), connection);
            } catch (IOException e) {
                verdict = step.check().judged("could not run the case: " + e.getMessage(), false);
            }
            each.accept(verdict);
            verdicts.add(verdict);
        }
        return verdicts;
    }

    private List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        steps.add(new Step(new Verdict.Case("rev1", "RFC 5044 §7.1.1-2", "Request Rev 1, C=1, 20 octets of PD",
                "Reply Rev 1, R=0, S=0, well formed"), (check, connection) -> accepted(check, connection,
                        request(1, null, pd(20)).toByteArray(), 1, false)));
        steps.add(new Step(new Verdict.Case("rev2-plain", "RFC 6581 §10", "Request Rev 2, S=0, C=1",
                "Reply R=0, S=0 (an unenhanced request gets an unenhanced reply)"),
                (check, connection) -> accepted(check, connection, request(2, null, pd(0)).toByteArray(), 2,
                        false)));
        steps.add(new Step(new Verdict.Case("enhanced", "RFC 6581 §9.1, §9.2", "Request Rev 2, S=1, A=0, IRD 16 "
                + "ORD 16", "Reply Rev 2, R=0, S=1, A=0 with B=C=D=0, responder ORD <= 16"),
                (check, connection) -> irdOrd(check, connection, DEPTH, DEPTH, false)));
        steps.add(new Step(new Verdict.Case("ird-zero", "RFC 6581 §9.1", "Request S=1, IRD 0, ORD 4",
                "Reply S=1: R=0 with responder ORD 0, or R=1 (it may reject an IRD too small)"),
                (check, connection) -> irdOrd(check, connection, 0, 4, true)));
        steps.add(new Step(new Verdict.Case("no-negotiation", "RFC 6581 §9.1", "Request S=1, IRD 0x3FFF, ORD 0x3FFF",
                "Reply S=1, R=0, IRD 0x3FFF and ORD 0x3FFF echoed"),
                (check, connection) -> irdOrd(check, connection, NO_NEGOTIATION, NO_NEGOTIATION, false)));
        for (RtrType type : List.of(RtrType.WRITE, RtrType.READ, RtrType.SEND)) {
            String name = type.name().toLowerCase(java.util.Locale.ROOT);
            steps.add(new Step(new Verdict.Case("p2p-" + name, "RFC 6581 §9.2, §5", "Request S=1, A=1 offering the "
                    + name + " RTR; then the RTR the Reply allows", "Reply A=1 with at least one RTR type; no "
                    + "Terminate after the RTR" + (type == RtrType.READ ? "; a zero-length Read Response" : "")),
                    (check, connection) -> peerToPeer(check, connection, type)));
        }
        steps.add(new Step(new Verdict.Case("markers", "RFC 5044 §7.1.1 (M)", "Request Rev 1, M=1",
                "a well-formed Reply: R=0 (Markers added) or R=1"),
                (check, connection) -> answered(check, connection, rawRequest(MARKERS | CRC, 1, 0, new byte[0]))));
        steps.add(new Step(new Verdict.Case("pd-512", "RFC 5044 §7.1.1 (PD_Length)", "Request Rev 1 with 512 octets "
                + "of PD", "a well-formed Reply (512 is the largest legal PD_Length)"),
                (check, connection) -> answered(check, connection, request(1, null, pd(512)).toByteArray())));
        steps.add(new Step(new Verdict.Case("s-bit-rev1", "RFC 5044 §7.1.1 (Res), RFC 6581 §6", "Request Rev 1 with "
                + "the S bit set and 4 octets of PD", "Reply Rev 1, R=0, S=0: reserved bits are not checked"),
                (check, connection) -> accepted(check, connection, rawRequest(CRC | ENHANCED, 1, 4, new byte[4]),
                        1, false)));
        steps.add(refused("bad-key", "RFC 5044 §7.1.2 (5, 8)", "a Request with the Reply's key",
                RawMpaPeer.frame(MpaStartupFrame.Kind.REPLY.key(), CRC, 1, 0, new byte[0]), false));
        steps.add(refused("pd-513", "RFC 5044 §7.1.1 (PD_Length)", "a Request with PD_Length 513",
                rawRequest(CRC, 1, 513, new byte[513]), false));
        steps.add(refused("rev3", "RFC 5044 §7.1.1 (Rev)", "a Request with Rev 3",
                rawRequest(CRC, 3, 0, new byte[0]), false));
        steps.add(refused("s-bit-short", "RFC 6581 §6", "a Request Rev 2, S=1, PD_Length 2",
                rawRequest(CRC | ENHANCED, 2, 2, new byte[2]), true));
        steps.add(new Step(new Verdict.Case("crc-error", "RFC 5044 §4.4, §8", "Request Rev 1, C=1; after the Reply "
                + "an FPDU with a bad CRC", "an RDMAP Terminate with MPA error 0x02 (CRC) or the connection "
                + "closed; never silence"), this::badCrc));
        return steps;
    }

    /** A malformed request: the peer must close (or, where {@code rejectAllowed}, may reject with R=1). */
    private Step refused(String id, String rfc, String sent, byte[] request, boolean rejectAllowed) {
        String expected = "the connection closed" + (rejectAllowed ? " or a Reply with R=1" : ", no Reply");
        return new Step(new Verdict.Case(id, rfc, sent, expected), (check, connection) -> {
            connection.send(request);
            MpaEvents seen = MpaEvents.frame(connection, wait);
            MpaStartupFrame reply = seen.frame() == null ? null : seen.decoded(MpaStartupFrame.Kind.REPLY);
            boolean pass = seen.closed() || rejectAllowed && reply != null && reply.reject();
            return check.judged(seen.describe(MpaStartupFrame.Kind.REPLY), pass);
        });
    }

    private Verdict accepted(Verdict.Case check, RawMpaPeer connection, byte[] request, int revision,
            boolean enhanced) throws IOException {
        connection.send(request);
        MpaEvents seen = MpaEvents.frame(connection, wait);
        String problem = acceptProblem(seen, revision, enhanced);
        return check.judged(seen.describe(MpaStartupFrame.Kind.REPLY) + (problem == null ? "" : ": " + problem),
                problem == null);
    }

    private Verdict answered(Verdict.Case check, RawMpaPeer connection, byte[] request) throws IOException {
        connection.send(request);
        MpaEvents seen = MpaEvents.frame(connection, wait);
        boolean pass = seen.frame() != null && seen.decoded(MpaStartupFrame.Kind.REPLY) != null;
        return check.judged(seen.describe(MpaStartupFrame.Kind.REPLY), pass);
    }

    /** Why {@code seen} is not an accepting Reply of {@code revision}, S={@code enhanced}; null if it is one. */
    private static String acceptProblem(MpaEvents seen, int revision, boolean enhanced) {
        if (seen.frame() == null) {
            return "no Reply";
        }
        MpaStartupFrame reply = seen.decoded(MpaStartupFrame.Kind.REPLY);
        if (reply == null) {
            return "not a well-formed Reply";
        }
        if (reply.reject()) {
            return "rejected (R=1)";
        }
        int reserved = reply.revision() >= MpaStartupFrame.REVISION_2 ? MpaStartupFrame.RESERVED_MASK
                : MpaStartupFrame.RESERVED_MASK | MpaStartupFrame.ENHANCED_FLAG;
        if ((seen.frame().flags() & reserved) != 0) {
            return "reserved flag bits set (RFC 5044 §7.1.1: zero when sending)";
        }
        if (revision == 1 ? reply.revision() != 1 : reply.revision() < 1) {
            return "Rev " + reply.revision() + " answers a Rev " + revision + " request";
        }
        if (reply.enhanced() != enhanced) {
            return enhanced ? "S=0 answers an enhanced request" : "S=1 answers an unenhanced request";
        }
        if (enhanced && Ulpdus.strayRtrBits(seen.enhancedWord())) {
            return "A=0 with an RTR bit set";
        }
        return null;
    }

    private Verdict irdOrd(Verdict.Case check, RawMpaPeer connection, int ird, int ord, boolean mayReject)
            throws IOException {
        connection.send(request(2, EnhancedConnectionData.clientServer(ird, ord), pd(0)));
        MpaEvents seen = MpaEvents.frame(connection, wait);
        String observed = seen.describe(MpaStartupFrame.Kind.REPLY);
        MpaStartupFrame reply = seen.frame() == null ? null : seen.decoded(MpaStartupFrame.Kind.REPLY);
        if (mayReject && reply != null && reply.reject() && reply.enhanced()) {
            return check.judged(observed, true);
        }
        String problem = acceptProblem(seen, 2, true);
        if (problem == null) {
            EnhancedConnectionData answer = reply.enhancedData();
            if (ird == NO_NEGOTIATION && answer.ord() != NO_NEGOTIATION) {
                problem = "our IRD 0x3FFF must come back as ORD 0x3FFF";
            } else if (ord == NO_NEGOTIATION && answer.ird() != NO_NEGOTIATION) {
                problem = "our ORD 0x3FFF must come back as IRD 0x3FFF";
            } else if (ird != NO_NEGOTIATION && answer.ord() > ird) {
                problem = "responder ORD " + answer.ord() + " exceeds our IRD " + ird;
            }
        }
        return check.judged(observed + (problem == null ? "" : ": " + problem), problem == null);
    }

    private Verdict peerToPeer(Verdict.Case check, RawMpaPeer connection, RtrType type) throws IOException {
        EnhancedConnectionData offer = EnhancedConnectionData.of(true, EnumSet.of(type), DEPTH, DEPTH);
        connection.send(request(2, offer, pd(0)));
        MpaEvents seen = MpaEvents.frame(connection, wait);
        String observed = seen.describe(MpaStartupFrame.Kind.REPLY);
        String problem = acceptProblem(seen, 2, true);
        if (problem != null) {
            return check.judged(observed + ": " + problem, false);
        }
        EnhancedConnectionData answer = seen.decoded(MpaStartupFrame.Kind.REPLY).enhancedData();
        Set<RtrType> offered = answer.rtrTypes();
        if (!answer.peerToPeer() || offered.isEmpty()) {
            return check.judged(observed + ": " + (answer.peerToPeer() ? "no RTR type" : "A=0 answers A=1"), false);
        }
        RtrType rtr = offered.contains(type) ? type : RtrType.preferred(offered);
        connection.sendFpdu(Ulpdus.rtr(rtr), true);
        observed += "; we sent the " + rtr + " RTR";
        MpaEvents after = MpaEvents.fpdu(connection, true, rtr == RtrType.READ ? wait : AFTER_RTR);
        observed += ", then the peer: " + after.describe(MpaStartupFrame.Kind.REPLY);
        boolean pass = rtr == RtrType.READ ? after.fpdu() != null && after.fpdu().is(RdmapOpcode.RDMA_READ_RESPONSE)
                && after.fpdu().segment().payloadLength() == 0
                && after.fpdu().segment().stag() == Ulpdus.READ_RTR_SINK_STAG
                : after.end() != null && !after.closed()
                        || after.fpdu() != null && !after.fpdu().is(RdmapOpcode.TERMINATE);
        return check.judged(observed, pass);
    }

    private Verdict badCrc(Verdict.Case check, RawMpaPeer connection) throws IOException {
        connection.send(request(1, null, pd(0)));
        MpaEvents seen = MpaEvents.frame(connection, wait);
        String problem = acceptProblem(seen, 1, false);
        if (problem != null) {
            return check.judged(seen.describe(MpaStartupFrame.Kind.REPLY) + ": " + problem, false);
        }
        byte[] ulpdu = Ulpdus.send("rddp interop".getBytes(StandardCharsets.US_ASCII));
        MpaFramer framer = new MpaFramer(false, true);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(ulpdu.length));
        framer.frame(ByteBuffer.wrap(ulpdu), fpdu);
        fpdu.array()[fpdu.capacity() - 1] ^= 0x5A;
        connection.send(fpdu.array());
        MpaEvents after = MpaEvents.fpdu(connection, true, wait);
        boolean pass = after.closed() || after.fpdu() != null && after.fpdu().terminates(MpaError.CRC_ERROR);
        if (after.fpdu() != null && pass) {
            MpaEvents last = MpaEvents.fpdu(connection, true, wait);
            return check.judged(after.describe(MpaStartupFrame.Kind.REPLY) + ", then "
                    + last.describe(MpaStartupFrame.Kind.REPLY), true);
        }
        return check.judged(after.describe(MpaStartupFrame.Kind.REPLY), pass);
    }

    /** A request frame as given, well formed or not. */
    private static byte[] rawRequest(int flags, int revision, int pdLength, byte[] privateData) {
        return RawMpaPeer.frame(MpaStartupFrame.Kind.REQUEST.key(), flags, revision, pdLength, privateData);
    }

    private static MpaStartupFrame request(int revision, EnhancedConnectionData enhanced, PrivateData privateData) {
        return new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, true, false, revision, enhanced, privateData);
    }

    /** {@code length} octets of recognisable private data. */
    static PrivateData pd(int length) {
        byte[] octets = new byte[length];
        byte[] text = "rddp interop ".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < length; i++) {
            octets[i] = text[i % text.length];
        }
        return PrivateData.of(octets);
    }
}
