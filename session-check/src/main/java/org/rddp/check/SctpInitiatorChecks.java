package org.rddp.check;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.transport.sctp.raw.RawSctpPeer;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.wire.PrivateData;

/**
 * The RFC 5043 / RFC 6581 §7 session-control matrix with this side as the active side, against a passive peer whose
 * ULP accepts (or rejects) sessions: one association carrying one DDP stream per case. The peer's Adaptation Layer
 * Indication; plain and enhanced Initiates with IRD/ORD edge values and the largest private data, each answered by
 * Accept or Reject of the matching kind on the like-numbered stream, unordered, DDP-SSN 0; then illegal chunks
 * (a segment without a session, an Accept without an Initiate, an unknown function code, a Terminate with private
 * data, 513 octets of private data, an ordered chunk, a second Initiate in an open session), each of which must end
 * that DDP stream's session with a Terminate and leave the association up; a second session on a stream after this
 * side's Terminate and after the peer's; a burst of Initiates, each of which must be answered (§6.4: a Terminate
 * past the peer's pending limit); chunks far ahead on streams with no session, each stream of which must end with
 * one Terminate and take a new Initiate; last, an association without the indication, which must carry no DDP.
 */
public final class SctpInitiatorChecks {
    private static final int DEPTH = 16;
    private static final int NO_NEGOTIATION = EnhancedConnectionData.NO_NEGOTIATION;
    private static final int NOT_DDP = 0x1234;

    private final SctpStack stack;
    private final InetSocketAddress local;
    private final InetSocketAddress peer;
    private final Duration wait;
    private final List<Verdict> verdicts = new ArrayList<>();
    private Consumer<Verdict> each;
    private SctpEvents events;
    private int nextStream = 1;

    /**
     * Checks against the passive side at {@code peer}, through {@code stack}, from {@code local}.
     *
     * @param wait how long to wait for each answer of the peer
     */
    public SctpInitiatorChecks(SctpStack stack, InetSocketAddress local, InetSocketAddress peer, Duration wait) {
        this.stack = stack;
        this.local = local;
        this.peer = peer;
        this.wait = wait;
    }

    /** Runs every case in order, handing each verdict to {@code each} as it is reached; returns them all. */
    public List<Verdict> run(Consumer<Verdict> each) throws InterruptedException {
        this.each = each;
        Verdict.Case association = new Verdict.Case("adaptation", "RFC 5043 §5.1", "an association with the "
                + "Adaptation Layer Indication 0x00000001", "the peer's indication 0x00000001");
        try (RawSctpPeer connected = RawSctpPeer.connect(stack, local, peer, DdpSctp.ADAPTATION_INDICATION)) {
            events = new SctpEvents(connected);
            accepted(new Verdict.Case("initiate", "RFC 5043 §6.2, §6.3, §10", "Initiate with 20 octets of PD",
                    "Accept (0x2) or Reject (0x3) on the like-numbered stream, U=1, DDP-SSN 0"),
                    new SessionControl.Initiate(MpaInitiatorChecks.pd(20)));
            Integer indication = connected.peerAdaptation();
            record(association.judged(indication == null ? "no indication seen"
                    : String.format("0x%08X", indication), indication != null
                    && indication == DdpSctp.ADAPTATION_INDICATION));
            enhanced("enhanced", "Enhanced Initiate, A=0, IRD 16 ORD 16", DEPTH, DEPTH);
            enhanced("ird-zero", "Enhanced Initiate, IRD 0 ORD 4", 0, 4);
            enhanced("no-negotiation", "Enhanced Initiate, IRD 0x3FFF ORD 0x3FFF", NO_NEGOTIATION, NO_NEGOTIATION);
            accepted(new Verdict.Case("pd-512", "RFC 5043 §5.2.3", "Initiate with 512 octets of PD",
                    "Accept or Reject (512 is the largest legal private data)"),
                    new SessionControl.Initiate(MpaInitiatorChecks.pd(512)));
            secondInitiate();
            illegal("segment-without-session", "a DDP segment on a stream without a session", stream -> connected
                    .segment(stream, 0, Ulpdus.send(new byte[4])));
            illegal("accept-without-initiate", "an Accept on a stream without an Initiate", stream -> connected
                    .control(stream, 0, new SessionControl.Accept(PrivateData.EMPTY)));
            illegal("unknown-function-code", "function code 0x0008", stream -> connected.send(stream,
                    DdpSctp.PPID_SESSION_CONTROL, true, new byte[] {0, 0, 0, 0x08}));
            illegal("terminate-with-pd", "a Terminate with 1 octet of PD", stream -> connected.send(stream,
                    DdpSctp.PPID_SESSION_CONTROL, true, new byte[] {0, 0, 0, 0x04, 1}));
            illegal("pd-513", "an Initiate with 513 octets of PD", stream -> {
                byte[] chunk = new byte[SessionControlChunk.PRIVATE_DATA_OFFSET + 513];
                chunk[SessionControlChunk.FUNCTION_CODE_OFFSET + 1] = 0x01;
                connected.send(stream, DdpSctp.PPID_SESSION_CONTROL, true, chunk);
            });
            illegal("ordered", "an Initiate in an ordered DATA chunk (U=0)", stream -> connected.send(stream,
                    DdpSctp.PPID_SESSION_CONTROL, false, new SessionControlChunk(0, new SessionControl.Initiate(
                            PrivateData.EMPTY)).toByteArray()));
            accepted(new Verdict.Case("association-up", "RFC 5043 §6.1, §11.3", "after the illegal chunks, an "
                    + "Initiate on a fresh stream", "Accept or Reject: the illegal chunks ended sessions, not the "
                    + "association"), new SessionControl.Initiate(PrivateData.EMPTY));
            againOnTheStream(true);
            againOnTheStream(false);
            burstOfInitiates();
            earlyChunksWithoutSession();
        } catch (IOException e) {
            record(association.judged("no association: " + e.getMessage(), false));
        }
        notDdp();
        return verdicts;
    }

    private void record(Verdict verdict) {
        each.accept(verdict);
        verdicts.add(verdict);
    }

    /** Sends {@code initiate} on a fresh stream; judges the answer; ends an accepted session. */
    private void accepted(Verdict.Case check, SessionControl initiate) throws IOException, InterruptedException {
        int stream = nextStream++;
        events.peer().control(stream, 0, initiate);
        RawSctpPeer.Chunk answer = events.next(stream, wait);
        String observed = answer == null ? events.silence(wait) : SctpEvents.describe(answer);
        FunctionCode code = SctpEvents.code(answer);
        boolean enhanced = initiate.functionCode() == FunctionCode.ENHANCED_INITIATE;
        FunctionCode accept = enhanced ? FunctionCode.ENHANCED_ACCEPT : FunctionCode.ACCEPT;
        FunctionCode reject = enhanced ? FunctionCode.ENHANCED_REJECT : FunctionCode.REJECT;
        String problem = null;
        if (code != accept && code != reject) {
            problem = "not " + SctpEvents.name(accept) + " or " + SctpEvents.name(reject);
        } else if (!answer.unordered() || answer.ddpSsn() != 0) {
            problem = "must be unordered with DDP-SSN 0";
        } else if (code == FunctionCode.ENHANCED_ACCEPT) {
            problem = irdOrdProblem(initiate.enhancedData().orElseThrow(), SctpEvents.enhancedWord(answer));
        }
        record(check.judged(observed + (problem == null ? "" : ": " + problem), problem == null));
        if (code == accept) {
            events.peer().control(stream, 1, new SessionControl.Terminate());
        }
    }

    private static String irdOrdProblem(EnhancedConnectionData offer, int word) {
        EnhancedConnectionData answer = EnhancedConnectionData.decode(word);
        if (Ulpdus.strayRtrBits(word)) {
            return "A=0 with an RTR bit set";
        }
        if (offer.ird() == NO_NEGOTIATION && answer.ord() != NO_NEGOTIATION) {
            return "our IRD 0x3FFF must come back as ORD 0x3FFF";
        }
        if (offer.ord() == NO_NEGOTIATION && answer.ird() != NO_NEGOTIATION) {
            return "our ORD 0x3FFF must come back as IRD 0x3FFF";
        }
        return offer.ird() != NO_NEGOTIATION && answer.ord() > offer.ird()
                ? "responder ORD " + answer.ord() + " exceeds our IRD " + offer.ird() : null;
    }

    private void enhanced(String id, String sent, int ird, int ord) throws IOException, InterruptedException {
        accepted(new Verdict.Case(id, "RFC 6581 §7, §9.1", sent, "Enhanced Accept (0x6) with IRD/ORD per §9.1, or "
                + "Enhanced Reject (0x7)"), new SessionControl.EnhancedInitiate(EnhancedConnectionData
                        .clientServer(ird, ord), PrivateData.EMPTY));
    }

    /** Chunks a burst case sends at once, and streams the early-chunk case uses. */
    private static final int BURST = 32;
    private static final int EARLY_STREAMS = 8;
    private static final int EARLY_CHUNKS = 16;
    private static final int EARLY_OCTETS = 1_000;

    /**
     * A session, ended by this side's Terminate ({@code ours}) or by the peer's (after an illegal chunk), then a new
     * Initiate at DDP-SSN 0 on the same stream once this side's chunks are acknowledged (§6.6): it must be answered.
     */
    private void againOnTheStream(boolean ours) throws IOException, InterruptedException {
        Verdict.Case check = new Verdict.Case(ours ? "again-after-ours" : "again-after-theirs", "RFC 5043 §6.1–§6.4, "
                + "§6.6", "a session ended by " + (ours ? "our Terminate (the peer answers with its own)"
                        : "the peer's Terminate (after a second Initiate; we answer with ours)") + ", then an Initiate "
                        + "at DDP-SSN 0 on the same stream", "Accept or Reject on that stream, DDP-SSN 0");
        int stream = nextStream++;
        RawSctpPeer peer = events.peer();
        peer.control(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        RawSctpPeer.Chunk first = events.next(stream, wait);
        if (SctpEvents.code(first) != FunctionCode.ACCEPT) {
            record(check.notApplicable("the first Initiate got " + (first == null ? events.silence(wait)
                    : SctpEvents.describe(first))));
            return;
        }
        peer.control(stream, 1, ours ? new SessionControl.Terminate() : new SessionControl.Initiate(PrivateData.EMPTY));
        RawSctpPeer.Chunk terminate = events.next(stream, wait);
        if (SctpEvents.code(terminate) != FunctionCode.TERMINATE) {
            record(check.judged("the session's end: " + (terminate == null ? events.silence(wait)
                    : SctpEvents.describe(terminate)), false));
            return;
        }
        if (!ours) {
            peer.control(stream, 2, new SessionControl.Terminate());
        }
        if (!peer.awaitAcknowledged(wait)) {
            record(check.notApplicable("the peer's SCTP did not acknowledge our chunks within " + wait.toMillis()
                    + " ms"));
            return;
        }
        peer.control(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        RawSctpPeer.Chunk answer = events.next(stream, wait);
        FunctionCode code = SctpEvents.code(answer);
        boolean pass = (code == FunctionCode.ACCEPT || code == FunctionCode.REJECT) && answer.ddpSsn() == 0;
        record(check.judged("the new Initiate got " + (answer == null ? events.silence(wait)
                : SctpEvents.describe(answer)), pass));
        if (code == FunctionCode.ACCEPT) {
            peer.control(stream, 1, new SessionControl.Terminate());
        }
    }

    /** {@value #BURST} Initiates at once, each on a fresh stream: every one must be answered (§6.2–§6.4). */
    private void burstOfInitiates() throws IOException, InterruptedException {
        Verdict.Case check = new Verdict.Case("initiate-burst", "RFC 5043 §6.4, §5.2.3", BURST + " Initiates at once, "
                + "each on its own stream", "each answered: Accept or Reject, or Terminate past the peer's limit of "
                + "Initiates pending for its ULP");
        if (nextStream + BURST > events.peer().streams()) {
            record(check.notApplicable("the association has " + events.peer().streams() + " streams"));
            return;
        }
        int first = nextStream;
        nextStream += BURST;
        for (int stream = first; stream < first + BURST; stream++) {
            events.peer().control(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        }
        int answered = 0;
        int terminated = 0;
        String unanswered = null;
        for (int stream = first; stream < first + BURST; stream++) {
            RawSctpPeer.Chunk answer = events.next(stream, wait);
            FunctionCode code = SctpEvents.code(answer);
            if (code == FunctionCode.ACCEPT || code == FunctionCode.REJECT || code == FunctionCode.TERMINATE) {
                answered++;
                terminated += code == FunctionCode.TERMINATE ? 1 : 0;
                if (code == FunctionCode.ACCEPT) {
                    events.peer().control(stream, 1, new SessionControl.Terminate());
                }
            } else if (unanswered == null) {
                unanswered = "stream " + stream + ": " + (answer == null ? events.silence(wait)
                        : SctpEvents.describe(answer));
            }
        }
        record(check.judged(answered + " of " + BURST + " answered (" + terminated + " by Terminate)"
                + (unanswered == null ? "" : "; first unanswered, " + unanswered), answered == BURST));
    }

    /**
     * Chunks far ahead of DDP-SSN 0 on streams that carry no session (what exhausted a server's memory, issue 32):
     * nothing may be kept for them (RFC 5043 §10); each stream's session ends with a Terminate, and an Initiate on
     * such a stream afterwards is answered.
     */
    private void earlyChunksWithoutSession() throws IOException, InterruptedException {
        Verdict.Case check = new Verdict.Case("early-without-session", "RFC 5043 §10, §6.1, §6.2", EARLY_CHUNKS
                + " DDP segments of " + EARLY_OCTETS + " octets with DDP-SSN 1 to " + EARLY_CHUNKS + " (never 0) on "
                + "each of " + EARLY_STREAMS + " streams without a session, then an Initiate at DDP-SSN 0 on one",
                "a Terminate on each stream, and an answer to the Initiate");
        if (nextStream + EARLY_STREAMS > events.peer().streams()) {
            record(check.notApplicable("the association has " + events.peer().streams() + " streams"));
            return;
        }
        int first = nextStream;
        nextStream += EARLY_STREAMS;
        byte[] payload = new byte[EARLY_OCTETS];
        for (int ssn = 1; ssn <= EARLY_CHUNKS; ssn++) {
            for (int stream = first; stream < first + EARLY_STREAMS; stream++) {
                events.peer().segment(stream, ssn, Ulpdus.send(payload));
            }
        }
        int terminated = 0;
        for (int stream = first; stream < first + EARLY_STREAMS; stream++) {
            terminated += SctpEvents.code(events.next(stream, wait)) == FunctionCode.TERMINATE ? 1 : 0;
        }
        events.peer().control(first, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        RawSctpPeer.Chunk answer = events.next(first, wait);
        FunctionCode code = SctpEvents.code(answer);
        boolean answeredAfter = code == FunctionCode.ACCEPT || code == FunctionCode.REJECT;
        record(check.judged(terminated + " of " + EARLY_STREAMS + " streams ended with a Terminate; the Initiate "
                + "after them got " + (answer == null ? events.silence(wait) : SctpEvents.describe(answer)),
                terminated == EARLY_STREAMS && answeredAfter));
        if (code == FunctionCode.ACCEPT) {
            events.peer().control(first, 1, new SessionControl.Terminate());
        }
    }

    private void secondInitiate() throws IOException, InterruptedException {
        Verdict.Case check = new Verdict.Case("second-initiate", "RFC 5043 §6.1", "an Initiate, then another "
                + "Initiate (DDP-SSN 1) in the session the Accept opened", "Terminate (0x4) on that stream");
        int stream = nextStream++;
        events.peer().control(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        RawSctpPeer.Chunk answer = events.next(stream, wait);
        if (SctpEvents.code(answer) != FunctionCode.ACCEPT) {
            record(check.notApplicable("the first Initiate got " + (answer == null ? events.silence(wait)
                    : SctpEvents.describe(answer))));
            return;
        }
        events.peer().control(stream, 1, new SessionControl.Initiate(PrivateData.EMPTY));
        record(terminated(check, stream));
    }

    /** What an illegal case sends on its stream. */
    @FunctionalInterface
    private interface Send {
        void on(int stream) throws IOException;
    }

    private void illegal(String id, String sent, Send send) throws IOException, InterruptedException {
        int stream = nextStream++;
        send.on(stream);
        record(terminated(new Verdict.Case(id, "RFC 5043 §6.1, §5.2.3, §10", sent, "Terminate (0x4) on that "
                + "stream, U=1, no PD"), stream));
    }

    private Verdict terminated(Verdict.Case check, int stream) throws InterruptedException {
        RawSctpPeer.Chunk answer = events.next(stream, wait);
        if (answer == null) {
            return check.judged(events.silence(wait), false);
        }
        return check.judged(SctpEvents.describe(answer), SctpEvents.code(answer) == FunctionCode.TERMINATE
                && answer.unordered() && answer.octets().length == SessionControlChunk.PRIVATE_DATA_OFFSET);
    }

    private void notDdp() throws InterruptedException {
        Verdict.Case check = new Verdict.Case("not-ddp", "RFC 5043 §5.1", "a second association with the "
                + "indication 0x00001234, then an Initiate", "no DDP on it: the association refused or the Initiate "
                + "unanswered");
        try (RawSctpPeer other = RawSctpPeer.connect(stack, local, peer, NOT_DDP)) {
            SctpEvents otherEvents = new SctpEvents(other);
            other.control(1, 0, new SessionControl.Initiate(PrivateData.EMPTY));
            RawSctpPeer.Chunk answer = otherEvents.next(1, wait);
            record(check.judged(answer == null ? otherEvents.silence(wait) : SctpEvents.describe(answer),
                    answer == null));
        } catch (IOException e) {
            record(check.judged("refused: " + e.getMessage(), true));
        }
    }
}
