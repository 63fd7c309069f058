package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.error.MpaError;
import org.rddp.mpa.MpaFramer;
import org.rddp.rdmap.RtrType;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.loop.Loop;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;
import org.rddp.wire.Wire;
import org.rddp.transport.mpa.raw.RawMpaPeer;

/**
 * The connection-setup matrix of TCP/MPA (RFC 5044 §7, RFC 6581): revision 1 and 2 on either side, IRD/ORD and
 * RTR negotiation, ULP rejects, malformed startup frames, startup timeouts, private data limits and what Linux siw
 * sends. Ours talks to ours through the verbs, or to a {@link RawMpaPeer} that writes the frames by hand and
 * checks what comes back octet for octet.
 */
class MpaSetupTest {
    private static final PrivateData HELLO = PrivateData.of("hello".getBytes(StandardCharsets.US_ASCII));
    private static final PrivateData NO = PrivateData.of("no thanks".getBytes(StandardCharsets.US_ASCII));
    private static final PrivateData WELCOME = PrivateData.of("welcome".getBytes(StandardCharsets.US_ASCII));
    private static final byte[] REQUEST_KEY = MpaStartupFrame.Kind.REQUEST.key();
    private static final byte[] REPLY_KEY = MpaStartupFrame.Kind.REPLY.key();
    private static final int S = MpaStartupFrame.ENHANCED_FLAG;
    private static final int C = MpaStartupFrame.CRC_FLAG;
    private static final int M = MpaStartupFrame.MARKERS_FLAG;
    private static final int R = MpaStartupFrame.REJECT_FLAG;
    /** The Res bit Linux siw sets when it tries GSO (MPA_RR_FLAG_GSO_EXP). */
    private static final int SIW_GSO_BIT = 0x08;
    private static final long WAIT_SECONDS = 5;

    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private final List<AutoCloseable> closeFirst = new ArrayList<>();
    private final LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    private End initiator;
    private End responder;

    @BeforeEach
    void setUp() {
        initiator = new End("initiator");
        responder = new End("responder");
    }

    /** Raw peers and listeners first (so that no setup thread is left blocked on them), then the managers. */
    @AfterEach
    void tearDown() {
        for (List<AutoCloseable> group : List.of(closeFirst, closeLast)) {
            for (AutoCloseable resource : group.reversed()) {
                try {
                    resource.close();
                } catch (Exception e) {
                    // going away anyway; the others still close
                }
            }
        }
    }

    // ------------------------------------------------------------------ 1. revisions

    @Test
    void revision2ToRevision2IsEnhancedWithNegotiatedIrdAndOrd() throws Exception {
        Established up = connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()),
                options(HELLO, true, 4, 2), new AcceptOptions(WELCOME, 8, 8));
        assertThat(up.request().enhanced()).isTrue();
        assertThat(up.request().initiatorIrd()).isEqualTo(4);
        assertThat(up.request().initiatorOrd()).isEqualTo(2);
        assertThat(up.request().peerToPeer()).isFalse();
        assertThat(up.request().privateData()).isEqualTo(HELLO);
        assertIrdOrd(up.responder(), 2, 4); // IRD lowered to what the initiator's ORD needs, ORD up to its IRD
        assertIrdOrd(up.initiator(), 4, 2);
        assertThat(up.initiator().parameters().remotePrivateData()).isEqualTo(WELCOME);
        assertThat(up.initiator().parameters().rtrToSend()).isEqualTo(RtrType.NONE);
        exchange();
    }

    @Test
    void revision1InitiatorGetsAnUnenhancedConnectionFromARevision2Responder() throws Exception {
        Established up = connect(manager(MpaOptions.defaults().withRevision(1)), manager(MpaOptions.defaults()),
                options(HELLO, true, 3, 3), new AcceptOptions(WELCOME, 3, 3));
        assertThat(up.request().enhanced()).as("a revision 1 initiator never sends the enhanced data").isFalse();
        assertThat(up.request().initiatorIrd()).isEqualTo(-1);
        assertThat(up.request().initiatorOrd()).isEqualTo(-1);
        assertThat(up.request().privateData()).isEqualTo(HELLO);
        assertIrdOrd(up.initiator(), 3, 3); // the ULPs agreed: nothing to negotiate
        assertIrdOrd(up.responder(), 3, 3);
        exchange();
    }

    @ParameterizedTest(name = "flags octet 0x{0}")
    @ValueSource(strings = {"00", "10", "4f"})
    void aRevision1RequestOnTheWireGetsARevision1Reply(String flags) throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        try (RawMpaPeer peer = raw(listener.address())) {
            // in revision 1 the S bit is one of the Res bits: never looked at (RFC 5044 §7.1.1)
            peer.send(RawMpaPeer.frame(REQUEST_KEY, Integer.parseInt(flags, 16), 1, 5, HELLO.toByteArray()));
            ConnectionRequest request = request();
            assertThat(request.enhanced()).isFalse();
            assertThat(request.privateData()).isEqualTo(HELLO);
            CompletableFuture<Connection> accepted = request.accept(responder.qp, new AcceptOptions(WELCOME, 1, 1));
            RawMpaPeer.Frame reply = peer.readFrame();
            assertThat(reply.revision()).as("Rev").isEqualTo(1);
            assertThat(reply.flag(S)).as("S").isFalse();
            assertThat(reply.flag(R)).as("R").isFalse();
            assertThat(reply.flag(C)).as("C: our default asks for CRCs").isTrue();
            assertThat(reply.flag(M)).as("M").isFalse();
            assertThat(reply.flags() & MpaStartupFrame.RESERVED_MASK).as("Res sent as zero").isZero();
            assertThat(reply.decode(MpaStartupFrame.Kind.REPLY).privateData()).isEqualTo(WELCOME);
            assertThat(accepted.get(WAIT_SECONDS, TimeUnit.SECONDS).parameters().remotePrivateData()).isEqualTo(HELLO);
        }
    }

    @Test
    void anEnhancedRequestToARevision1OnlyResponderFailsClearly() throws Exception {
        MpaConnectionManager old = manager(MpaOptions.defaults().withRevision(1));
        Listener listener = listen(old);
        Throwable failure = failure(manager(MpaOptions.defaults()).connect(initiator.qp, listener.address(),
                options(HELLO, true, 2, 2)));
        assertThat(failure).isInstanceOf(IOException.class).isNotInstanceOf(ConnectionRejectedException.class)
                .hasMessageContaining("closed the connection without an MPA Reply")
                .hasMessageContaining("withRetryRevision1");
        assertThat(old.lastRefusal()).contains("revision 2");
        assertThat(requests).as("the ULP never saw the enhanced request").isEmpty();
        assertThat(initiator.qp.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void withRetryRevision1TheInitiatorRetriesWithRevision1AndConnects() throws Exception {
        MpaConnectionManager old = manager(MpaOptions.defaults().withRevision(1));
        Established up = connect(manager(MpaOptions.defaults().withRetryRevision1(true)), old,
                options(HELLO, true, 2, 2), new AcceptOptions(WELCOME, 2, 2));
        assertThat(old.lastRefusal()).as("the first, enhanced, attempt").contains("revision 2");
        assertThat(up.request().enhanced()).isFalse();
        assertThat(up.request().privateData()).isEqualTo(HELLO);
        assertThat(requests).as("only the retry reached the ULP").isEmpty();
        assertIrdOrd(up.initiator(), 2, 2);
        exchange();
    }

    // ------------------------------------------------------------------ 2. IRD/ORD (RFC 6581 §9.1)

    @ParameterizedTest(name = "initiator IRD {0} ORD {1}, responder max IRD {2} wants ORD {3}")
    @CsvSource({
        "4, 2, 8, 8, 2, 4, 2, 4",                 // the responder lowers its IRD to the initiator's ORD
        "2, 1, 8, 6, 1, 2, 1, 2",                 // the responder's ORD is limited by the initiator's IRD
        "1, 16, 4, 0, 4, 0, 4, 0",                // the responder's IRD caps the initiator's ORD
        "16383, 3, 8, 5, 3, 16383, 3, 5",         // initiator IRD 0x3FFF: the responder keeps its ORD, echoes
        "4, 16383, 8, 2, 16383, 2, 8, 2",         // initiator ORD 0x3FFF: the responder keeps its IRD, echoes
    })
    void theReplyCarriesTheNegotiatedIrdAndOrd(int iIrd, int iOrd, int maxIrd, int wantOrd, int replyIrd,
            int replyOrd, int ird, int ord) throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, true, false, 2,
                    EnhancedConnectionData.clientServer(iIrd, iOrd), PrivateData.EMPTY));
            CompletableFuture<Connection> accepted = request().accept(responder.qp,
                    new AcceptOptions(PrivateData.EMPTY, maxIrd, wantOrd));
            RawMpaPeer.Frame reply = peer.readFrame();
            assertThat(reply.revision()).isEqualTo(2);
            assertThat(reply.flag(S)).isTrue();
            assertThat(reply.pdLength()).isEqualTo(EnhancedConnectionData.LENGTH);
            assertThat(reply.decode(MpaStartupFrame.Kind.REPLY).enhancedData())
                    .isEqualTo(EnhancedConnectionData.clientServer(replyIrd, replyOrd));
            assertIrdOrd(accepted.get(WAIT_SECONDS, TimeUnit.SECONDS), ird, ord);
        }
    }

    @ParameterizedTest(name = "initiator IRD {0} ORD {1}, responder max IRD {2} wants ORD {3}")
    @CsvSource({
        "4, 2, 8, 8, 4, 2, 2, 4",
        "1, 16, 4, 0, 1, 4, 4, 0",                // the initiator lowers its ORD to the responder's IRD
        "16383, 16383, 8, 2, 16383, 16383, 8, 2", // no automatic negotiation either way: local values kept
    })
    void bothEndsSettleOnCompatibleDepths(int iIrd, int iOrd, int maxIrd, int wantOrd, int ird, int ord,
            int rIrd, int rOrd) throws Exception {
        Established up = connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()),
                options(PrivateData.EMPTY, true, iIrd, iOrd), new AcceptOptions(PrivateData.EMPTY, maxIrd, wantOrd));
        assertIrdOrd(up.initiator(), ird, ord);
        assertIrdOrd(up.responder(), rIrd, rOrd);
        exchange();
    }

    @Test
    void aReplyWith3fffKeepsTheInitiatorsOwnValues() throws Exception {
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                    server.address(), options(PrivateData.EMPTY, true, 3, 5));
            try (RawMpaPeer peer = accepted(server)) {
                MpaStartupFrame request = peer.readFrame().decode(MpaStartupFrame.Kind.REQUEST);
                assertThat(request.enhancedData()).isEqualTo(EnhancedConnectionData.clientServer(3, 5));
                peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, false, true, false, 2,
                        EnhancedConnectionData.clientServer(IrdOrdNegotiation.NO_NEGOTIATION,
                                IrdOrdNegotiation.NO_NEGOTIATION), PrivateData.EMPTY));
                assertIrdOrd(connecting.get(WAIT_SECONDS, TimeUnit.SECONDS), 3, 5);
            }
        }
    }

    @Test
    void aReadRtrRaisesAResponderIrdOfZeroToOne() throws Exception {
        ConnectOptions readRtr = new ConnectOptions(PrivateData.EMPTY, true, 2, 0, true, Set.of(RtrType.READ),
                Duration.ofSeconds(WAIT_SECONDS));
        Established up = connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()), readRtr,
                new AcceptOptions(PrivateData.EMPTY, 0, 0));
        assertThat(up.request().peerToPeer()).isTrue();
        assertThat(up.responder().parameters().rtrToReceive()).isEqualTo(RtrType.READ);
        assertThat(up.initiator().parameters().rtrToSend()).isEqualTo(RtrType.READ);
        assertThat(up.responder().parameters().ird()).as("one slot for the zero-length Read RTR").isEqualTo(1);
        assertThat(up.initiator().parameters().ord()).isZero();
        exchange(); // the responder answered the Read RTR and was released by it
        assertThat(responder.events).noneMatch(event -> event.event() == QpEvent.TERMINATE_SENT
                || event.event() == QpEvent.TERMINATE_RECEIVED);
    }

    @Test
    void aReadRtrRaisesTheIrdInTheReplyOnTheWire() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, true, false, 2,
                    new EnhancedConnectionData(true, false, false, true, 2, 0), PrivateData.EMPTY));
            request().accept(responder.qp, new AcceptOptions(PrivateData.EMPTY, 0, 0));
            assertThat(peer.readFrame().decode(MpaStartupFrame.Kind.REPLY).enhancedData())
                    .isEqualTo(new EnhancedConnectionData(true, false, false, true, 1, 0));
        }
    }

    @Test
    void anInitiatorWithTooLittleIrdSendsTerminate6AndFails() throws Exception {
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                    server.address(), options(PrivateData.EMPTY, true, 2, 2));
            try (RawMpaPeer peer = accepted(server)) {
                peer.readFrame();
                peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, false, false, false, 2,
                        EnhancedConnectionData.clientServer(2, 5), WELCOME)); // ORD 5 > the initiator's IRD 2
                assertBareTerminate(peer, MpaError.INSUFFICIENT_IRD, true);
                assertThat(peer.awaitEof()).as("the initiator closes after the Terminate").isNotNegative();
                assertThat(failure(connecting)).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                    assertThat(e.byUlp()).isFalse();
                    assertThat(e.peerIrd()).isEqualTo(2);
                    assertThat(e.peerOrd()).isEqualTo(5);
                    assertThat(e.privateData()).isEqualTo(WELCOME);
                    assertThat(e.getMessage()).contains("insufficient IRD");
                });
            }
        }
        assertThat(initiator.qp.state()).isEqualTo(QpState.IDLE);
    }

    @ParameterizedTest(name = "reply A=1 with RTR flags {0}")
    @ValueSource(strings = {"none", "READ", "SEND+READ"})
    void anInitiatorThatCannotSendAnyAcceptedRtrSendsTerminate7AndFails(String flags) throws Exception {
        Set<RtrType> accepted = flags.equals("none") ? Set.of()
                : flags.equals("READ") ? Set.of(RtrType.READ) : Set.of(RtrType.SEND, RtrType.READ);
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                    server.address(), new ConnectOptions(PrivateData.EMPTY, true, 1, 1, true, Set.of(RtrType.WRITE),
                            Duration.ofSeconds(WAIT_SECONDS)));
            try (RawMpaPeer peer = accepted(server)) {
                assertThat(peer.readFrame().decode(MpaStartupFrame.Kind.REQUEST).enhancedData())
                        .isEqualTo(new EnhancedConnectionData(true, false, true, false, 1, 1));
                peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, false, true, false, 2,
                        EnhancedConnectionData.of(true, accepted, 1, 1), PrivateData.EMPTY));
                assertBareTerminate(peer, MpaError.NO_MATCHING_RTR, true);
                assertThat(peer.awaitEof()).isNotNegative();
                assertThat(failure(connecting)).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                    assertThat(e.byUlp()).isFalse();
                    assertThat(e.getMessage()).contains("no matching RTR");
                });
            }
        }
    }

    // ------------------------------------------------------------------ 3. rejects

    @ParameterizedTest(name = "enhanced {0}")
    @ValueSource(booleans = {true, false})
    void aUlpRejectReachesTheInitiatorWithItsPrivateData(boolean enhanced) throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                listener.address(), options(HELLO, enhanced, 2, 2));
        ConnectionRequest request = request();
        assertThat(request.enhanced()).isEqualTo(enhanced);
        assertThat(request.privateData()).isEqualTo(HELLO);
        request.reject(NO);
        assertThat(failure(connecting)).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
            assertThat(e.byUlp()).isTrue();
            assertThat(e.privateData()).isEqualTo(NO);
        });
        assertThat(initiator.qp.state()).isEqualTo(QpState.IDLE);
        assertThatThrownBy(() -> request.accept(responder.qp, new AcceptOptions(PrivateData.EMPTY, 1, 1)))
                .as("a request is answered once").isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest(name = "Rev {0}, S={1}")
    @CsvSource({"1, false", "2, false", "2, true"})
    void aRejectOnTheWireHasR1(int revision, boolean enhanced) throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, false, false, revision,
                    enhanced ? EnhancedConnectionData.clientServer(1, 1) : null, HELLO));
            request().reject(NO);
            RawMpaPeer.Frame reply = peer.readFrame();
            assertThat(reply.flag(R)).as("R").isTrue();
            assertThat(reply.flag(S)).as("answered in kind (RFC 6581 §10)").isEqualTo(enhanced);
            assertThat(reply.revision()).isEqualTo(revision);
            MpaStartupFrame decoded = reply.decode(MpaStartupFrame.Kind.REPLY);
            assertThat(decoded.reject()).isTrue();
            assertThat(decoded.privateData()).isEqualTo(NO);
            assertThat(peer.awaitEof()).as("the responder's ULP has no use for the connection").isNotNegative();
        }
    }

    // ------------------------------------------------------------------ 4. malformed frames

    /** Requests a responder must close the connection on. */
    enum BadRequest {
        WRONG_KEY("not speaking MPA"),
        REPLY_KEY("not speaking MPA"),
        PD_LENGTH_513("PD_Length 513"),
        PD_LENGTH_65535("PD_Length 65535"),
        REVISION_3("revision 3"),
        REVISION_0("revision 0"),
        ENHANCED_WITHOUT_ENHANCED_DATA("S=1"),
        TRUNCATED("truncated"),
        EMPTY("closed the connection without an MPA Request");

        final String why;

        BadRequest(String why) {
            this.why = why;
        }

        /** The octets; a frame announcing more private data than it carries ends with a FIN. */
        byte[] octets() {
            return switch (this) {
                case WRONG_KEY -> RawMpaPeer.frame("MPA ID Req Frams".getBytes(StandardCharsets.US_ASCII), 0, 1,
                        0, new byte[0]);
                case REPLY_KEY -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, 0, 1, 0, new byte[0]);
                case PD_LENGTH_513 -> RawMpaPeer.frame(REQUEST_KEY, 0, 1, 513, new byte[0]);
                case PD_LENGTH_65535 -> RawMpaPeer.frame(REQUEST_KEY, 0, 1, 0xFFFF, new byte[0]);
                case REVISION_3 -> RawMpaPeer.frame(REQUEST_KEY, 0, 3, 0, new byte[0]);
                case REVISION_0 -> RawMpaPeer.frame(REQUEST_KEY, M | C, 0, 0, new byte[0]);
                case ENHANCED_WITHOUT_ENHANCED_DATA -> RawMpaPeer.frame(REQUEST_KEY, S, 2, 2, new byte[] {0, 1});
                case TRUNCATED -> RawMpaPeer.frame(REQUEST_KEY, 0, 1, 100, new byte[10]);
                case EMPTY -> new byte[0];
            };
        }
    }

    @ParameterizedTest
    @EnumSource(BadRequest.class)
    void aMalformedRequestIsClosedAndNeverReachesTheUlp(BadRequest bad) throws Exception {
        MpaConnectionManager ours = manager(MpaOptions.defaults());
        Listener listener = listen(ours);
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(bad.octets());
            if (bad == BadRequest.TRUNCATED || bad == BadRequest.EMPTY) {
                peer.shutdownOutput();
            }
            peer.awaitEof();
        }
        assertThat(ours.lastRefusal()).as("why it was refused").isNotNull().containsIgnoringCase(bad.why);
        assertThat(requests).isEmpty();
    }

    @Test
    void aResponderNotSpeakingMpaIsNamed() throws Exception {
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                    server.address(), options(HELLO, true, 1, 1));
            try (RawMpaPeer peer = accepted(server)) {
                peer.readFrame();
                peer.send(("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(failure(connecting)).isInstanceOf(IOException.class)
                        .hasMessageContaining("not speaking MPA");
            }
        }
    }

    /** Replies an initiator must refuse. */
    enum BadReply {
        PD_LENGTH_513("PD_Length 513"),
        TRUNCATED("truncated"),
        REVISION_3("revision 3"),
        REQUEST_KEY("not speaking MPA"),
        ENHANCED_WITHOUT_ENHANCED_DATA("S=1"),
        ENHANCED_REQUEST_ANSWERED_PLAIN("without the enhanced data");

        final String why;

        BadReply(String why) {
            this.why = why;
        }

        byte[] octets() {
            return switch (this) {
                case PD_LENGTH_513 -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, 0, 2, 513, new byte[0]);
                case TRUNCATED -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, S, 2, 100,
                        RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(1, 1).encode(), new byte[6]));
                case REVISION_3 -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, S, 3, 0, new byte[0]);
                case REQUEST_KEY -> RawMpaPeer.frame(MpaSetupTest.REQUEST_KEY, S, 2, 0, new byte[0]);
                case ENHANCED_WITHOUT_ENHANCED_DATA -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, S, 2, 3, new byte[3]);
                case ENHANCED_REQUEST_ANSWERED_PLAIN -> RawMpaPeer.frame(MpaSetupTest.REPLY_KEY, 0, 1, 0,
                        new byte[0]);
            };
        }
    }

    @ParameterizedTest
    @EnumSource(BadReply.class)
    void aMalformedReplyFailsTheConnect(BadReply bad) throws Exception {
        // with the revision 1 retry on: a malformed Reply is no reason to retry
        MpaConnectionManager ours = manager(MpaOptions.defaults().withRetryRevision1(true));
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = ours.connect(initiator.qp, server.address(),
                    options(HELLO, true, 1, 1));
            try (RawMpaPeer peer = accepted(server)) {
                peer.readFrame();
                peer.send(bad.octets());
                if (bad == BadReply.TRUNCATED) {
                    peer.shutdownOutput();
                }
                assertThat(failure(connecting)).isInstanceOf(IOException.class)
                        .isNotInstanceOf(ConnectionRejectedException.class).hasMessageContaining(bad.why);
                assertThat(peer.awaitEof()).as("the initiator closes the connection").isNotNegative();
            }
        }
        assertThat(initiator.qp.state()).isEqualTo(QpState.IDLE);
    }

    // ------------------------------------------------------------------ 5. timeouts

    @Test
    void aResponderThatNeverRepliesTimesOutTheConnect() throws Exception {
        try (RawMpaPeer.Server server = rawServer()) {
            long start = System.nanoTime();
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                    server.address(), new ConnectOptions(HELLO, true, 1, 1, false, Set.of(), Duration.ofMillis(500)));
            try (RawMpaPeer peer = accepted(server)) {
                peer.readFrame(); // the Request came; the Reply never will
                Throwable failure = failure(connecting);
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                assertThat(failure).isInstanceOf(java.net.SocketTimeoutException.class)
                        .hasMessageContaining("no MPA Reply within 500 ms");
                assertThat(elapsed).isBetween(450L, 2000L);
                assertThat(peer.awaitEof()).as("the initiator gives the connection up").isNotNegative();
            }
        }
    }

    @Test
    void anInitiatorThatNeverSendsARequestIsClosedAfterTheStartupTimeout() throws Exception {
        MpaConnectionManager ours = manager(MpaOptions.defaults().withStartupTimeout(Duration.ofMillis(300)));
        Listener listener = listen(ours);
        try (RawMpaPeer peer = raw(listener.address())) {
            long start = System.nanoTime();
            peer.awaitEof();
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(250L, 2000L);
        }
        assertThat(ours.lastRefusal()).contains("no MPA Request within 300 ms");
        assertThat(requests).isEmpty();
    }

    // ------------------------------------------------------------------ 6. private data limits

    @ParameterizedTest(name = "enhanced {0}: {1} octets")
    @CsvSource({"false, 512", "true, 508"})
    void theLargestPrivateDataGoesThroughBothWays(boolean enhanced, int length) throws Exception {
        PrivateData mine = PrivateData.of(pattern(length, 1));
        PrivateData theirs = PrivateData.of(pattern(length, 7));
        Established up = connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()),
                options(mine, enhanced, 1, 1), new AcceptOptions(theirs, 1, 1));
        assertThat(up.request().enhanced()).isEqualTo(enhanced);
        assertThat(up.request().privateData()).isEqualTo(mine);
        assertThat(up.initiator().parameters().remotePrivateData()).isEqualTo(theirs);
        assertThat(up.responder().parameters().remotePrivateData()).isEqualTo(mine);
        exchange();
    }

    @Test
    void enhancedPrivateDataOver508FailsTheConnect() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        Throwable failure = failure(manager(MpaOptions.defaults()).connect(initiator.qp, listener.address(),
                options(PrivateData.of(new byte[509]), true, 1, 1)));
        assertThat(failure).isInstanceOf(IOException.class).hasMessageContaining("exceeds 512")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(requests).isEmpty();
        // the same 509 octets are fine without the enhanced data
        Established up = connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()),
                options(PrivateData.of(new byte[509]), false, 1, 1), new AcceptOptions(PrivateData.EMPTY, 1, 1));
        assertThat(up.request().privateData().length()).isEqualTo(509);
    }

    @Test
    void privateDataOver512CannotEvenBeAskedFor() {
        assertThatThrownBy(() -> PrivateData.of(new byte[513])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds 512");
    }

    @Test
    void anEnhancedAcceptWithPrivateDataOver508FailsBothSides() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                listener.address(), options(HELLO, true, 1, 1));
        CompletableFuture<Connection> accepting = request().accept(responder.qp,
                new AcceptOptions(PrivateData.of(new byte[509]), 1, 1));
        assertThat(failure(accepting)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds 512");
        assertThat(failure(connecting)).isInstanceOf(IOException.class)
                .hasMessageContaining("closed the connection without an MPA Reply");
    }

    // ------------------------------------------------------------------ 7. a siw-like peer (digest §6.1)

    @Test
    void whatSiwSendsByDefaultIsAccepted() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        PrivateData siwData = PrivateData.of(pattern(256, 3));
        MemoryRegion sink = responder.region(64);
        responder.postReceive(sink, 0, 64, 11);
        try (RawMpaPeer peer = raw(listener.address())) {
            // Rev 2, S=1, M=0, C=0, Res bit 0x08, IRD/ORD 2/2 client-server, 256 octets of ULP data
            peer.send(RawMpaPeer.frame(REQUEST_KEY, S | SIW_GSO_BIT, 2, 4 + 256,
                    RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(2, 2).encode(), siwData.toByteArray())));
            ConnectionRequest request = request();
            assertThat(request.enhanced()).isTrue();
            assertThat(request.initiatorIrd()).isEqualTo(2);
            assertThat(request.privateData()).as("the Res bit changes nothing").isEqualTo(siwData);
            CompletableFuture<Connection> accepted = request.accept(responder.qp,
                    new AcceptOptions(PrivateData.EMPTY, 2, 2));
            RawMpaPeer.Frame reply = peer.readFrame();
            assertThat(reply.flags()).as("M=0 C=1 R=0 S=1 Res=0").isEqualTo(C | S);
            assertThat(reply.revision()).isEqualTo(2);
            assertThat(reply.decode(MpaStartupFrame.Kind.REPLY).enhancedData())
                    .isEqualTo(EnhancedConnectionData.clientServer(2, 2));
            accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);

            // CRCs on (our C=1), no Markers: siw's first FPDU, a Send, arrives; the responder answers with one
            peer.sendFpdu(send(1, "from siw".getBytes(StandardCharsets.US_ASCII)), true);
            WorkCompletion received = responder.next();
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(received.byteLength()).isEqualTo(8);
            assertThat(text(sink, 8)).isEqualTo("from siw");
            MemoryRegion source = responder.region(64);
            source.memory().copyFrom(MemorySegment.ofArray("to siw".getBytes(StandardCharsets.US_ASCII)));
            responder.send(source, 6, 12);
            byte[] answer = peer.readFpdu(true);
            MemorySegment segment = MemorySegment.ofArray(answer);
            assertThat(answer).hasSize(DdpSegment.UNTAGGED_HEADER_LENGTH + 6);
            assertThat(RdmapControl.opcode(answer[DdpSegment.RSVD_ULP_OFFSET] & 0xFF)).isEqualTo(RdmapOpcode.SEND);
            assertThat(Wire.u32(segment, DdpSegment.QN_OFFSET)).isEqualTo(RdmapControl.SEND_QUEUE);
            assertThat(Wire.u32(segment, DdpSegment.MSN_OFFSET)).isEqualTo(1);
            assertThat(new String(answer, DdpSegment.UNTAGGED_HEADER_LENGTH, 6, StandardCharsets.US_ASCII))
                    .isEqualTo("to siw");
        }
    }

    @Test
    void aFinInTheMiddleOfAnFpduIsALostConnectionNotAnOrderlyClose() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults()));
        MemoryRegion sink = responder.region(64);
        responder.postReceive(sink, 0, 64, 11);
        responder.postReceive(sink, 0, 64, 12);
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(RawMpaPeer.frame(REQUEST_KEY, S, 2, 4,
                    RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(2, 2).encode(), new byte[0])));
            CompletableFuture<Connection> accepted = request().accept(responder.qp,
                    new AcceptOptions(PrivateData.EMPTY, 2, 2));
            peer.readFrame();
            accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
            peer.sendFpdu(send(1, "whole".getBytes(StandardCharsets.US_ASCII)), true);
            assertThat(responder.next().status()).isEqualTo(WcStatus.SUCCESS);
            byte[] fpdu = crcFpdu(send(2, "cut short".getBytes(StandardCharsets.US_ASCII)));
            peer.send(java.util.Arrays.copyOf(fpdu, fpdu.length / 2)); // half an FPDU, then the FIN
            peer.shutdownOutput();
            Event ended = responder.awaitAny(QpEvent.CONNECTION_LOST, QpEvent.DISCONNECTED);
            assertThat(ended.event()).isEqualTo(QpEvent.CONNECTION_LOST);
            assertThat(ended.detail()).contains("in the middle of an FPDU");
            WorkCompletion flushed = responder.next();
            assertThat(flushed.wrId()).isEqualTo(12);
            assertThat(flushed.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        }
    }

    @Test
    void aSiwReplyWithoutCrcConnectsWithCrcOff() throws Exception {
        try (RawMpaPeer.Server server = rawServer()) {
            CompletableFuture<Connection> connecting = manager(MpaOptions.defaults().withCrc(false))
                    .connect(initiator.qp, server.address(), options(PrivateData.EMPTY, true, 2, 2));
            try (RawMpaPeer peer = accepted(server)) {
                RawMpaPeer.Frame request = peer.readFrame();
                assertThat(request.flags()).as("M=0 C=0 S=1").isEqualTo(S);
                peer.send(RawMpaPeer.frame(REPLY_KEY, S | SIW_GSO_BIT, 2, 4,
                        RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(2, 2).encode(), new byte[0])));
                Connection connection = connecting.get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertIrdOrd(connection, 2, 2);

                MemoryRegion source = initiator.region(64);
                initiator.send(source, 4, 21);
                byte[] ulpdu = peer.readFpdu(false); // fails unless the CRC field is zero
                assertThat(ulpdu).hasSize(DdpSegment.UNTAGGED_HEADER_LENGTH + 4);
            }
        }
    }

    /**
     * Issue 16 item 1: after a bad CRC the stream answers with a Terminate and keeps reading (discarding), so the
     * peer's FIN is seen: the socket closes and leaves its loop's selector; nothing stays registered to wake the loop
     * forever (the old I/O thread stopped reading after a CRC error and spun on the ready socket).
     */
    @Test
    void aBadCrcThenThePeersCloseLeavesNothingOnTheLoop() throws Exception {
        MpaConnectionManager ours = manager(MpaOptions.defaults());
        Listener listener = listen(ours);
        int listening = MpaTransport.registered(ours); // the listener's socket is on the loop too
        responder.postReceive(responder.region(64), 0, 64, 11);
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(RawMpaPeer.frame(REQUEST_KEY, C | S, 2, 4,
                    RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(2, 2).encode(), new byte[0])));
            CompletableFuture<Connection> accepted = request().accept(responder.qp,
                    new AcceptOptions(PrivateData.EMPTY, 2, 2));
            peer.readFrame();
            accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(MpaTransport.registered(ours)).as("the stream is on the loop").isEqualTo(listening + 1);

            byte[] ulpdu = send(1, "corrupted".getBytes(StandardCharsets.US_ASCII));
            byte[] fpdu = crcFpdu(ulpdu);
            fpdu[fpdu.length - 1] ^= 0x01; // one bit of the CRC field
            long malformed = Counters.process().get(Counter.MALFORMED_FPDUS);
            peer.send(fpdu);
            assertBareTerminate(peer, MpaError.CRC_ERROR, true);
            assertThat(Counters.process().get(Counter.MALFORMED_FPDUS)).as("counted").isEqualTo(malformed + 1);
            peer.send(new byte[4096]); // more after the error: read and discarded
            peer.shutdownOutput();
            peer.awaitEof(); // our side closes (its FIN may go before the peer's arrives)
            assertThat(MpaTransport.awaitRegistered(ours, listening)).as("nothing of the stream left on the loop's "
                    + "selector once the peer's FIN is in").isEqualTo(listening);
            assertThat(responder.qp.state()).isEqualTo(QpState.ERROR);
        }
    }

    /**
     * Issue 32, finding 5: after this side's Terminate (a bad CRC) the stream closes gracefully so that the Terminate
     * arrives (RFC 5040 §5.4), but a peer that never closes its side does not keep the connection: it is reset once
     * the close timeout has passed, and nothing of it is left on the loop.
     */
    @Test
    void aPeerThatDoesNotCloseAfterOurTerminateIsResetOnTheCloseDeadline() throws Exception {
        MpaConnectionManager ours = manager(MpaOptions.defaults().withCloseTimeout(Duration.ofMillis(300)));
        Listener listener = listen(ours);
        int listening = MpaTransport.registered(ours);
        try (RawMpaPeer peer = raw(listener.address())) {
            acceptRaw(peer);
            byte[] ulpdu = send(1, "corrupted".getBytes(StandardCharsets.US_ASCII));
            byte[] fpdu = crcFpdu(ulpdu);
            fpdu[fpdu.length - 1] ^= 0x01;
            peer.send(fpdu);
            assertBareTerminate(peer, MpaError.CRC_ERROR, true);
            peer.awaitEof(); // our FIN; the peer sends nothing and keeps its side open
            assertThat(MpaTransport.awaitRegistered(ours, listening)).as("the connection left the loop")
                    .isEqualTo(listening);
            assertThat(ours.connectionCount()).isZero();
            assertThat(responder.qp.state()).isEqualTo(QpState.ERROR);
        }
    }

    /** Issue 32, finding 5: half an FPDU, then silence, holds the connection only until the FPDU timeout. */
    @Test
    void aPartialFpduThenSilenceIsResetOnTheFpduDeadline() throws Exception {
        MpaConnectionManager ours = manager(MpaOptions.defaults().withFpduTimeout(Duration.ofMillis(300)));
        Listener listener = listen(ours);
        int listening = MpaTransport.registered(ours);
        responder.postReceive(responder.region(64), 0, 64, 11);
        try (RawMpaPeer peer = raw(listener.address())) {
            acceptRaw(peer);
            byte[] fpdu = crcFpdu(send(1, "cut short".getBytes(StandardCharsets.US_ASCII)));
            peer.send(java.util.Arrays.copyOf(fpdu, fpdu.length / 2)); // half an FPDU, then nothing
            Event ended = responder.awaitAny(QpEvent.CONNECTION_LOST, QpEvent.DISCONNECTED);
            assertThat(ended.event()).isEqualTo(QpEvent.CONNECTION_LOST);
            assertThat(ended.detail()).contains("in the middle of an FPDU").contains("MpaOptions.withFpduTimeout");
            assertThat(MpaTransport.awaitRegistered(ours, listening)).isEqualTo(listening);
        }
    }

    /** {@code ulpdu} framed as one FPDU with a CRC and without Markers, as the peer would send it. */
    private static byte[] crcFpdu(byte[] ulpdu) {
        MpaFramer framer = new MpaFramer(false, true);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(ulpdu.length));
        framer.frame(ByteBuffer.wrap(ulpdu), fpdu);
        return fpdu.array();
    }

    /** A raw initiator's enhanced Request, accepted by the responder's ULP; returns once both sides are up. */
    private void acceptRaw(RawMpaPeer peer) throws Exception {
        peer.send(RawMpaPeer.frame(REQUEST_KEY, C | S, 2, 4,
                RawMpaPeer.enhanced(EnhancedConnectionData.clientServer(2, 2).encode(), new byte[0])));
        CompletableFuture<Connection> accepted = request().accept(responder.qp,
                new AcceptOptions(PrivateData.EMPTY, 2, 2));
        peer.readFrame();
        accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ 8. peer-to-peer

    @Test
    void aResponderProposesTheRtrItSupportsAndAnInitiatorThatCannotSendItTerminates() throws Exception {
        MpaConnectionManager readOnly = manager(MpaOptions.defaults().withRtrTypes(Set.of(RtrType.READ)));
        Listener listener = listen(readOnly);
        CompletableFuture<Connection> connecting = manager(MpaOptions.defaults()).connect(initiator.qp,
                listener.address(), new ConnectOptions(PrivateData.EMPTY, true, 1, 1, true, Set.of(RtrType.WRITE),
                        Duration.ofSeconds(WAIT_SECONDS)));
        ConnectionRequest request = request();
        assertThat(request.peerToPeer()).isTrue();
        CompletableFuture<Connection> accepted = request.accept(responder.qp, new AcceptOptions(PrivateData.EMPTY,
                1, 1));
        assertThat(failure(connecting)).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
            assertThat(e.byUlp()).isFalse();
            assertThat(e.getMessage()).contains("no matching RTR");
        });
        Connection responderSide = accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(responderSide.parameters().rtrToReceive()).isEqualTo(RtrType.READ);
        // the responder's queue pair, waiting for its READ RTR, gets the initiator's Terminate instead: it hears
        // the cause and does not answer a Terminate with one (RFC 5040 §5.4)
        Event terminated = responder.awaitAny(QpEvent.TERMINATE_RECEIVED, QpEvent.TERMINATE_SENT,
                QpEvent.CONNECTION_LOST);
        assertThat(terminated.event()).isEqualTo(QpEvent.TERMINATE_RECEIVED);
        assertThat(terminated.terminate().cause()).contains(org.rddp.error.MpaError.NO_MATCHING_RTR);
        assertThat(responder.qp.state()).isIn(QpState.TERMINATE, QpState.ERROR);
    }

    @Test
    void theProposedRtrOnTheWire() throws Exception {
        Listener listener = listen(manager(MpaOptions.defaults().withRtrTypes(Set.of(RtrType.READ))));
        try (RawMpaPeer peer = raw(listener.address())) {
            peer.send(new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, true, false, 2,
                    EnhancedConnectionData.of(true, Set.of(RtrType.WRITE), 1, 1), PrivateData.EMPTY));
            request().accept(responder.qp, new AcceptOptions(PrivateData.EMPTY, 1, 1));
            EnhancedConnectionData answer = peer.readFrame().decode(MpaStartupFrame.Kind.REPLY).enhancedData();
            assertThat(answer.peerToPeer()).as("A echoed").isTrue();
            assertThat(answer.rtrTypes()).as("none requested fits: at least one it supports (RFC 6581 §9.2)")
                    .containsExactly(RtrType.READ);
        }
    }

    @Test
    void anInitiatorOfferingWriteAndReadConnectsWithRead() throws Exception {
        Established up = connect(manager(MpaOptions.defaults()),
                manager(MpaOptions.defaults().withRtrTypes(Set.of(RtrType.READ))),
                new ConnectOptions(PrivateData.EMPTY, true, 1, 1, true, EnumSet.of(RtrType.WRITE, RtrType.READ),
                        Duration.ofSeconds(WAIT_SECONDS)), new AcceptOptions(PrivateData.EMPTY, 1, 1));
        assertThat(up.initiator().parameters().rtrToSend()).isEqualTo(RtrType.READ);
        assertThat(up.responder().parameters().rtrToReceive()).isEqualTo(RtrType.READ);
        exchange();
    }

    // ------------------------------------------------------------------ 9. queue pairs already in use

    @Test
    void acceptingWithAQueuePairAlreadyInUseFailsBeforeTheReplyAndLeaksNoStream() throws Exception {
        MpaConnectionManager theirs = manager(MpaOptions.defaults());
        MpaConnectionManager ours = manager(MpaOptions.defaults());
        connect(ours, theirs, options(PrivateData.EMPTY, true, 1, 1), new AcceptOptions(PrivateData.EMPTY, 1, 1));
        assertThat(theirs.connectionCount()).isEqualTo(1);

        End another = new End("another initiator");
        Listener listener = listen(theirs);
        CompletableFuture<Connection> connecting = ours.connect(another.qp, listener.address(),
                options(PrivateData.EMPTY, true, 1, 1));
        CompletableFuture<Connection> accepting = request().accept(responder.qp,
                new AcceptOptions(PrivateData.EMPTY, 1, 1)); // responder.qp is in RTS already
        assertThat(failure(accepting)).isInstanceOf(IllegalStateException.class).hasMessageContaining("IDLE");
        assertThat(failure(connecting)).isInstanceOf(IOException.class)
                .hasMessageContaining("closed the connection without an MPA Reply");
        assertThat(theirs.connectionCount()).as("only the first connection").isEqualTo(1);
        assertThat(another.qp.state()).isEqualTo(QpState.IDLE);
    }

    @Test
    void connectingWithAQueuePairAlreadyInUseFailsAndLeaksNoStream() throws Exception {
        MpaConnectionManager theirs = manager(MpaOptions.defaults());
        MpaConnectionManager ours = manager(MpaOptions.defaults());
        connect(ours, theirs, options(PrivateData.EMPTY, true, 1, 1), new AcceptOptions(PrivateData.EMPTY, 1, 1));
        Listener listener = listen(theirs);
        Throwable failure = failure(ours.connect(initiator.qp, listener.address(),
                options(PrivateData.EMPTY, true, 1, 1))); // initiator.qp is in RTS already
        assertThat(failure).hasMessageContaining("IDLE");
        assertThat(ours.connectionCount()).as("only the first connection").isEqualTo(1);
        assertThat(requests).as("nothing went on the wire").isEmpty();
    }

    // ------------------------------------------------------------------ the stream once it is up

    /**
     * On a 1500-octet path a 64 KiB message is some 46 FPDUs of one TCP segment each (RFC 5044 §4.5); the stream
     * holds them and writes them together, where one system call each had cost 15 times the bandwidth.
     */
    @Test
    void theFpdusOfAMessageCutForAnEthernetPathLeaveInAFewWrites() throws Exception {
        Sent sent = sendOver(MpaOptions.defaults().withMtu(1500), 64 * 1024);
        assertThat(sent.mulpdu()).isEqualTo(1500 - 40 - 12 - 6); // EMSS minus the FPDU's length, CRC and PAD
        assertThat(sent.fpdus()).isGreaterThan(40);
        assertThat(sent.writes()).as("writes for %d FPDUs (more than one only where TCP's send buffer was full)",
                sent.fpdus()).isLessThan(sent.fpdus() / 4);
    }

    /**
     * A 1 MiB Send is 16 FPDUs of 64 KiB, each framed around its payload where it lies, and a short last one: each
     * large FPDU leaves in a write of its own, which fills a TCP segment (RFC 5044 §4.5; one write for all of them
     * measured 1.7 times slower), and the short one leaves with the last large one.
     */
    @Test
    void theLargeFpdusOfAMessageLeaveOnePerWriteFromWhereTheyLie() throws Exception {
        Sent sent = sendOver(MpaOptions.defaults(), 1 << 20);
        assertThat(sent.fpdus()).isEqualTo(17);
        assertThat(sent.writes()).as("writes for %d FPDUs (more only where TCP's send buffer was full)",
                sent.fpdus()).isBetween(16L, 24L);
    }

    /**
     * A burst of many small Sends (posted as one list: the application keeps posting) is carried over to the loop's
     * next duty cycle, to leave with the next burst in one write; when none comes it leaves in the stream's turn of
     * that cycle, all of it in one write, and every Send lands.
     */
    @Test
    void aBurstOfManySmallSendsWaitsOneCycleForMoreThenLeavesInOneWrite() throws Exception {
        int count = MpaStream.CARRY_MESSAGES * 2;
        SmallSends sends = new SmallSends(manager(MpaOptions.defaults()), count);
        long before = sends.stream.writes();
        assertThat(initiator.qp.postSend(sends.requests, count)).isEqualTo(count);
        sends.landed();
        assertThat(sends.stream.writes() - before).as("writes for %d Sends posted at once", count).isEqualTo(1);
    }

    /**
     * Two bursts of many small Sends, the second posted (on the loop) right after the first was framed: the first is
     * not written on its own but waits for the second, and both leave in one write in the turn of the cycle that
     * brought nothing more.
     */
    @Test
    void aSecondBurstPostedBeforeTheNextCycleJoinsTheFirstInOneWrite() throws Exception {
        int burst = MpaStream.CARRY_MESSAGES;
        MpaConnectionManager ours = manager(MpaOptions.defaults());
        SmallSends sends = new SmallSends(ours, 2 * burst);
        SendWorkRequest[] second = Arrays.copyOfRange(sends.requests, burst, 2 * burst);
        Loop loop = ours.loops().getFirst();
        long before = sends.stream.writes();
        CompletableFuture<Long> writesAfterFirst = new CompletableFuture<>();
        // on the loop: the first burst's drain is queued behind this command, the second post behind that drain
        loop.execute(() -> {
            initiator.qp.postSend(sends.requests, burst);
            loop.execute(() -> {
                writesAfterFirst.complete(sends.stream.writes() - before);
                initiator.qp.postSend(second, burst);
            });
        });
        sends.landed();
        assertThat(writesAfterFirst.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("writes once the first burst was framed")
                .isZero();
        assertThat(sends.stream.writes() - before).as("writes for two bursts of %d Sends", burst).isEqualTo(1);
    }

    /**
     * A connection with room for {@code count} requests each way (the initiator's manager {@code ours}), and
     * {@code count} patterned Sends of 64 octets for the initiator to post, each into a receive the responder posted.
     */
    private final class SmallSends {
        private static final int SIZE = 64;
        final MpaStream stream;
        final MemoryRegion source;
        final MemoryRegion sink;
        final SendWorkRequest[] requests;

        SmallSends(MpaConnectionManager ours, int count) throws Exception {
            initiator = new End("initiator", count);
            responder = new End("responder", count);
            connect(ours, manager(MpaOptions.defaults()), options(HELLO, true, 1, 1),
                    new AcceptOptions(WELCOME, 1, 1));
            exchange();
            stream = (MpaStream) initiator.qp.stream();
            source = initiator.region(count * SIZE);
            sink = responder.region(count * SIZE);
            requests = new SendWorkRequest[count];
            for (int i = 0; i < count; i++) {
                source.memory().asSlice((long) i * SIZE, SIZE).fill((byte) (i + 1));
                responder.postReceive(sink, (long) i * SIZE, SIZE, 100 + i);
                requests[i] = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(200 + i)
                        .sge(0, source, (long) i * SIZE, SIZE);
            }
        }

        /** Every Send completed on both sides, whole and in place. */
        void landed() throws InterruptedException {
            for (int i = 0; i < requests.length; i++) {
                WorkCompletion received = responder.completion(100 + i);
                assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(received.byteLength()).isEqualTo(SIZE);
                assertThat(initiator.completion(200 + i).status()).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(sink.memory().mismatch(source.memory())).as("first octet that differs").isEqualTo(-1);
        }
    }

    /** A Send of {@code size} octets that landed whole: the initiator stream's MULPDU, its FPDUs, and its writes. */
    private record Sent(int mulpdu, int fpdus, long writes) {
    }

    /** Connects with {@code options} on both sides and Sends {@code size} patterned octets, which must land whole. */
    private Sent sendOver(MpaOptions options, int size) throws Exception {
        connect(manager(options), manager(options), options(HELLO, true, 1, 1), new AcceptOptions(WELCOME, 1, 1));
        exchange();
        MpaStream stream = (MpaStream) initiator.qp.stream();
        MemoryRegion source = initiator.region(size);
        MemoryRegion sink = responder.region(size);
        for (int i = 0; i < size; i++) {
            source.memory().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + i / 1000));
        }
        responder.postReceive(sink, 0, size, 10);
        long before = stream.writes();
        initiator.send(source, size, 11);
        assertThat(initiator.completion(11).status()).isEqualTo(WcStatus.SUCCESS);
        WorkCompletion received = responder.completion(10);
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.byteLength()).isEqualTo(size);
        assertThat(sink.memory().mismatch(source.memory())).as("first octet that differs").isEqualTo(-1);
        int payload = stream.mulpdu() - DdpSegment.UNTAGGED_HEADER_LENGTH;
        return new Sent(stream.mulpdu(), (size + payload - 1) / payload, stream.writes() - before);
    }

    /**
     * The stream's loop reads its socket whether or not a consumer polls: a consumer that polled the queue empty and
     * then sleeps on its notification gets the next Send as soon as it arrives.
     */
    @Test
    void aConsumerThatSleepsOnTheQueueIsWokenByTheNextSend() throws Exception {
        connect(manager(MpaOptions.defaults()), manager(MpaOptions.defaults()), options(HELLO, true, 1, 1),
                new AcceptOptions(WELCOME, 1, 1));
        exchange();
        MemoryRegion sink = responder.region(64);
        responder.postReceive(sink, 0, 64, 20);
        WorkCompletion completion = new WorkCompletion();
        while (responder.cq.poll(completion)) {
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS); // what the exchange left
        } // and an empty poll
        responder.cq.requestNotification(false);
        assertThat(responder.cq.awaitNotification(Duration.ZERO)).isFalse();
        MemoryRegion source = initiator.region(64);
        initiator.send(source, 64, 21);
        assertThat(responder.cq.awaitNotification(Duration.ofSeconds(WAIT_SECONDS))).as("the Send, read by the "
                + "stream's loop while nobody polls").isTrue();
        assertThat(responder.cq.poll(completion)).isTrue();
        assertThat(completion.wrId()).isEqualTo(20);
        assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
    }

    // ------------------------------------------------------------------ helpers

    /** What a successful setup gave each side, and the request the responder's ULP saw. */
    record Established(ConnectionRequest request, Connection initiator, Connection responder) {
    }

    /** An asynchronous event as the queue pair's handler saw it. */
    record Event(QpEvent event, TerminateHeader terminate, String detail) {
    }

    private MpaConnectionManager manager(MpaOptions options) {
        MpaConnectionManager manager = new MpaConnectionManager(options, InetAddress.getLoopbackAddress());
        closeLast.add(manager);
        return manager;
    }

    /** Listens on a free loopback port; requests queue up for the test to answer. */
    private Listener listen(MpaConnectionManager manager) throws IOException {
        Listener listener = manager.listen(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                requests::add);
        closeFirst.add(listener);
        return listener;
    }

    private RawMpaPeer raw(SocketAddress address) throws IOException {
        RawMpaPeer peer = RawMpaPeer.connect(address);
        closeFirst.add(peer);
        return peer;
    }

    private RawMpaPeer.Server rawServer() throws IOException {
        RawMpaPeer.Server server = new RawMpaPeer.Server();
        closeFirst.add(server);
        return server;
    }

    private RawMpaPeer accepted(RawMpaPeer.Server server) throws IOException {
        RawMpaPeer peer = server.accept();
        closeFirst.add(peer);
        return peer;
    }

    private ConnectionRequest request() throws InterruptedException {
        ConnectionRequest request = requests.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(request).as("a connection request").isNotNull();
        return request;
    }

    private static ConnectOptions options(PrivateData privateData, boolean enhanced, int ird, int ord) {
        return new ConnectOptions(privateData, enhanced, ird, ord, false, Set.of(), Duration.ofSeconds(WAIT_SECONDS));
    }

    /** Sets up a connection between two of our managers; the request is accepted with {@code accept}. */
    private Established connect(MpaConnectionManager from, MpaConnectionManager to, ConnectOptions options,
            AcceptOptions accept) throws Exception {
        Listener listener = listen(to);
        CompletableFuture<Connection> connecting = from.connect(initiator.qp, listener.address(), options);
        ConnectionRequest request = request();
        CompletableFuture<Connection> accepted = request.accept(responder.qp, accept);
        Connection initiatorSide = connecting.get(WAIT_SECONDS, TimeUnit.SECONDS);
        Connection responderSide = accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
        initiator.awaitAny(QpEvent.ESTABLISHED);
        responder.awaitAny(QpEvent.ESTABLISHED);
        return new Established(request, initiatorSide, responderSide);
    }

    /**
     * Proves the connection carries data both ways: the initiator sends first (the responder holds until its
     * first FPDU arrives, RFC 5044 §7.1.2 rule 4, or until the RTR in peer-to-peer mode), then the responder.
     */
    private void exchange() throws Exception {
        MemoryRegion atInitiator = initiator.region(128);
        MemoryRegion atResponder = responder.region(128);
        initiator.postReceive(atInitiator, 64, 64, 1);
        responder.postReceive(atResponder, 64, 64, 2);
        atInitiator.memory().copyFrom(MemorySegment.ofArray("ping".getBytes(StandardCharsets.US_ASCII)));
        initiator.send(atInitiator, 4, 3);
        WorkCompletion ping = responder.completion(2);
        assertThat(ping.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(ping.byteLength()).isEqualTo(4);
        assertThat(text(atResponder.memory().asSlice(64), 4)).isEqualTo("ping");
        atResponder.memory().copyFrom(MemorySegment.ofArray("pong!".getBytes(StandardCharsets.US_ASCII)));
        responder.send(atResponder, 5, 4);
        WorkCompletion pong = initiator.completion(1);
        assertThat(pong.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(text(atInitiator.memory().asSlice(64), 5)).isEqualTo("pong!");
        assertThat(initiator.completion(3).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(responder.completion(4).status()).isEqualTo(WcStatus.SUCCESS);
    }

    private static void assertIrdOrd(Connection connection, int ird, int ord) {
        assertThat(connection.parameters().ird()).as("IRD").isEqualTo(ird);
        assertThat(connection.parameters().ord()).as("ORD").isEqualTo(ord);
    }

    /**
     * Reads the FPDU a failing initiator sends and checks it is the bare Terminate of RFC 6581 §9: untagged DDP
     * header on QN 2, MSN 1, MO 0, RDMAP opcode Terminate, then Layer 2 (LLP) / EType 0 (MPA) / {@code cause}.
     */
    private static void assertBareTerminate(RawMpaPeer peer, MpaError cause, boolean crc) throws IOException,
            org.rddp.wire.MalformedFrameException {
        byte[] ulpdu = peer.readFpdu(crc);
        assertThat(ulpdu).hasSize(DdpSegment.UNTAGGED_HEADER_LENGTH + TerminateHeader.CONTROL_LENGTH);
        MemorySegment message = MemorySegment.ofArray(ulpdu);
        assertThat(ulpdu[DdpSegment.CONTROL_OFFSET] & 0xFF).as("DDP control: untagged, L=1, DV=1")
                .isEqualTo(DdpSegment.LAST_FLAG | DdpSegment.DDP_VERSION);
        assertThat(RdmapControl.opcode(ulpdu[DdpSegment.RSVD_ULP_OFFSET] & 0xFF)).isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(RdmapControl.version(ulpdu[DdpSegment.RSVD_ULP_OFFSET] & 0xFF)).isEqualTo(1);
        assertThat(Wire.u32(message, DdpSegment.QN_OFFSET)).as("QN").isEqualTo(RdmapControl.TERMINATE_QUEUE);
        assertThat(Wire.u32(message, DdpSegment.MSN_OFFSET)).as("MSN").isEqualTo(1);
        assertThat(Wire.u32(message, DdpSegment.MO_OFFSET)).as("MO").isZero();
        int control = Wire.u32(message, DdpSegment.UNTAGGED_HEADER_LENGTH);
        assertThat(control >>> 28).as("Layer: LLP").isEqualTo(2);
        assertThat(control >>> 24 & 0xF).as("EType: MPA").isZero();
        assertThat(control >>> 16 & 0xFF).as("Error Code").isEqualTo(cause.code());
        assertThat(control & 0xFFFF).as("no headers copied (HdrCt 0)").isZero();
        TerminateHeader header = TerminateHeader.decode(message, DdpSegment.UNTAGGED_HEADER_LENGTH,
                TerminateHeader.CONTROL_LENGTH);
        assertThat(header.cause()).contains(cause);
    }

    /** A whole untagged Send message (one segment, MSN {@code msn}) carrying {@code payload}. */
    private static byte[] send(int msn, byte[] payload) {
        byte[] segment = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + payload.length];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND), 0, RdmapControl.SEND_QUEUE, msn, 0);
        System.arraycopy(payload, 0, segment, DdpSegment.UNTAGGED_HEADER_LENGTH, payload.length);
        return segment;
    }

    private static byte[] pattern(int length, int seed) {
        byte[] octets = new byte[length];
        for (int i = 0; i < length; i++) {
            octets[i] = (byte) (i * 31 + seed);
        }
        return octets;
    }

    private static String text(MemoryRegion region, int length) {
        return text(region.memory(), length);
    }

    private static String text(MemorySegment memory, int length) {
        return new String(memory.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /** How {@code future} failed, unwrapped; fails the test if it completes normally or not within 5 s. */
    private static Throwable failure(CompletableFuture<?> future) {
        Throwable thrown = catchThrowable(() -> future.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(thrown).as("the future fails").isInstanceOf(ExecutionException.class);
        return thrown.getCause();
    }

    /** One side: device, protection domain, completion queue, an IDLE queue pair and its events. */
    private static final class End {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private final List<WorkCompletion> early = new ArrayList<>();

        End(String name) {
            this(name, 8);
        }

        /** With room for {@code depth} sends and as many receives. */
        End(String name, int depth) {
            RdmaDevice device = new RdmaDevice(name);
            pd = device.allocateProtectionDomain();
            cq = device.createCompletionQueue(Math.max(64, 2 * depth + 8));
            qp = pd.createQueuePair(new QpAttributes(cq, cq, null, depth, depth, 1, true,
                    (pair, event, terminate, detail) -> events.add(new Event(event, terminate, detail))));
        }

        MemoryRegion region(int size) {
            return pd.register(Arena.ofAuto().allocate(size, 8), EnumSet.of(Access.LOCAL_WRITE));
        }

        void postReceive(MemoryRegion region, long offset, int length, long wrId) {
            assertThat(PostStatus.name(qp.postReceive(new ReceiveWorkRequest(1).wrId(wrId).sge(0, region, offset,
                    length)))).isEqualTo("OK");
        }

        void send(MemoryRegion region, int length, long wrId) {
            assertThat(PostStatus.name(qp.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(wrId)
                    .sge(0, region, 0, length)))).as("post on %s, events %s", qp, events).isEqualTo("OK");
        }

        /** The next completion, waiting up to 5 s. */
        WorkCompletion next() throws InterruptedException {
            if (!early.isEmpty()) {
                return early.removeFirst();
            }
            return poll();
        }

        /** The completion of {@code wrId}, keeping others for {@link #next()}. */
        WorkCompletion completion(long wrId) throws InterruptedException {
            for (WorkCompletion seen : early) {
                if (seen.wrId() == wrId) {
                    early.remove(seen);
                    return seen;
                }
            }
            while (true) {
                WorkCompletion completion = poll();
                if (completion.wrId() == wrId) {
                    return completion;
                }
                early.add(completion);
            }
        }

        private WorkCompletion poll() throws InterruptedException {
            WorkCompletion completion = new WorkCompletion();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!cq.poll(completion)) {
                cq.requestNotification(false);
                if (cq.poll(completion)) {
                    break;
                }
                long left = deadline - System.nanoTime();
                assertThat(left).as("a completion on %s within 5 s; events %s", qp, events).isPositive();
                cq.awaitNotification(Duration.ofNanos(left));
            }
            return completion;
        }

        /** The next event of any of {@code types}, skipping others; fails after 5 s. */
        Event awaitAny(QpEvent... types) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (true) {
                Event event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(event).as("one of %s on %s", List.of(types), qp).isNotNull();
                if (List.of(types).contains(event.event())) {
                    return event;
                }
            }
        }
    }
}
