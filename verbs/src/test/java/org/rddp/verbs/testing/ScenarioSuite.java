package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.error.DdpError;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.llp.LlpPath;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.wire.PrivateData;
import org.rddp.verbs.Access;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QpEventHandler;
import org.rddp.verbs.QpStatistics;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ConnectionManagerView;
import java.lang.management.ManagementFactory;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.SharedReceiveQueue;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * The engine's scenario suite, written against the verbs API so that it runs unchanged over every transport:
 * a subclass supplies the {@link TransportFixture}. Every operation at every message size class, ordering and
 * completion semantics, IRD/ORD, shared receive queues, solicited events, memory windows, flushes and the access
 * matrix of RFC 5042.
 */
public abstract class ScenarioSuite {
    /** {@link SizeClass#LARGE}: 16 MiB, or {@code -Drddp.test.large-octets} (the VM's fast runs take 1 MiB). */
    static final int LARGE_OCTETS = Integer.getInteger("rddp.test.large-octets", 16 << 20);

    /** Message sizes around the segment boundaries, in octets of payload. */
    enum SizeClass {
        ZERO, ONE, ONE_SEGMENT, ONE_SEGMENT_PLUS_ONE, MANY_SEGMENTS, LARGE;

        int octets(int mulpdu, int header) {
            return switch (this) {
                case ZERO -> 0;
                case ONE -> 1;
                case ONE_SEGMENT -> mulpdu - header;
                case ONE_SEGMENT_PLUS_ONE -> mulpdu - header + 1;
                case MANY_SEGMENTS -> 37 * (mulpdu - header) + 11;
                case LARGE -> LARGE_OCTETS;
            };
        }
    }

    private static final int UNTAGGED = 18;
    private static final int TAGGED = 14;

    TransportFixture transport;
    private final SendWorkRequest request = new SendWorkRequest(4);

    /** The transport under test. */
    protected abstract TransportFixture createTransport() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        transport = createTransport();
    }

    @AfterEach
    void tearDown() throws Exception {
        transport.close();
    }

    @ParameterizedTest
    @EnumSource(SizeClass.class)
    void sendDeliversEveryMessageSize(SizeClass sizeClass) throws Exception {
        int size = sizeClass.octets(transport.mulpdu(), UNTAGGED);
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(size, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, size, 11);
            peers.connect(4, 4);
            MemoryRegion source = peers.initiator.region(size);
            fill(source, size, 1);
            request.opcode(WorkOpcode.SEND).wrId(10);
            sge(request, source, size);
            peers.initiator.post(request);

            expect(peers.initiator.next(), 10, WcStatus.SUCCESS, WcOpcode.SEND, size);
            expect(peers.responder.next(), 11, WcStatus.SUCCESS, WcOpcode.RECV, size);
            assertSame(source, sink, size);
        }
    }

    @Test
    void eachQueuePairAndItsManagerShowWhatTheyDidAlsoThroughJmx() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(300, Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                peers.responder.postReceive(sink, 100 * i, 100, 30 + i);
            }
            peers.connect(4, 4);
            MemoryRegion source = peers.initiator.region(100);
            for (int i = 0; i < 3; i++) {
                request.opcode(WorkOpcode.SEND).wrId(40 + i);
                sge(request, source, 100);
                peers.initiator.post(request);
            }
            for (int i = 0; i < 3; i++) {
                expect(peers.initiator.next(), 40 + i, WcStatus.SUCCESS, WcOpcode.SEND, 100);
                expect(peers.responder.next(), 30 + i, WcStatus.SUCCESS, WcOpcode.RECV, 100);
            }
            QpStatistics sent = peers.initiator.qp.statistics();
            QpStatistics received = peers.responder.qp.statistics();
            assertThat(List.of(sent.sendsCompleted(), sent.octetsSent(), sent.receivesCompleted()))
                    .containsExactly(3L, 300L, 0L);
            assertThat(List.of(received.receivesCompleted(), received.octetsReceived(), received.sendsCompleted()))
                    .containsExactly(3L, 300L, 0L);
            assertThat(sent.terminateSent() || sent.terminateReceived() || sent.lost()).isFalse();
            assertThat(transport.initiator().statistics()).as("the initiator's manager lists its queue pair")
                    .anyMatch(qp -> qp.queuePair() == sent.queuePair() && qp.octetsSent() == 300);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertThat(server.queryNames(new ObjectName("org.rddp:type=ConnectionManager,*"), null))
                    .as("every manager open is an MBean").isNotEmpty()
                    .anyMatch(name -> JMX.newMXBeanProxy(server, name, ConnectionManagerView.class).getQueuePairs()
                            .stream().anyMatch(qp -> qp.queuePair() == received.queuePair()
                                    && qp.receivesCompleted() == 3 && qp.octetsReceived() == 300));
        }
    }

    @ParameterizedTest
    @EnumSource(SizeClass.class)
    void rdmaWritePlacesEveryMessageSize(SizeClass sizeClass) throws Exception {
        int size = sizeClass.octets(transport.mulpdu(), TAGGED);
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(size + 64L, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 21);
            peers.connect(4, 4);
            MemoryRegion source = peers.initiator.region(size);
            fill(source, size, 2);
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(20).remote(sink.rkey(), sink.iova() + 64);
            sge(request, source, size);
            peers.initiator.post(request);
            request.opcode(WorkOpcode.SEND).wrId(22).noSge(); // RFC 5040 §5.5: a later Send makes the Write visible
            peers.initiator.post(request);

            expect(peers.initiator.next(), 20, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, size);
            expect(peers.initiator.next(), 22, WcStatus.SUCCESS, WcOpcode.SEND, 0);
            expect(peers.responder.next(), 21, WcStatus.SUCCESS, WcOpcode.RECV, 0);
            assertThat(sink.memory().asSlice(64, size).mismatch(source.memory().asSlice(0, size))).isEqualTo(-1);
            assertThat(sink.memory().asSlice(0, 64).mismatch(MemorySegment.ofArray(new byte[64]))).isEqualTo(-1);
        }
    }

    @ParameterizedTest
    @EnumSource(SizeClass.class)
    void rdmaReadFetchesEveryMessageSize(SizeClass sizeClass) throws Exception {
        int size = sizeClass.octets(transport.mulpdu(), TAGGED);
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion source = peers.responder.region(size, Access.REMOTE_READ);
            fill(source, size, 3);
            peers.connect(4, 4);
            MemoryRegion sink = peers.initiator.region(size, Access.LOCAL_WRITE);
            request.opcode(WorkOpcode.RDMA_READ).wrId(30).remote(source.rkey(), source.iova());
            sge(request, sink, size);
            if (size == 0) {
                request.sge(0, sink, 0, 0); // a zero-length Read still names its sink
            }
            peers.initiator.post(request);

            expect(peers.initiator.next(), 30, WcStatus.SUCCESS, WcOpcode.RDMA_READ, size);
            assertSame(source, sink, size);
        }
    }

    @Test
    void anEventHandlerThatThrowsLeavesTheEngineDoingItsWork() throws Exception {
        long before = Counters.process().get(Counter.CALLBACK_FAILURES);
        try (Peers peers = new Peers(transport, 8)) {
            peers.initiator.handlerThrows = true; // at ESTABLISHED, at the Terminate received
            peers.responder.handlerThrows = true; // at ESTABLISHED, at the Terminate sent
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 11);
            MemoryRegion inbox = peers.initiator.region(64, Access.LOCAL_WRITE);
            peers.initiator.postReceive(inbox, 0, 64, 12);
            peers.connect(4, 4);
            MemoryRegion source = peers.initiator.region(64);
            fill(source, 64, 5);
            request.opcode(WorkOpcode.SEND).wrId(10).sge(0, source, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 10, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(peers.responder.next(), 11, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            assertSame(source, sink, 64);

            request.wrId(13); // no receive waits for it: the responder's Terminate still goes out, flushes still come
            peers.initiator.post(request);
            expect(peers.initiator.next(), 13, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.UNTAGGED_NO_BUFFER);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(DdpError.UNTAGGED_NO_BUFFER);
            expect(peers.initiator.next(), 12, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
        }
        assertThat(Counters.process().get(Counter.CALLBACK_FAILURES) - before).as("each throw counted")
                .isGreaterThanOrEqualTo(4);
    }

    @Test
    void aRegionWhoseMemoryWasFreedEndsTheConnectionWithALocalCatastrophicTerminate() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
            MemoryRegion target = peers.responder.pd.register(arena.allocate(4096),
                    java.util.EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 11);
            peers.connect(1, 1);
            arena.close(); // the application frees the memory behind a region it did not deregister
            MemoryRegion source = peers.initiator.region(64);
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(10).remote(target.rkey(), 0).sge(0, source, 0, 64);
            peers.initiator.post(request);
            Side.Event sent = peers.responder.await(QpEvent.TERMINATE_SENT);
            assertThat(sent.terminate().cause()).contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(sent.detail()).contains("the region's memory is gone", "closed");
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            expect(peers.responder.next(), 11, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {64, 65_536}) // over MPA: framed whole, framed around
    void aSendFromMemoryThatWasFreedFailsWithALocalCatastrophicTerminate(int size) throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(size, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 21);
            peers.responder.postReceive(sink, 0, size, 22);
            peers.connect(1, 1);
            MemoryRegion first = peers.initiator.region(64);
            request.opcode(WorkOpcode.SEND).wrId(20).sge(0, first, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 20, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(peers.responder.next(), 21, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
            MemoryRegion freed = peers.initiator.pd.register(arena.allocate(size), java.util.EnumSet.noneOf(
                    Access.class));
            arena.close();
            request.wrId(23).sge(0, freed, 0, size);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 23, WcStatus.LOC_PROT_ERR, WcOpcode.SEND, 0);
            Side.Event sent = peers.initiator.await(QpEvent.TERMINATE_SENT);
            assertThat(sent.terminate().cause()).contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(sent.detail()).contains("IllegalStateException");
            assertThat(peers.responder.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            expect(peers.responder.next(), 22, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
        }
    }

    @Test
    void aListenerWhoseHandlerThrowsRefusesThatRequestAndServesTheNext() throws Exception {
        SocketAddress address = transport.nextAddress();
        Side responder = new Side("responder", 64);
        responder.createQueuePair(4, null);
        AtomicInteger requests = new AtomicInteger();
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        AcceptOptions accept = new AcceptOptions(PrivateData.EMPTY, 4, 4);
        try (Listener listener = transport.responder().listen(address, incoming -> {
            if (requests.incrementAndGet() == 1) {
                throw new IllegalStateException("a bug in the listener's handler");
            }
            incoming.accept(responder.qp, accept).whenComplete((connection, failure) -> {
                if (failure != null) {
                    accepted.completeExceptionally(failure);
                } else {
                    accepted.complete(connection);
                }
            });
        })) {
            Side refused = new Side("refused", 64);
            refused.createQueuePair(4, null);
            assertThatThrownBy(() -> Waits.join(transport.initiator().connect(refused.qp, address,
                    ConnectOptions.of(4, 4)))).isInstanceOf(java.util.concurrent.ExecutionException.class)
                    .satisfies(failure -> assertThat(failure.getCause()).as("refused, not left to time out")
                            .isNotInstanceOf(java.util.concurrent.TimeoutException.class));

            Side initiator = new Side("initiator", 64);
            initiator.createQueuePair(4, null);
            MemoryRegion sink = responder.region(64, Access.LOCAL_WRITE);
            responder.postReceive(sink, 0, 64, 21);
            Waits.join(transport.initiator().connect(initiator.qp, address, ConnectOptions.of(4, 4)));
            Waits.join(accepted);
            MemoryRegion source = initiator.region(64);
            fill(source, 64, 6);
            request.opcode(WorkOpcode.SEND).wrId(20).sge(0, source, 0, 64);
            initiator.post(request);
            expect(initiator.next(), 20, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(responder.next(), 21, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            assertSame(source, sink, 64);
            assertThat(requests).hasValue(2);
        }
    }

    @Test
    void gathersAndScattersAcrossElements() throws Exception {
        int mulpdu = transport.mulpdu();
        int[] pieces = {1, mulpdu - 3, 2 * mulpdu + 5, 7};
        int total = pieces[0] + pieces[1] + pieces[2] + pieces[3];
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(total + 100L, Access.LOCAL_WRITE);
            ReceiveWorkRequest receive = new ReceiveWorkRequest(4).wrId(41)
                    .sge(0, sink, 0, 3).sge(1, sink, 50, total - 10).sge(2, sink, 60 + total - 10, 7);
            assertThat(peers.responder.qp.postReceive(receive)).isEqualTo(PostStatus.OK);
            peers.connect(4, 4);
            MemoryRegion source = peers.initiator.region(total);
            fill(source, total, 4);
            request.opcode(WorkOpcode.SEND).wrId(40);
            long offset = 0;
            for (int i = 0; i < pieces.length; i++) {
                request.sge(i, source, offset, pieces[i]);
                offset += pieces[i];
            }
            peers.initiator.post(request);

            expect(peers.initiator.next(), 40, WcStatus.SUCCESS, WcOpcode.SEND, total);
            expect(peers.responder.next(), 41, WcStatus.SUCCESS, WcOpcode.RECV, total);
            MemorySegment expected = source.memory();
            assertThat(sink.memory().asSlice(0, 3).mismatch(expected.asSlice(0, 3))).isEqualTo(-1);
            assertThat(sink.memory().asSlice(50, total - 10).mismatch(expected.asSlice(3, total - 10))).isEqualTo(-1);
            assertThat(sink.memory().asSlice(60 + total - 10, 7).mismatch(expected.asSlice(total - 7, 7)))
                    .isEqualTo(-1);
        }
    }

    /**
     * Issue 36: a list of work requests posted in one call runs in order; only its signaled requests complete visibly,
     * each after the unsignaled ones before it (their slots free with it); a list posted before RTS takes none.
     */
    @Test
    void aListPostedInOneCallRunsInOrderAndOnlyItsSignaledRequestsComplete() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            peers.initiator.createQueuePair(8, null, false);
            MemoryRegion sink = peers.responder.region(8 * 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 99);
            MemoryRegion source = peers.initiator.region(8 * 64);
            fill(source, 8 * 64, 3);
            SendWorkRequest[] list = new SendWorkRequest[8];
            for (int i = 0; i < list.length; i++) {
                list[i] = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(i).signaled(i == 3 || i == 7)
                        .sge(0, source, i * 64L, 64).remote(sink.rkey(), sink.iova() + i * 64L);
            }
            assertThat(peers.initiator.qp.postSend(list, list.length)).as("posted before RTS").isZero();
            peers.connect(4, 4);
            assertThat(peers.initiator.qp.postSend(list, list.length)).isEqualTo(8);
            expect(peers.initiator.next(), 3, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64);
            expect(peers.initiator.next(), 7, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64);
            peers.initiator.post(request.opcode(WorkOpcode.SEND).wrId(8).signaled(true).noSge()); // a slot is free
            expect(peers.initiator.next(), 8, WcStatus.SUCCESS, WcOpcode.SEND, 0);
            expect(peers.responder.next(), 99, WcStatus.SUCCESS, WcOpcode.RECV, 0);
            assertSame(source, sink, 8 * 64);
            peers.initiator.assertNoCompletion();
            assertThat(peers.initiator.qp.statistics().sendsCompleted()).isEqualTo(9);
        }
    }

    @Test
    void completionsFollowPostingOrder() throws Exception {
        int size = 1 << 20;
        try (Peers peers = new Peers(transport, 16)) {
            MemoryRegion source = peers.responder.region(size, Access.REMOTE_READ);
            MemoryRegion doorbell = peers.responder.region(64, Access.LOCAL_WRITE);
            for (int i = 0; i < 4; i++) {
                peers.responder.postReceive(doorbell, 0, 64, 100 + i);
            }
            peers.connect(4, 4);
            MemoryRegion sink = peers.initiator.region(size, Access.LOCAL_WRITE);
            request.opcode(WorkOpcode.RDMA_READ).wrId(1).remote(source.rkey(), 0).sge(0, sink, 0, size);
            peers.initiator.post(request);
            for (int i = 2; i <= 5; i++) {
                request.opcode(WorkOpcode.SEND).wrId(i).noSge();
                peers.initiator.post(request);
            }
            // RFC 5040 §5.5 rule 6: the Sends finish first on the wire, yet complete after the Read
            for (int i = 1; i <= 5; i++) {
                assertThat(peers.initiator.next().wrId()).isEqualTo(i);
            }
            for (int i = 0; i < 4; i++) {
                expect(peers.responder.next(), 100 + i, WcStatus.SUCCESS, WcOpcode.RECV, 0);
            }
        }
    }

    @Test
    void manyReadsStayWithinOrd() throws Exception {
        try (Peers peers = new Peers(transport, 64)) {
            MemoryRegion source = peers.responder.region(4096, Access.REMOTE_READ);
            fill(source, 4096, 5);
            // the responder gives IRD 2; an initiator that sent a third Read before a response would be Terminated.
            // Negotiation brings the initiator's ORD down to 2; without it the ULPs agree on 2 beforehand.
            int asked = transport.enhancedSetup() ? 8 : 2;
            peers.connect(ConnectOptions.of(asked, asked), new AcceptOptions(PrivateData.EMPTY, 2, 2));
            assertThat(peers.initiatorConnection.parameters().ord()).isEqualTo(2);
            assertThat(peers.responderConnection.parameters().ird()).isEqualTo(2);
            MemoryRegion sink = peers.initiator.region(40 * 4096L, Access.LOCAL_WRITE);
            for (int i = 0; i < 40; i++) {
                request.opcode(WorkOpcode.RDMA_READ).wrId(i).remote(source.rkey(), 0).sge(0, sink, i * 4096L, 4096);
                peers.initiator.post(request);
            }
            for (int i = 0; i < 40; i++) {
                expect(peers.initiator.next(), i, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 4096);
                assertThat(sink.memory().asSlice(i * 4096L, 4096).mismatch(source.memory())).isEqualTo(-1);
            }
        }
    }

    @Test
    void privateDataAndNegotiatedDepthsReachBothSides() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            PrivateData hello = PrivateData.of("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            PrivateData welcome = PrivateData.of(new byte[] {1, 2, 3});
            peers.connect(new ConnectOptions(hello, true, 16, IrdOrdNegotiation.NO_NEGOTIATION, false, Set.of(),
                    Duration.ofSeconds(10)), new AcceptOptions(welcome, 8, 4));
            assertThat(peers.initiatorConnection.parameters().remotePrivateData()).isEqualTo(welcome);
            assertThat(peers.responderConnection.parameters().remotePrivateData()).isEqualTo(hello);
            // initiator ORD 0x3FFF: the responder keeps its IRD (RFC 6581 §9.1), the initiator its ORD
            assertThat(peers.responderConnection.parameters().ird()).isEqualTo(8);
            assertThat(peers.initiatorConnection.parameters().ord()).isEqualTo(IrdOrdNegotiation.NO_NEGOTIATION);
            assertThat(peers.responderConnection.parameters().ord()).isEqualTo(4);
        }
    }

    /**
     * Issue 34: each end sees its connection's path (an SCTP association's, a TCP connection's) as the primary one, to
     * the other end's address; one it does not have cannot be made primary (the future fails, the connection goes on).
     * Multi-homed associations' paths are {@code KernelSctpGuestSuite}'s.
     */
    @Test
    void eachEndSeesItsConnectionsPathAndCannotChooseOneItLacks() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(4, 4);
            List<LlpPath> toResponder = Waits.join(peers.initiator.qp.paths());
            List<LlpPath> toInitiator = Waits.join(peers.responder.qp.paths());
            if (!transport.tellsPaths()) {
                return; // in memory, or a test proxy's socket: asked and answered, with nothing to tell
            }
            java.net.InetAddress listening = ((java.net.InetSocketAddress) peers.listener.address()).getAddress();
            for (List<LlpPath> paths : List.of(toResponder, toInitiator)) {
                assertThat(paths).singleElement().satisfies(path -> {
                    assertThat(path.primary()).isTrue();
                    assertThat(path.address().getAddress()).isEqualTo(listening); // both ends on one loopback
                    assertThat(path.state()).isIn(LlpPath.State.ACTIVE, LlpPath.State.UNKNOWN);
                });
            }
            java.net.InetSocketAddress stranger = new java.net.InetSocketAddress(
                    java.net.InetAddress.getByName("192.0.2.1"), 7); // TEST-NET-1: nobody's
            assertThatThrownBy(() -> Waits.join(peers.initiator.qp.choosePrimaryPath(stranger)))
                    .hasRootCauseInstanceOf(java.io.IOException.class);
            MemoryRegion source = peers.initiator.region(64);
            request.opcode(WorkOpcode.SEND).wrId(2);
            sge(request, source, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 2, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(peers.responder.next(), 1, WcStatus.SUCCESS, WcOpcode.RECV, 64);
        }
    }

    @Test
    void aRejectCarriesThePeersPrivateData() throws Exception {
        SocketAddressHolder holder = new SocketAddressHolder(transport.nextAddress());
        Side initiator = new Side("initiator", 16);
        initiator.createQueuePair(4, null);
        PrivateData no = PrivateData.of(new byte[] {'n', 'o'});
        try (Listener listener = transport.responder().listen(holder.address, request -> request.reject(no))) {
            CompletableFuture<Connection> attempt = transport.initiator().connect(initiator.qp, holder.address,
                    ConnectOptions.of(1, 1));
            Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
                    () -> Waits.join(attempt));
            assertThat(failure.getCause()).isInstanceOfSatisfying(ConnectionRejectedException.class, rejected -> {
                assertThat(rejected.byUlp()).isTrue();
                assertThat(rejected.privateData()).isEqualTo(no);
            });
            assertThat(initiator.qp.state()).isEqualTo(QpState.IDLE);
        }
    }

    private record SocketAddressHolder(java.net.SocketAddress address) {
    }

    @ParameterizedTest
    @EnumSource(value = RtrType.class, names = {"SEND", "WRITE", "READ"})
    void peerToPeerWorksWithEveryRtrType(RtrType rtr) throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            MemoryRegion back = peers.initiator.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 51);
            peers.initiator.postReceive(back, 0, 64, 52);
            ConnectOptions peerToPeer = new ConnectOptions(PrivateData.EMPTY, true, 1, 1, true, Set.of(rtr),
                    Duration.ofSeconds(10));
            if (!transport.enhancedSetup()) {
                // no RTR negotiation without the enhanced setup: the connection manager says so at once
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> peers.connect(peerToPeer,
                        new AcceptOptions(PrivateData.EMPTY, 1, 1))).hasMessageContaining("peer-to-peer");
                return;
            }
            peers.connect(peerToPeer, new AcceptOptions(PrivateData.EMPTY, 1, 1));
            // the responder sends first: it may, once the RTR arrived; the RTR consumed none of its receives
            MemoryRegion ping = peers.responder.region(64);
            fill(ping, 64, 6);
            request.opcode(WorkOpcode.SEND).wrId(53).sge(0, ping, 0, 64);
            peers.responder.post(request);
            expect(peers.initiator.next(), 52, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            MemoryRegion pong = peers.initiator.region(64);
            fill(pong, 64, 7);
            request.opcode(WorkOpcode.SEND).wrId(54).sge(0, pong, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 54, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            WorkCompletion first = peers.responder.next();
            if (first.wrId() == 53) {
                first = peers.responder.next();
            }
            expect(first, 51, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            assertSame(pong, sink, 64);
        }
    }

    @Test
    void sharedReceiveQueueFeedsEveryQueuePairInPostingOrder() throws Exception {
        Side responder = new Side("responder", 64);
        SharedReceiveQueue srq = responder.pd.createSharedReceiveQueue(16, 1);
        MemoryRegion sink = responder.region(4 * 256, Access.LOCAL_WRITE);
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        for (int i = 0; i < 4; i++) {
            assertThat(srq.postReceive(receive.wrId(200 + i).sge(0, sink, i * 256L, 256))).isEqualTo(PostStatus.OK);
        }
        Side[] initiators = {new Side("initiator-a", 64), new Side("initiator-b", 64)};
        QueuePair[] responderQps = new QueuePair[2];
        for (int i = 0; i < 2; i++) {
            initiators[i].createQueuePair(8, null);
            responderQps[i] = responder.pd.createQueuePair(new QpAttributes(responder.cq, responder.cq, srq, 8, 8, 1,
                    true, QpEventHandler.IGNORE));
            java.net.SocketAddress address = transport.nextAddress();
            QueuePair qp = responderQps[i];
            try (Listener listener = transport.responder().listen(address,
                    request -> request.accept(qp, new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
                Waits.join(transport.initiator().connect(initiators[i].qp, address, ConnectOptions.of(1, 1)));
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> responderQps[0].postReceive(receive))
                .isInstanceOf(IllegalStateException.class);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 2; i++) {
                MemoryRegion source = initiators[i].region(100);
                fill(source, 100, 10 * round + i);
                request.opcode(WorkOpcode.SEND).wrId(round).sge(0, source, 0, 100);
                initiators[i].post(request);
                expect(initiators[i].next(), round, WcStatus.SUCCESS, WcOpcode.SEND, 100);
                WorkCompletion received = responder.next();
                assertThat(received.wrId()).isEqualTo(200 + 2 * round + i); // SRQ order, whichever QP took it
                assertThat(received.queuePairNumber()).isEqualTo(responderQps[i].number());
                assertThat(sink.memory().asSlice((received.wrId() - 200) * 256, 100).mismatch(source.memory()))
                        .isEqualTo(-1);
            }
        }
    }

    @Test
    void solicitedSendsWakeASolicitedOnlyWaiter() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 32, 61);
            peers.responder.postReceive(sink, 32, 32, 62);
            peers.connect(1, 1);
            peers.responder.cq.requestNotification(true);
            request.opcode(WorkOpcode.SEND).wrId(1).noSge();
            peers.initiator.post(request);
            request.opcode(WorkOpcode.SEND_WITH_SE).wrId(2).noSge();
            peers.initiator.post(request);
            assertThat(peers.responder.cq.awaitNotification(Side.TIMEOUT)).isTrue();
            WorkCompletion plain = peers.responder.next();
            WorkCompletion solicited = peers.responder.next();
            assertThat(plain.solicited()).isFalse();
            assertThat(solicited.solicited()).isTrue();
            assertThat(solicited.wrId()).isEqualTo(62);
        }
    }

    @Test
    void windowsBindServeAndAreInvalidatedBySendWithInvalidate() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion backing = peers.responder.region(8192, Access.LOCAL_WRITE, Access.MW_BIND);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 71);
            peers.connect(2, 2);
            MemoryWindow window = peers.responder.pd.allocateWindow();
            request.bind(window, backing, 4096, 1024, 0, EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ))
                    .wrId(70);
            peers.responder.post(request);
            expect(peers.responder.next(), 70, WcStatus.SUCCESS, WcOpcode.BIND_MW, 0);
            assertThat(window.bound()).isTrue();
            int stag = window.stag();

            MemoryRegion source = peers.initiator.region(1024);
            fill(source, 1024, 8);
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(72).remote(stag, 0).sge(0, source, 0, 1024);
            peers.initiator.post(request);
            request.opcode(WorkOpcode.SEND_WITH_INVALIDATE).wrId(73).invalidate(stag).noSge();
            peers.initiator.post(request);
            expect(peers.initiator.next(), 72, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 1024);
            expect(peers.initiator.next(), 73, WcStatus.SUCCESS, WcOpcode.SEND, 0);
            WorkCompletion received = peers.responder.next();
            expect(received, 71, WcStatus.SUCCESS, WcOpcode.RECV, 0);
            assertThat(received.invalidatedStag()).isEqualTo(stag);
            assertThat(window.bound()).isFalse();
            assertThat(backing.memory().asSlice(4096, 1024).mismatch(source.memory())).isEqualTo(-1);

            // the STag is dead now: a Write through it is refused with DDP "invalid STag" (RFC 5041 §7.2)
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(74).remote(stag, 0).sge(0, source, 0, 16);
            peers.initiator.post(request);
            Side.Event terminate = peers.initiator.await(QpEvent.TERMINATE_RECEIVED);
            assertThat(terminate.terminate().cause()).contains(DdpError.TAGGED_INVALID_STAG);
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
        }
    }

    @Test
    void aWindowBoundWithAChosenKeyHasTheStagKnownBeforeTheBindRan() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion backing = peers.responder.region(4096, Access.LOCAL_WRITE, Access.MW_BIND);
            peers.connect(2, 2);
            MemoryWindow window = peers.responder.pd.allocateWindow();
            int key = (window.stag() + 1) & 0xFF;
            int announced = window.stagWithKey(key);
            assertThat(announced).isNotEqualTo(window.stag());
            request.bind(window, backing, 1024, 512, 0, EnumSet.of(Access.REMOTE_READ), key).wrId(80);
            peers.responder.post(request);
            // the STag announced before the bind ran is the one the bind gives, and it serves the peer
            fill(backing, 4096, 9);
            MemoryRegion sink = peers.initiator.region(512, Access.LOCAL_WRITE);
            request.opcode(WorkOpcode.RDMA_READ).wrId(81).remote(announced, 0).sge(0, sink, 0, 512);
            expect(peers.responder.next(), 80, WcStatus.SUCCESS, WcOpcode.BIND_MW, 0);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 81, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 512);
            assertThat(window.stag()).isEqualTo(announced);
            assertThat(sink.memory().mismatch(backing.memory().asSlice(1024, 512))).isEqualTo(-1);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> request.bind(window, backing, 0, 8, 0,
                    EnumSet.of(Access.REMOTE_READ), 256)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aWorkRequestsSlotIsFreeOnceItsCompletionCanBeSeen() throws Exception {
        // queues one deep: every post follows the completion that freed its slot at once, from the polling thread,
        // while the engine runs on its own; a slot freed only after its completion was visible failed this
        try (Peers peers = new Peers(transport, 1)) {
            MemoryRegion initiatorBuffer = peers.initiator.region(8, Access.LOCAL_WRITE);
            MemoryRegion responderBuffer = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.initiator.postReceive(initiatorBuffer, 0, 8, 0);
            peers.responder.postReceive(responderBuffer, 0, 8, 0);
            peers.connect(1, 1);
            SendWorkRequest initiatorSend = new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true);
            SendWorkRequest responderSend = new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true);
            for (int i = 1; i <= 1000; i++) {
                peers.initiator.post(initiatorSend.wrId(i).sge(0, initiatorBuffer, 0, 8));
                expect(peers.responder.next(), 0, WcStatus.SUCCESS, WcOpcode.RECV, 8);
                peers.responder.postReceive(responderBuffer, 0, 8, 0);
                peers.responder.post(responderSend.wrId(i).sge(0, responderBuffer, 0, 8));
                expect(peers.responder.next(), i, WcStatus.SUCCESS, WcOpcode.SEND, 8);
                WorkCompletion first = peers.initiator.next();
                WcOpcode firstOpcode = first.opcode();
                WorkCompletion second = peers.initiator.next();
                assertThat(EnumSet.of(firstOpcode, second.opcode())).isEqualTo(EnumSet.of(WcOpcode.SEND,
                        WcOpcode.RECV));
                peers.initiator.postReceive(initiatorBuffer, 0, 8, 0);
            }
        }
    }

    @Test
    void zeroLengthWritesAndReadsCheckNoStag() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 1);
            peers.connect(1, 1);
            MemoryRegion sink = peers.initiator.region(8, Access.LOCAL_WRITE);
            // RFC 5041 §5.2 and RFC 5040 §5.2.1: STag and TO of zero-length tagged messages are not checked
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(2).remote(0xDEAD_BE00, -1L).noSge();
            peers.initiator.post(request);
            request.opcode(WorkOpcode.RDMA_READ).wrId(3).remote(0xDEAD_BE00, -1L).sge(0, sink, 0, 0);
            peers.initiator.post(request);
            request.opcode(WorkOpcode.SEND).wrId(4).noSge();
            peers.initiator.post(request);
            expect(peers.initiator.next(), 2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0);
            expect(peers.initiator.next(), 3, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 0);
            expect(peers.initiator.next(), 4, WcStatus.SUCCESS, WcOpcode.SEND, 0);
            expect(peers.responder.next(), 1, WcStatus.SUCCESS, WcOpcode.RECV, 0);
        }
    }

    @Test
    void localInvalidateAndRebindRetireOldStags() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion backing = peers.responder.region(4096, Access.LOCAL_WRITE, Access.MW_BIND);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 1);
            peers.connect(1, 1);
            MemoryWindow window = peers.responder.pd.allocateWindow();
            request.bind(window, backing, 0, 4096, 0, EnumSet.of(Access.REMOTE_READ)).wrId(10);
            peers.responder.post(request);
            expect(peers.responder.next(), 10, WcStatus.SUCCESS, WcOpcode.BIND_MW, 0);
            int first = window.stag();
            request.opcode(WorkOpcode.LOCAL_INVALIDATE).wrId(11).localInvalidate(first);
            peers.responder.post(request);
            expect(peers.responder.next(), 11, WcStatus.SUCCESS, WcOpcode.LOCAL_INV, 0);
            assertThat(window.bound()).isFalse();
            request.bind(window, backing, 0, 4096, 0, EnumSet.of(Access.REMOTE_READ)).wrId(12);
            peers.responder.post(request);
            expect(peers.responder.next(), 12, WcStatus.SUCCESS, WcOpcode.BIND_MW, 0);
            assertThat(window.stag()).as("a new key with every bind").isNotEqualTo(first);
            assertThat(window.stag() >>> 8).isEqualTo(first >>> 8);

            MemoryRegion sink = peers.initiator.region(64, Access.LOCAL_WRITE);
            request.opcode(WorkOpcode.RDMA_READ).wrId(13).remote(window.stag(), 0).sge(0, sink, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 13, WcStatus.SUCCESS, WcOpcode.RDMA_READ, 64);
            request.opcode(WorkOpcode.RDMA_READ).wrId(14).remote(first, 0).sge(0, sink, 0, 64);
            peers.initiator.post(request);
            WorkCompletion stale = peers.initiator.next();
            assertThat(stale.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.REMOTE_PROTECTION_INVALID_STAG);
        }
    }

    /**
     * An application that streams: bursts of many small RDMA Writes, each burst posted as one list and ended by a
     * Send, one burst after another without waiting. Every Write lands where it was aimed and every Send in order,
     * whatever the transport holds back between bursts (MPA carries a burst over to the next cycle) and whoever
     * drives the loops.
     */
    @Test
    void burstsOfManySmallWritesPostedAsListsAllLand() throws Exception {
        int perBurst = 24;
        int bursts = 3;
        int size = 64;
        try (Peers peers = new Peers(transport, bursts * (perBurst + 1))) {
            MemoryRegion target = peers.responder.region((long) bursts * perBurst * size, Access.LOCAL_WRITE,
                    Access.REMOTE_WRITE);
            MemoryRegion inbox = peers.responder.region((long) bursts * size, Access.LOCAL_WRITE);
            for (int b = 0; b < bursts; b++) {
                peers.responder.postReceive(inbox, (long) b * size, size, 100 + b);
            }
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region((long) bursts * perBurst * size);
            for (int i = 0; i < bursts * perBurst; i++) {
                source.memory().asSlice((long) i * size, size).fill((byte) (i * 7 + 1));
            }
            for (int b = 0; b < bursts; b++) {
                SendWorkRequest[] list = new SendWorkRequest[perBurst + 1];
                for (int i = 0; i < perBurst; i++) {
                    long offset = (long) (b * perBurst + i) * size;
                    list[i] = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(b * 1000L + i)
                            .remote(target.rkey(), offset).sge(0, source, offset, size);
                }
                list[perBurst] = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(b * 1000L + perBurst)
                        .sge(0, source, (long) b * perBurst * size, size);
                assertThat(peers.initiator.qp.postSend(list, list.length)).isEqualTo(list.length);
            }
            for (int b = 0; b < bursts; b++) {
                for (int i = 0; i < perBurst; i++) {
                    expect(peers.initiator.next(), b * 1000L + i, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, size);
                }
                expect(peers.initiator.next(), b * 1000L + perBurst, WcStatus.SUCCESS, WcOpcode.SEND, size);
            }
            for (int b = 0; b < bursts; b++) {
                expect(peers.responder.next(), 100 + b, WcStatus.SUCCESS, WcOpcode.RECV, size);
            }
            assertThat(target.memory().mismatch(source.memory())).as("first octet that differs").isEqualTo(-1);
        }
    }

    /** A region the peer has written to, then deregistered: its rkey stops working at once, as an unknown one. */
    @Test
    void aRegionDeregisteredAfterThePeerWroteToItIsOutOfReach() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion target = peers.responder.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion inbox = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(inbox, 0, 64, 2);
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region(64);
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(1).remote(target.rkey(), 0).sge(0, source, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64);
            request.opcode(WorkOpcode.SEND).wrId(3).sge(0, source, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 3, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(peers.responder.next(), 2, WcStatus.SUCCESS, WcOpcode.RECV, 64); // the Write was placed before it
            target.deregister();
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(4).remote(target.rkey(), 0).sge(0, source, 0, 64);
            peers.initiator.post(request);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
        }
    }

    /** A region a Send went out of, then deregistered: its lkey stops working at once for the next post. */
    @Test
    void aRegionDeregisteredAfterASendWentOutOfItIsOutOfReach() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion inbox = peers.responder.region(128, Access.LOCAL_WRITE);
            peers.responder.postReceive(inbox, 0, 64, 1);
            peers.responder.postReceive(inbox, 64, 64, 2);
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region(64);
            request.opcode(WorkOpcode.SEND).wrId(3).sge(0, source, 0, 64);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 3, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            source.deregister();
            request.wrId(4);
            peers.initiator.post(request);
            expect(peers.initiator.next(), 4, WcStatus.LOC_PROT_ERR, WcOpcode.SEND, 0);
        }
    }

    @Test
    void aDeregisteredRegionIsOutOfReach() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion target = peers.responder.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            peers.connect(1, 1);
            int rkey = target.rkey();
            target.deregister();
            MemoryRegion source = peers.initiator.region(64);
            request.opcode(WorkOpcode.RDMA_WRITE).wrId(1).remote(rkey, 0).sge(0, source, 0, 64);
            peers.initiator.post(request);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(DdpError.TAGGED_INVALID_STAG);
        }
    }

    @Test
    void sendWithSolicitedEventAndInvalidateDoesBoth() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion backing = peers.responder.region(4096, Access.LOCAL_WRITE, Access.MW_BIND);
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(1, 1);
            MemoryWindow window = peers.responder.pd.allocateWindow();
            request.bind(window, backing, 0, 4096, 0, EnumSet.of(Access.REMOTE_WRITE)).wrId(2);
            peers.responder.post(request);
            expect(peers.responder.next(), 2, WcStatus.SUCCESS, WcOpcode.BIND_MW, 0);
            peers.responder.cq.requestNotification(true);
            MemoryRegion source = peers.initiator.region(64);
            fill(source, 64, 12);
            request.opcode(WorkOpcode.SEND_WITH_SE_AND_INVALIDATE).wrId(3).invalidate(window.stag())
                    .sge(0, source, 0, 64);
            peers.initiator.post(request);
            assertThat(peers.responder.cq.awaitNotification(Side.TIMEOUT)).isTrue();
            WorkCompletion received = peers.responder.next();
            expect(received, 1, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            assertThat(received.solicited()).isTrue();
            assertThat(received.invalidatedStag()).isEqualTo(window.stag());
            assertThat(window.bound()).isFalse();
            assertSame(source, sink, 64);
        }
    }

    @Test
    void disconnectFlushesReceivesOnBothSides() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            MemoryRegion other = peers.initiator.region(64, Access.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                peers.responder.postReceive(sink, 0, 64, 80 + i);
            }
            peers.initiator.postReceive(other, 0, 64, 90);
            peers.connect(1, 1);
            peers.initiator.qp.disconnect();
            peers.initiator.await(QpEvent.DISCONNECTED);
            peers.responder.await(QpEvent.DISCONNECTED);
            for (int i = 0; i < 3; i++) {
                expect(peers.responder.next(), 80 + i, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
            }
            expect(peers.initiator.next(), 90, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
            assertThat(peers.initiator.qp.postSend(request.opcode(WorkOpcode.SEND).noSge()))
                    .isEqualTo(PostStatus.NOT_RTS);
        }
    }

    @Test
    void abortFlushesOutstandingWorkOnBothSides() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.responder.postReceive(sink, 0, 64, 2);
            peers.connect(1, 1);
            peers.initiator.qp.modify(QpState.ERROR);
            // over TCP the peer sees the connection reset; over SCTP the stream's session ends with a Session
            // Terminate (RFC 5043 has no per-stream abort): either way its work is flushed
            expect(peers.responder.next(), 1, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
            expect(peers.responder.next(), 2, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
            assertThat(peers.responder.awaitAny(QpEvent.CONNECTION_LOST, QpEvent.DISCONNECTED)).isNotNull();
            peers.initiator.awaitState(QpState.ERROR);
            assertThat(peers.responder.qp.state()).isIn(QpState.ERROR, QpState.IDLE);
        }
    }

    /**
     * A queue pair aborted and reset to IDLE connects again and sends: its send queue is the new engine's alone (the
     * engine it was reset from flushes nothing more), and a post between the abort and the reset is refused.
     */
    @Test
    void aQueuePairResetAfterAnAbortConnectsAgainAndSends() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            peers.connect(1, 1);
            QueuePair first = peers.initiator.qp;
            first.modify(QpState.ERROR);
            peers.initiator.awaitState(QpState.ERROR);
            peers.responder.awaitAny(QpEvent.CONNECTION_LOST, QpEvent.DISCONNECTED);
            assertThat(first.postSend(request.opcode(WorkOpcode.SEND).noSge())).isEqualTo(PostStatus.NOT_RTS);
            first.modify(QpState.IDLE);
            peers.listener.close();
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            peers.responder.createQueuePair(8, null);
            peers.responder.postReceive(sink, 0, 64, 21);
            peers.connect(1, 1);
            assertThat(peers.initiator.qp).isSameAs(first);
            MemoryRegion source = peers.initiator.region(64);
            fill(source, 64, 7);
            for (int i = 0; i < 3; i++) { // the first a Send, then Writes: each takes a slot the reset left free
                request.opcode(i == 0 ? WorkOpcode.SEND : WorkOpcode.RDMA_WRITE).wrId(20 + i);
                sge(request, source, 64);
                if (i > 0) {
                    request.remote(sink.rkey(), sink.iova());
                }
                peers.initiator.post(request);
            }
            expect(peers.initiator.next(), 20, WcStatus.SUCCESS, WcOpcode.SEND, 64);
            expect(peers.initiator.next(), 21, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64);
            expect(peers.initiator.next(), 22, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 64);
            expect(peers.responder.next(), 21, WcStatus.SUCCESS, WcOpcode.RECV, 64);
            assertSame(source, sink, 64);
        }
    }

    /** Which rights a region has, in the access matrix. */
    enum Rights {
        NONE, LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE, REMOTE_READ_WRITE;

        Access[] access() {
            return switch (this) {
                case NONE -> new Access[0];
                case LOCAL_WRITE -> new Access[] {Access.LOCAL_WRITE};
                case REMOTE_READ -> new Access[] {Access.REMOTE_READ};
                case REMOTE_WRITE -> new Access[] {Access.LOCAL_WRITE, Access.REMOTE_WRITE};
                case REMOTE_READ_WRITE -> new Access[] {Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE};
            };
        }
    }

    /** Where the access lands relative to the region, in the access matrix. */
    enum Range {
        INSIDE, LAST_OCTET, ONE_PAST_THE_END, BEFORE_THE_START, WRAPPING
    }

    /** Every access right x every remote operation x in and out of bounds (RFC 5042 §5). */
    @ParameterizedTest(name = "{0} {1} {2}")
    @org.junit.jupiter.params.provider.MethodSource("accessMatrix")
    void accessMatrix(Rights rights, WorkOpcode operation, Range range) throws Exception {
        long base = 0x1000; // the region starts at TO 0x1000
        int size = 4096;
        long to = switch (range) {
            case INSIDE -> base + 100;
            case LAST_OCTET -> base + size - 64;
            case ONE_PAST_THE_END -> base + size - 63;
            case BEFORE_THE_START -> base - 1;
            case WRAPPING -> -32L;
        };
        boolean write = operation == WorkOpcode.RDMA_WRITE;
        boolean permitted = write ? rights == Rights.REMOTE_WRITE || rights == Rights.REMOTE_READ_WRITE
                : rights == Rights.REMOTE_READ || rights == Rights.REMOTE_READ_WRITE;
        boolean inBounds = range == Range.INSIDE || range == Range.LAST_OCTET;
        try (Peers peers = new Peers(transport, 4)) {
            MemorySegment memory = java.lang.foreign.Arena.ofAuto().allocate(size);
            java.util.EnumSet<Access> set = java.util.EnumSet.noneOf(Access.class);
            set.addAll(java.util.List.of(rights.access()));
            MemoryRegion target = peers.responder.pd.register(memory, base, set);
            fill(target, size, 9);
            byte[] before = memory.toArray(ValueLayout.JAVA_BYTE);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 1);
            peers.connect(1, 1);
            MemoryRegion local = peers.initiator.region(64, Access.LOCAL_WRITE);
            fill(local, 64, 10);
            request.opcode(operation).wrId(2).remote(target.rkey(), to).sge(0, local, 0, 64);
            peers.initiator.post(request);

            if (permitted && inBounds) {
                expect(peers.initiator.next(), 2, WcStatus.SUCCESS, write ? WcOpcode.RDMA_WRITE : WcOpcode.RDMA_READ,
                        64);
                request.opcode(WorkOpcode.SEND).wrId(3).noSge(); // arrives after the Write: it is placed by then
                peers.initiator.post(request);
                expect(peers.initiator.next(), 3, WcStatus.SUCCESS, WcOpcode.SEND, 0);
                expect(peers.responder.next(), 1, WcStatus.SUCCESS, WcOpcode.RECV, 0);
                long offset = to - base;
                MemorySegment written = write ? memory.asSlice(offset, 64) : local.memory().asSlice(0, 64);
                MemorySegment from = write ? local.memory().asSlice(0, 64) : memory.asSlice(offset, 64);
                assertThat(written.mismatch(from)).isEqualTo(-1);
                return;
            }
            TerminateCause expected = expectedCause(write, permitted, range);
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate().cause()).contains(expected);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause()).contains(expected);
            // a Write completed when the LLP took it; a Read completes with the error the Terminate names
            expect(peers.initiator.next(), 2, write ? WcStatus.SUCCESS : WcStatus.REM_ACCESS_ERR,
                    write ? WcOpcode.RDMA_WRITE : WcOpcode.RDMA_READ, 64);
            expect(peers.responder.next(), 1, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
            assertThat(memory.toArray(ValueLayout.JAVA_BYTE)).as("the region is untouched").isEqualTo(before);
        }
    }

    private static TerminateCause expectedCause(boolean write, boolean permitted, Range range) {
        if (!permitted) {
            return RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS;
        }
        if (range == Range.WRAPPING) {
            return write ? DdpError.TAGGED_TO_WRAP : RdmapError.REMOTE_PROTECTION_TO_WRAP;
        }
        return write ? DdpError.TAGGED_BASE_OR_BOUNDS : RdmapError.REMOTE_PROTECTION_BASE_OR_BOUNDS;
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> accessMatrix() {
        java.util.stream.Stream.Builder<org.junit.jupiter.params.provider.Arguments> cases =
                java.util.stream.Stream.builder();
        for (Rights rights : Rights.values()) {
            for (WorkOpcode operation : new WorkOpcode[] {WorkOpcode.RDMA_WRITE, WorkOpcode.RDMA_READ}) {
                for (Range range : Range.values()) {
                    cases.add(org.junit.jupiter.params.provider.Arguments.of(rights, operation, range));
                }
            }
        }
        return cases.build();
    }

    static void sge(SendWorkRequest request, MemoryRegion region, int size) {
        if (size == 0) {
            request.noSge();
        } else {
            request.sge(0, region, 0, size);
        }
    }

    static void fill(MemoryRegion region, long size, long seed) {
        Random random = new Random(seed);
        byte[] chunk = new byte[8192];
        for (long at = 0; at < size; at += chunk.length) {
            random.nextBytes(chunk);
            int count = (int) Math.min(chunk.length, size - at);
            MemorySegment.copy(MemorySegment.ofArray(chunk), 0, region.memory(), at, count);
        }
    }

    static void assertSame(MemoryRegion expected, MemoryRegion actual, long size) {
        assertThat(actual.memory().asSlice(0, size).mismatch(expected.memory().asSlice(0, size))).isEqualTo(-1);
    }

    static void expect(WorkCompletion completion, long wrId, WcStatus status, WcOpcode opcode, long byteLength) {
        assertThat(completion.wrId()).as("%s", completion).isEqualTo(wrId);
        assertThat(completion.status()).as("%s", completion).isEqualTo(status);
        assertThat(completion.opcode()).as("%s", completion).isEqualTo(opcode);
        if (status == WcStatus.SUCCESS) {
            assertThat(completion.byteLength()).as("%s", completion).isEqualTo(byteLength);
        }
    }
}
