package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.work.QpEvent;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;
import org.rddp.transport.sctp.raw.RawSctpPeer;

/**
 * The session control of RFC 5043 §6 and RFC 6581 §7 on the wire: every legal sequence, plain and enhanced,
 * IRD/ORD negotiation, and illegal sequences from a hand-driven peer, each checked chunk by chunk (PPID, U bit,
 * DDP-SSN, function code) as SCTP carried it.
 */
class SessionControlTest {
    private static final PrivateData HELLO = PrivateData.of(new byte[] {'h', 'e', 'l', 'l', 'o'});
    private static final PrivateData NO = PrivateData.of(new byte[] {'n', 'o'});

    private SctpConnectionManager ours;
    private final List<String> tapped = new CopyOnWriteArrayList<>();
    private final LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<QpEvent> events = new LinkedBlockingQueue<>();
    private final RdmaDevice device = new RdmaDevice("session-control");
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(256);
    private InetSocketAddress address;

    @BeforeEach
    void setUp() throws Exception {
        ours = new SctpConnectionManager(UsrsctpStack.udp(), InetAddress.getLoopbackAddress(),
                (association, outbound, streamId, ppid, unordered, chunk, length) -> tapped.add(
                        (outbound ? "out" : "in") + " sid=" + streamId + " ppid=" + ppid + " U=" + unordered));
        address = new InetSocketAddress(InetAddress.getLoopbackAddress(), TestPorts.next());
    }

    @AfterEach
    void tearDown() {
        ours.close();
    }

    private QueuePair queuePair() {
        return pd.createQueuePair(new QpAttributes(cq, cq, null, 16, 16, 1, true,
                (qp, event, terminate, detail) -> events.add(event)));
    }

    private Listener listen() throws Exception {
        return ours.listen(address, requests::add);
    }

    private ConnectionRequest request() throws InterruptedException {
        ConnectionRequest request = requests.poll(10, TimeUnit.SECONDS);
        assertThat(request).as("a connection request").isNotNull();
        return request;
    }

    private static byte[] send(int msn, int payload) {
        byte[] segment = new byte[18 + payload];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND), 0, 0, msn, 0);
        return segment;
    }

    // ------------------------------------------------------------------ legal sequences, we are passive

    @Test
    void aTapThatThrowsIsCountedAndTheSessionCarriesOn() throws Exception {
        ours.close();
        ours = new SctpConnectionManager(UsrsctpStack.udp(), InetAddress.getLoopbackAddress(),
                (association, outbound, streamId, ppid, unordered, chunk, length) -> {
                    throw new java.io.UncheckedIOException(new java.io.IOException("the capture's disk is full"));
                });
        long before = Counters.process().get(Counter.CALLBACK_FAILURES);
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(5, 0, new SessionControl.Initiate(HELLO)); // tapped in: throws
            QueuePair qp = queuePair();
            MemoryRegion sink = pd.register(java.lang.foreign.Arena.ofAuto().allocate(64), EnumSet.of(
                    Access.LOCAL_WRITE));
            qp.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, sink, 0, 64));
            CompletableFuture<Connection> accepted = request().accept(qp, new AcceptOptions(NO, 1, 1));
            assertThat(peer.next().control()).isEqualTo(new SessionControl.Accept(NO)); // tapped out: throws
            accepted.get(10, TimeUnit.SECONDS);

            peer.segment(5, 1, send(1, 10));
            WorkCompletion completion = next();
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(completion.byteLength()).isEqualTo(10);
            assertThat(qp.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).noSge())).isZero();
            assertThat(peer.next().ppid()).isEqualTo(DdpSctp.PPID_DDP_SEGMENT);
        }
        // the Initiate in, the Accept out and the segment in were tapped before the completion could be seen (the
        // last Send's tap follows its send, and may still be running)
        assertThat(Counters.process().get(Counter.CALLBACK_FAILURES) - before).as("each chunk's throw counted")
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void acceptedSessionOnTheWire() throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(5, 0, new SessionControl.Initiate(HELLO));
            ConnectionRequest request = request();
            assertThat(request.privateData()).isEqualTo(HELLO);
            assertThat(request.enhanced()).isFalse();
            QueuePair qp = queuePair();
            MemoryRegion sink = pd.register(java.lang.foreign.Arena.ofAuto().allocate(64), EnumSet.of(
                    Access.LOCAL_WRITE));
            qp.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, sink, 0, 64));
            CompletableFuture<Connection> accepted = request.accept(qp, new AcceptOptions(NO, 1, 1));

            RawSctpPeer.Chunk accept = peer.next();
            assertThat(accept.streamId()).as("the like-numbered stream").isEqualTo(5);
            assertThat(accept.unordered()).as("U bit").isTrue();
            assertThat(accept.ddpSsn()).as("first chunk of the session").isZero();
            assertThat(accept.control()).isEqualTo(new SessionControl.Accept(NO));
            accepted.get(10, TimeUnit.SECONDS);

            peer.segment(5, 1, send(1, 10)); // the initiator's DDP-SSN 1, after its Initiate
            WorkCompletion completion = next();
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(completion.byteLength()).isEqualTo(10);

            SendWorkRequest reply = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).noSge();
            assertThat(qp.postSend(reply)).isZero();
            RawSctpPeer.Chunk segment = peer.next();
            assertThat(segment.ppid()).isEqualTo(DdpSctp.PPID_DDP_SEGMENT);
            assertThat(segment.unordered()).isTrue();
            assertThat(segment.ddpSsn()).isEqualTo(1); // after our Accept
            assertThat(segment.octets()[2]).isEqualTo((byte) 0x41); // untagged, last, DV 1
            next(); // the Send's own completion

            peer.control(5, 2, new SessionControl.Terminate());
            RawSctpPeer.Chunk terminate = peer.next();
            assertThat(terminate.control()).isEqualTo(new SessionControl.Terminate());
            assertThat(terminate.octets()).as("a Terminate carries no private data").hasSize(4);
            assertThat(terminate.ddpSsn()).isEqualTo(2);
            assertThat(awaitEvent(QpEvent.DISCONNECTED)).isTrue();
            assertThat(tapped).allMatch(line -> line.contains("U=true"));
        }
    }

    /**
     * Sessions follow one another on one stream: each starts at DDP-SSN 0 (RFC 5043 §6.1), and an Initiate on an idle
     * stream is answered (§6.2-§6.4), whichever side ended the session before it.
     */
    @ParameterizedTest(name = "the {0} ended the first session")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"peer", "local side"})
    void aStreamCarriesANewSessionOnceTheLastOneEnded(String ender) throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(5, 0, new SessionControl.Initiate(HELLO));
            QueuePair first = queuePair();
            CompletableFuture<Connection> accepted = request().accept(first, new AcceptOptions(NO, 1, 1));
            assertThat(peer.next().control()).isEqualTo(new SessionControl.Accept(NO));
            accepted.get(10, TimeUnit.SECONDS);
            if (ender.equals("peer")) {
                peer.control(5, 1, new SessionControl.Terminate());
                assertThat(peer.next().control()).as("our answer").isEqualTo(new SessionControl.Terminate());
            } else {
                first.disconnect();
                assertThat(peer.next().control()).as("our end of it").isEqualTo(new SessionControl.Terminate());
                peer.control(5, 1, new SessionControl.Terminate());
            }
            assertThat(awaitEvent(QpEvent.DISCONNECTED)).isTrue();

            peer.control(5, 0, new SessionControl.Initiate(HELLO));
            request().accept(queuePair(), new AcceptOptions(NO, 1, 1));
            RawSctpPeer.Chunk accept = peer.next();
            assertThat(accept.control()).as("the second session's answer").isEqualTo(new SessionControl.Accept(NO));
            assertThat(accept.ddpSsn()).isZero();
        }
    }

    @ParameterizedTest(name = "initiator IRD {0} ORD {1}, responder max IRD {2} wants ORD {3}")
    @CsvSource({
        "4, 2, 8, 8, 2, 4",             // IRD what the initiator's ORD needs, ORD up to the initiator's IRD
        "1, 16, 4, 0, 4, 0",            // the initiator wants more reads than the responder can queue
        "16383, 16383, 8, 2, 16383, 16383", // 0x3FFF both ways: the ULP negotiates, echoed
    })
    void enhancedAcceptNegotiatesIrdAndOrd(int iIrd, int iOrd, int maxIrd, int wantOrd, int replyIrd, int replyOrd)
            throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(0, 0, new SessionControl.EnhancedInitiate(EnhancedConnectionData.clientServer(iIrd, iOrd),
                    HELLO));
            ConnectionRequest request = request();
            assertThat(request.enhanced()).isTrue();
            assertThat(request.initiatorIrd()).isEqualTo(iIrd);
            assertThat(request.initiatorOrd()).isEqualTo(iOrd);
            request.accept(queuePair(), new AcceptOptions(PrivateData.EMPTY, maxIrd, wantOrd));
            RawSctpPeer.Chunk accept = peer.next();
            assertThat(accept.control().functionCode()).isEqualTo(FunctionCode.ENHANCED_ACCEPT);
            assertThat(accept.control().enhancedData()).contains(EnhancedConnectionData.clientServer(replyIrd,
                    replyOrd));
        }
    }

    @Test
    void aUlpRejectIsARejectAndAnEnhancedOneAnEnhancedReject() throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(1, 0, new SessionControl.Initiate(HELLO));
            request().reject(NO);
            RawSctpPeer.Chunk reject = peer.next();
            assertThat(reject.streamId()).isEqualTo(1);
            assertThat(reject.control()).isEqualTo(new SessionControl.Reject(NO));

            peer.control(2, 0, new SessionControl.EnhancedInitiate(EnhancedConnectionData.clientServer(1, 1), HELLO));
            request().reject(NO);
            assertThat(peer.next().control()).isEqualTo(new SessionControl.EnhancedReject(NO));
        }
    }

    /**
     * Between two rddp ends a ULP's reject of an enhanced Initiate arrives with its private data whole, whatever its
     * length: an Enhanced Reject carries no enhanced data to mistake its first four octets for (RFC 6581 §7, §9).
     */
    @ParameterizedTest(name = "{0} octets of private data")
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 4, 512})
    void anEnhancedRejectsPrivateDataArrivesWhole(int length) throws Exception {
        byte[] octets = new byte[length];
        for (int i = 0; i < length; i++) {
            octets[i] = (byte) (0xA0 + i);
        }
        PrivateData why = PrivateData.of(octets);
        try (Listener listener = ours.listen(address, request -> request.reject(why));
                SctpConnectionManager initiator = new SctpConnectionManager(UsrsctpStack.udp(),
                        InetAddress.getLoopbackAddress())) {
            CompletableFuture<Connection> connecting = initiator.connect(queuePair(), address, new ConnectOptions(
                    HELLO, true, 2, 2, false, Set.of(), Duration.ofSeconds(10)));
            Throwable failure = catchThrowable(() -> connecting.get(15, TimeUnit.SECONDS));
            assertThat(failure).isNotNull();
            assertThat(failure.getCause()).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                assertThat(e.byUlp()).isTrue();
                assertThat(e.privateData().toByteArray()).as("the reject's private data").isEqualTo(octets);
            });
        }
    }

    @Test
    void tooManyInitiatesWaitingForTheUlpGetATerminate() throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            for (int sid = 0; sid <= SctpLimits.defaults().pendingPerAssociation(); sid++) {
                peer.control(sid, 0, new SessionControl.Initiate(PrivateData.EMPTY));
            }
            RawSctpPeer.Chunk answer = peer.next();
            assertThat(answer.streamId()).isEqualTo(SctpLimits.defaults().pendingPerAssociation());
            assertThat(answer.control()).as("the non-ULP reject of RFC 5043 §6.4")
                    .isEqualTo(new SessionControl.Terminate());
            assertThat(requests).hasSize(SctpLimits.defaults().pendingPerAssociation());
        }
    }

    @Test
    void aSlowUlpStopsTheAssociationReadingInsteadOfRefusingAndItReadsOnOnceTheUlpAnswers() throws Exception {
        int limit = SctpLimits.defaults().pendingPerAssociation();
        LinkedBlockingQueue<ConnectionRequest> waiting = new LinkedBlockingQueue<>();
        try (SctpConnectionManager patient = new SctpConnectionManager(UsrsctpStack.udp(),
                InetAddress.getLoopbackAddress(), ChunkTap.NONE, org.rddp.loop.Progress.automatic(),
                SctpLimits.defaults().withUlpWait(Duration.ofMinutes(10)));
                Listener listener = patient.listen(address, waiting::add);
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            for (int sid = 0; sid <= limit; sid++) { // one more than may wait for the ULP
                peer.control(sid, 0, new SessionControl.Initiate(PrivateData.EMPTY));
            }
            List<ConnectionRequest> first = new java.util.ArrayList<>();
            for (int i = 0; i < limit; i++) {
                first.add(waiting.poll(10, TimeUnit.SECONDS));
            }
            assertThat(first).doesNotContainNull();
            first.get(0).reject(NO); // one answered: the association reads the Initiate it held back
            RawSctpPeer.Chunk answer = peer.next();
            assertThat(answer.streamId()).isZero();
            assertThat(answer.control()).isEqualTo(new SessionControl.Reject(NO));
            ConnectionRequest last = waiting.poll(10, TimeUnit.SECONDS);
            assertThat(last).as("the Initiate beyond the limit reached the ULP, not a Session Terminate").isNotNull();
            last.reject(NO);
            answer = peer.next();
            assertThat(answer.streamId()).isEqualTo(limit);
            assertThat(answer.control()).isEqualTo(new SessionControl.Reject(NO));
            assertThat(patient.lastRefusal()).as("nothing refused below the ULP").isNull();
            assertThat(patient.counters()).containsEntry(Counter.CONNECTIONS_REFUSED, 0L);
        }
    }

    // ------------------------------------------------------------------ illegal sequences from the peer

    enum Illegal {
        SEGMENT_WITHOUT_SESSION, ACCEPT_WITHOUT_INITIATE, UNKNOWN_FUNCTION_CODE, TERMINATE_WITH_PRIVATE_DATA,
        ORDERED_CHUNK, UNKNOWN_PPID, PRIVATE_DATA_TOO_LONG, TRUNCATED_CHUNK
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Illegal.class)
    void anIllegalChunkEndsTheSessionWithATerminateButNotTheAssociation(Illegal illegal) throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            int sid = 3;
            switch (illegal) {
                case SEGMENT_WITHOUT_SESSION -> peer.segment(sid, 0, send(1, 4));
                case ACCEPT_WITHOUT_INITIATE -> peer.control(sid, 0, new SessionControl.Accept(PrivateData.EMPTY));
                case UNKNOWN_FUNCTION_CODE -> peer.send(sid, DdpSctp.PPID_SESSION_CONTROL, true,
                        new byte[] {0, 0, 0, 0x08});
                case TERMINATE_WITH_PRIVATE_DATA -> peer.send(sid, DdpSctp.PPID_SESSION_CONTROL, true,
                        new byte[] {0, 0, 0, 0x04, 1});
                case ORDERED_CHUNK -> peer.send(sid, DdpSctp.PPID_SESSION_CONTROL, false,
                        new org.rddp.sctp.SessionControlChunk(0, new SessionControl.Initiate(PrivateData.EMPTY))
                                .toByteArray());
                case UNKNOWN_PPID -> peer.send(sid, 99, true, new byte[] {0, 0, 0, 1});
                case PRIVATE_DATA_TOO_LONG -> {
                    byte[] chunk = new byte[4 + 513];
                    chunk[3] = 0x01;
                    peer.send(sid, DdpSctp.PPID_SESSION_CONTROL, true, chunk);
                }
                case TRUNCATED_CHUNK -> peer.send(sid, DdpSctp.PPID_SESSION_CONTROL, true, new byte[] {0});
                default -> throw new IllegalStateException(illegal.name());
            }
            RawSctpPeer.Chunk answer = peer.next();
            assertThat(answer.streamId()).isEqualTo(sid);
            assertThat(answer.unordered()).isTrue();
            assertThat(answer.control()).isEqualTo(new SessionControl.Terminate());
            assertThat(requests).isEmpty();

            // the association is still good for another session
            peer.control(sid + 1, 0, new SessionControl.Initiate(HELLO));
            request().accept(queuePair(), new AcceptOptions(PrivateData.EMPTY, 1, 1));
            assertThat(peer.next().control()).isEqualTo(new SessionControl.Accept(PrivateData.EMPTY));
        }
    }

    @ParameterizedTest
    @CsvSource({"BAD_DDP_SSN", "SECOND_INITIATE"})
    void anIllegalChunkInsideAnOpenSessionReachesTheQueuePair(String what) throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION)) {
            peer.control(0, 0, new SessionControl.Initiate(PrivateData.EMPTY));
            request().accept(queuePair(), new AcceptOptions(PrivateData.EMPTY, 1, 1)).get(10, TimeUnit.SECONDS);
            peer.next(); // Accept
            if (what.equals("BAD_DDP_SSN")) {
                peer.segment(0, 40000, send(1, 4)); // not within the window after 1 (RFC 5043 §10)
            } else {
                peer.control(0, 1, new SessionControl.Initiate(PrivateData.EMPTY));
            }
            assertThat(peer.next().control()).isEqualTo(new SessionControl.Terminate());
            assertThat(awaitEvent(QpEvent.CONNECTION_LOST)).as("the queue pair hears its stream is gone").isTrue();
        }
    }

    @Test
    void anAssociationThatIsNotDdpIsRefused() throws Exception {
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(address, 0x1234)) {
            peer.control(0, 0, new SessionControl.Initiate(PrivateData.EMPTY)); // may already fail: it is refused
            assertThat(peer.awaitDown()).as("RFC 5043 §5.1: no DDP on an association without the indication")
                    .isTrue();
            assertThat(requests).isEmpty();
        } catch (java.io.IOException expected) {
            assertThat(requests).isEmpty();
        }
    }

    // ------------------------------------------------------------------ we are the initiator

    @Test
    void initiateOnTheWireAndAPlainAccept() throws Exception {
        CompletableFuture<RawSctpPeer> raw = RawSctpPeer.listen(address, DdpSctp.ADAPTATION_INDICATION);
        CompletableFuture<Connection> connecting = ours.connect(queuePair(), address, new ConnectOptions(HELLO, false,
                2, 2, false, Set.of(), Duration.ofSeconds(10)));
        try (RawSctpPeer peer = raw.get(10, TimeUnit.SECONDS)) {
            RawSctpPeer.Chunk initiate = peer.next();
            assertThat(initiate.unordered()).isTrue();
            assertThat(initiate.ddpSsn()).isZero();
            assertThat(initiate.control()).isEqualTo(new SessionControl.Initiate(HELLO));
            peer.control(initiate.streamId(), 0, new SessionControl.Accept(NO));
            Connection connection = connecting.get(10, TimeUnit.SECONDS);
            assertThat(connection.parameters().remotePrivateData()).isEqualTo(NO);
            connection.disconnect();
            RawSctpPeer.Chunk terminate = peer.next();
            assertThat(terminate.ddpSsn()).isEqualTo(1);
            assertThat(terminate.control()).isEqualTo(new SessionControl.Terminate());
        }
    }

    @Test
    void aListenerAskingForEveryStreamTakesASessionOnTheLastOne() throws Exception {
        ours.close();
        ours = new SctpConnectionManager(UsrsctpStack.udp(), InetAddress.getLoopbackAddress(), ChunkTap.NONE,
                org.rddp.loop.Progress.automatic(), SctpLimits.defaults().withStreams(SctpLimits.MAX_STREAMS));
        try (Listener listener = listen();
                RawSctpPeer peer = RawSctpPeer.connect(UsrsctpStack.udp(), new InetSocketAddress(
                        InetAddress.getLoopbackAddress(), 0), address, SctpLimits.MAX_STREAMS,
                        DdpSctp.ADAPTATION_INDICATION)) {
            assertThat(peer.streams()).as("granted").isEqualTo(SctpLimits.MAX_STREAMS);
            int last = SctpLimits.MAX_STREAMS - 1;
            peer.control(last, 0, new SessionControl.Initiate(HELLO));
            QueuePair qp = queuePair();
            MemoryRegion sink = pd.register(java.lang.foreign.Arena.ofAuto().allocate(64), EnumSet.of(
                    Access.LOCAL_WRITE));
            qp.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, sink, 0, 64));
            CompletableFuture<Connection> accepted = request().accept(qp, new AcceptOptions(NO, 1, 1));
            RawSctpPeer.Chunk accept = peer.next();
            assertThat(accept.streamId()).isEqualTo(last);
            assertThat(accept.control()).isEqualTo(new SessionControl.Accept(NO));
            accepted.get(10, TimeUnit.SECONDS);
            peer.segment(last, 1, send(1, 10));
            WorkCompletion completion = next();
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(completion.byteLength()).isEqualTo(10);
        }
        assertThatThrownBy(() -> SctpLimits.defaults().withStreams(SctpLimits.MAX_STREAMS + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65535");
        assertThatThrownBy(() -> SctpLimits.defaults().withStreams(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPeerThatGrantsFewerStreamsGetsNoSessionBeyondThem() throws Exception {
        LinkedBlockingQueue<RawSctpPeer> associations = new LinkedBlockingQueue<>();
        try (SctpStack.Listening listening = RawSctpPeer.serve(UsrsctpStack.udp(), address, 2,
                DdpSctp.ADAPTATION_INDICATION, associations::add)) {
            // three queue pairs: two take the association's two streams, the third needs an association of its own
            List<CompletableFuture<Connection>> connecting = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                connecting.add(ours.connect(queuePair(), address, new ConnectOptions(HELLO, false, 1, 1, false,
                        Set.of(), Duration.ofSeconds(10))));
            }
            RawSctpPeer first = associations.poll(10, TimeUnit.SECONDS);
            assertThat(first).as("the first association").isNotNull();
            try (first) {
                for (int i = 0; i < 2; i++) {
                    RawSctpPeer.Chunk initiate = first.next();
                    assertThat(initiate.streamId()).as("a stream the peer granted").isLessThan(2);
                    first.control(initiate.streamId(), 0, new SessionControl.Accept(NO));
                }
                RawSctpPeer second = associations.poll(10, TimeUnit.SECONDS);
                assertThat(second).as("an association for the third queue pair").isNotNull();
                try (second) {
                    RawSctpPeer.Chunk initiate = second.next();
                    assertThat(initiate.streamId()).isLessThan(2);
                    second.control(initiate.streamId(), 0, new SessionControl.Accept(NO));
                    for (CompletableFuture<Connection> each : connecting) {
                        assertThat(each.get(10, TimeUnit.SECONDS).parameters().remotePrivateData()).isEqualTo(NO);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"REJECT", "ENHANCED_REJECT", "TERMINATE", "ENHANCED_ACCEPT_TO_PLAIN", "INSUFFICIENT_IRD"})
    void refusalsReachTheInitiator(String answer) throws Exception {
        boolean enhanced = !answer.equals("REJECT") && !answer.equals("ENHANCED_ACCEPT_TO_PLAIN")
                && !answer.equals("TERMINATE");
        CompletableFuture<RawSctpPeer> raw = RawSctpPeer.listen(address, DdpSctp.ADAPTATION_INDICATION);
        CompletableFuture<Connection> connecting = ours.connect(queuePair(), address, new ConnectOptions(HELLO,
                enhanced, 2, 2, false, Set.of(), Duration.ofSeconds(10)));
        try (RawSctpPeer peer = raw.get(10, TimeUnit.SECONDS)) {
            RawSctpPeer.Chunk initiate = peer.next();
            int sid = initiate.streamId();
            switch (answer) {
                case "REJECT" -> peer.control(sid, 0, new SessionControl.Reject(NO));
                case "ENHANCED_REJECT" -> peer.control(sid, 0, new SessionControl.EnhancedReject(NO));
                case "TERMINATE" -> peer.control(sid, 0, new SessionControl.Terminate());
                case "ENHANCED_ACCEPT_TO_PLAIN" -> peer.control(sid, 0, new SessionControl.EnhancedAccept(
                        EnhancedConnectionData.clientServer(1, 1), PrivateData.EMPTY));
                default -> peer.control(sid, 0, new SessionControl.EnhancedAccept(
                        EnhancedConnectionData.clientServer(2, 5), PrivateData.EMPTY)); // ORD 5 > our IRD 2
            }
            Throwable failure = catchThrowable(() -> connecting.get(10, TimeUnit.SECONDS));
            assertThat(failure).isNotNull();
            Throwable cause = failure.getCause();
            switch (answer) {
                case "REJECT" -> assertThat(cause).isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                    assertThat(e.byUlp()).isTrue();
                    assertThat(e.privateData()).isEqualTo(NO);
                });
                case "ENHANCED_REJECT" -> assertThat(cause).isInstanceOfSatisfying(ConnectionRejectedException.class,
                        e -> {
                            assertThat(e.byUlp()).isTrue();
                            assertThat(e.privateData()).isEqualTo(NO);
                        });
                case "TERMINATE" -> assertThat(cause).isInstanceOfSatisfying(ConnectionRejectedException.class,
                        e -> assertThat(e.byUlp()).isFalse());
                case "ENHANCED_ACCEPT_TO_PLAIN" -> {
                    assertThat(cause).isInstanceOf(java.io.IOException.class);
                    assertThat(peer.next().control()).isEqualTo(new SessionControl.Terminate());
                }
                default -> {
                    assertThat(cause).isInstanceOfSatisfying(ConnectionRejectedException.class,
                            e -> assertThat(e.getMessage()).contains("insufficient IRD"));
                    RawSctpPeer.Chunk rdmapTerminate = peer.next(); // RFC 6581 §9.1: a TERM with 0x2/0x0/0x06 first
                    assertThat(rdmapTerminate.ppid()).isEqualTo(DdpSctp.PPID_DDP_SEGMENT);
                    assertThat(org.rddp.rdmap.TerminateHeader.decode(MemorySegment.ofArray(rdmapTerminate.octets()),
                            2 + 18, rdmapTerminate.octets().length - 20).cause())
                            .contains(org.rddp.error.MpaError.INSUFFICIENT_IRD);
                    assertThat(peer.next().control()).isEqualTo(new SessionControl.Terminate());
                }
            }
        }
    }

    @Test
    void connectingToANonDdpListenerFailsClearly() throws Exception {
        CompletableFuture<RawSctpPeer> raw = RawSctpPeer.listen(address, 0x1234);
        CompletableFuture<Connection> connecting = ours.connect(queuePair(), address, ConnectOptions.of(1, 1));
        Throwable failure = catchThrowable(() -> connecting.get(15, TimeUnit.SECONDS));
        assertThat(failure.getCause()).hasMessageContaining("not DDP");
        raw.get(10, TimeUnit.SECONDS).close();
    }

    private WorkCompletion next() throws InterruptedException {
        WorkCompletion completion = new WorkCompletion();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cq.poll(completion)) {
            assertThat(System.nanoTime()).as("a completion within 10 s").isLessThan(deadline);
            cq.requestNotification(false);
            if (!cq.poll(completion)) {
                cq.awaitNotification(Duration.ofMillis(100));
                continue;
            }
            break;
        }
        return completion;
    }

    private boolean awaitEvent(QpEvent wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            QpEvent event = events.poll(100, TimeUnit.MILLISECONDS);
            if (event == wanted) {
                return true;
            }
        }
        return false;
    }
}
