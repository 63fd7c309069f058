package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.EnumSet;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.error.DdpError;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.error.MpaError;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;

/**
 * Every Terminate cause the engine can emit, driven by crafted segments injected into the in-memory LLP, with
 * the layer, type, code and copied headers checked on both sides (RFC 5040 §4.8, §7.1; RFC 5041 §7.2), and the
 * faults of the in-memory LLP: reordered placement, back-pressure, a lost connection, a corrupted segment.
 */
class TerminateCausesTest {
    private static final int SEND = RdmapControl.encode(RdmapOpcode.SEND);
    private static final int WRITE = RdmapControl.encode(RdmapOpcode.RDMA_WRITE);
    private static final int READ = RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST);

    private InMemoryTransport transport;

    /** The responder's memory, for building segments that aim at it. */
    record Target(MemoryRegion writable, MemoryRegion readable, MemoryRegion local, MemoryRegion foreign) {
    }

    /** One crafted input and the Terminate it must produce. */
    record Case(String name, Function<Target, byte[][]> segments, TerminateCause cause, boolean ddpHeader,
            boolean rdmaHeader, boolean postReceive) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeEach
    void setUp() {
        transport = new InMemoryTransport(1024, 32);
    }

    @AfterEach
    void tearDown() {
        transport.close();
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("DDP version on a tagged segment", t -> one(tagged(0xC2, WRITE, t.writable().rkey(), 0, 8)),
                        DdpError.TAGGED_INVALID_VERSION, true, false, true),
                new Case("DDP version on an untagged segment", t -> one(untagged(0x40, SEND, 0, 0, 1, 0, 8)),
                        DdpError.UNTAGGED_INVALID_VERSION, true, false, true),
                new Case("RDMAP version", t -> one(untagged(0x41, 0x83, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_INVALID_VERSION, true, false, true),
                new Case("unassigned opcode 0x8", t -> one(untagged(0x41, 0x48, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, false, true),
                new Case("a Write in an untagged segment", t -> one(untagged(0x41, WRITE, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, false, true),
                new Case("a Send on QN 1", t -> one(untagged(0x41, SEND, 0, 1, 1, 0, 8)),
                        DdpError.UNTAGGED_INVALID_QN, true, false, true),
                new Case("a Send with MSN 2 first", t -> one(untagged(0x41, SEND, 0, 0, 2, 0, 8)),
                        DdpError.UNTAGGED_MSN_RANGE, true, false, true),
                new Case("a Send with no receive posted", t -> one(untagged(0x41, SEND, 0, 0, 1, 0, 8)),
                        DdpError.UNTAGGED_NO_BUFFER, true, false, false),
                new Case("a Send starting at MO 5", t -> one(untagged(0x41, SEND, 0, 0, 1, 5, 8)),
                        DdpError.UNTAGGED_INVALID_MO, true, false, true),
                new Case("a Send longer than the receive", t -> one(untagged(0x41, SEND, 0, 0, 1, 0, 65)),
                        DdpError.UNTAGGED_MESSAGE_TOO_LONG, true, false, true),
                new Case("a Write to an unknown STag", t -> one(tagged(0xC1, WRITE, 0x7777_7700, 0, 8)),
                        DdpError.TAGGED_INVALID_STAG, true, false, true),
                new Case("a Write past the end", t -> one(tagged(0xC1, WRITE, t.writable().rkey(), 4090, 8)),
                        DdpError.TAGGED_BASE_OR_BOUNDS, true, false, true),
                new Case("a Write to another PD", t -> one(tagged(0xC1, WRITE, t.foreign().rkey(), 0, 8)),
                        DdpError.TAGGED_STAG_NOT_ASSOCIATED, true, false, true),
                new Case("a Write whose TO wraps", t -> one(tagged(0xC1, WRITE, t.writable().rkey(), -4, 8)),
                        DdpError.TAGGED_TO_WRAP, true, false, true),
                new Case("a Write without remote write", t -> one(tagged(0xC1, WRITE, t.readable().rkey(), 0, 8)),
                        RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS, true, false, true),
                new Case("a Read of an unknown STag", t -> one(read(1, 0x7777_7700, 0, 16)),
                        RdmapError.REMOTE_PROTECTION_INVALID_STAG, true, true, true),
                new Case("a Read past the end", t -> one(read(1, t.readable().rkey(), 4000, 100)),
                        RdmapError.REMOTE_PROTECTION_BASE_OR_BOUNDS, true, true, true),
                new Case("a Read without remote read", t -> one(read(1, t.writable().rkey(), 0, 16)),
                        RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS, true, true, true),
                new Case("a Read of another PD", t -> one(read(1, t.foreign().rkey(), 0, 16)),
                        RdmapError.REMOTE_PROTECTION_STAG_NOT_ASSOCIATED, true, true, true),
                new Case("a Read whose TO wraps", t -> one(read(1, t.readable().rkey(), -8, 16)),
                        RdmapError.REMOTE_PROTECTION_TO_WRAP, true, true, true),
                new Case("a Read Request cut short", t -> one(Arrays.copyOf(read(1, t.readable().rkey(), 0, 8), 45)),
                        RdmapError.REMOTE_OPERATION_UNSPECIFIED, true, false, true),
                new Case("a Read Request too long", t -> one(Arrays.copyOf(read(1, t.readable().rkey(), 0, 8), 47)),
                        DdpError.UNTAGGED_MESSAGE_TOO_LONG, true, false, true),
                new Case("a Read Request at MO 4", t -> one(withMo(read(1, t.readable().rkey(), 0, 8), 4)),
                        DdpError.UNTAGGED_INVALID_MO, true, false, true),
                new Case("a Read Request with MSN 3 first", t -> one(read(3, t.readable().rkey(), 0, 8)),
                        DdpError.UNTAGGED_MSN_RANGE, true, false, true),
                new Case("Read Requests beyond IRD", t -> new byte[][] {read(1, t.readable().rkey(), 0, 8),
                    read(2, t.readable().rkey(), 0, 8)}, DdpError.UNTAGGED_NO_BUFFER, true, false, true),
                new Case("a Read Response nobody asked for", t -> one(tagged(0xC1, 0x42, t.local().rkey(), 0, 8)),
                        RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, false, true),
                new Case("Send with Invalidate of a region", t -> one(untagged(0x41,
                        RdmapControl.encode(RdmapOpcode.SEND_WITH_INVALIDATE), t.writable().rkey(), 0, 1, 0, 0)),
                        RdmapError.REMOTE_OPERATION_CANNOT_INVALIDATE, true, false, true),
                new Case("Send with Invalidate of an unknown STag", t -> one(untagged(0x41,
                        RdmapControl.encode(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE), 0x5555_5500, 0, 1, 0, 0)),
                        RdmapError.REMOTE_PROTECTION_CANNOT_INVALIDATE, true, false, true),
                new Case("a segment of 5 octets", t -> one(new byte[] {0x41, 0x43, 0, 0, 0}),
                        RdmapError.REMOTE_OPERATION_UNSPECIFIED, false, false, true),
                new Case("the first error wins", t -> new byte[][] {tagged(0xC1, WRITE, 0x7777_7700, 0, 8),
                    untagged(0x41, 0x4E, 0, 0, 1, 0, 8)}, DdpError.TAGGED_INVALID_STAG, true, false, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void craftedSegmentsGetTheRfcsTerminate(Case crafted) throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            Target target = new Target(
                    peers.responder.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE),
                    peers.responder.region(4096, Access.REMOTE_READ),
                    peers.responder.region(4096, Access.LOCAL_WRITE),
                    peers.responder.device.allocateProtectionDomain().register(MemorySegment.ofArray(new byte[4096]),
                            EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));
            if (crafted.postReceive()) {
                peers.responder.postReceive(target.local(), 0, 64, 1);
            }
            peers.connect(1, 1);
            byte[][] segments = crafted.segments().apply(target);
            InMemoryLlp responderEnd = transport.initiator().lastResponderEnd();
            responderEnd.stall(); // every crafted segment arrives before the engine looks at the first
            long sentBefore = Counters.process().get(Counter.TERMINATES_SENT);
            long receivedBefore = Counters.process().get(Counter.TERMINATES_RECEIVED);
            for (byte[] segment : segments) {
                transport.initiator().lastInitiatorEnd().inject(segment);
            }
            transport.initiator().loop().execute(responderEnd::resume);

            TerminateHeader sent = peers.responder.await(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent.cause()).contains(crafted.cause());
            assertThat(Counters.process().get(Counter.TERMINATES_SENT)).as("counted").isEqualTo(sentBefore + 1);
            // the offending segment: the last one injected, unless an earlier error must win
            byte[] first = crafted.name().startsWith("the first") ? segments[0] : segments[segments.length - 1];
            if (crafted.ddpHeader()) {
                int headerLength = (first[0] & DdpSegment.TAGGED_FLAG) != 0 ? 14 : 18;
                assertThat(sent.segmentLengthValid()).isTrue();
                assertThat(sent.ddpSegmentLength()).isEqualTo(first.length - headerLength);
                assertThat(sent.terminatedDdpHeader().toByteArray()).isEqualTo(Arrays.copyOf(first, headerLength));
            } else {
                assertThat(sent.terminatedDdpHeader()).isNull();
            }
            if (crafted.rdmaHeader()) {
                assertThat(sent.terminatedRdmaHeader())
                        .isEqualTo(ReadRequestHeader.decode(MemorySegment.ofArray(first), 18));
            } else {
                assertThat(sent.terminatedRdmaHeader()).isNull();
            }
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate()).isEqualTo(sent);
            assertThat(Counters.process().get(Counter.TERMINATES_RECEIVED)).as("counted").isEqualTo(receivedBefore + 1);
            peers.responder.awaitState(QpState.ERROR);
            peers.initiator.awaitState(QpState.ERROR);
            if (crafted.postReceive()) {
                WorkCompletion receive = peers.responder.next();
                assertThat(receive.wrId()).isEqualTo(1);
                assertThat(receive.status()).isIn(WcStatus.WR_FLUSH_ERR, WcStatus.LOC_LEN_ERR);
            }
            assertThat(peers.initiator.events).noneMatch(event -> event.event() == QpEvent.TERMINATE_RECEIVED);
        }
    }

    @Test
    void aReceivedTerminateIsReportedAndNotAnswered() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(1, 1);
            TerminateHeader cause = TerminateHeader.of(DdpError.TAGGED_BASE_OR_BOUNDS, 8,
                    org.rddp.ddp.DdpTaggedHeader.of(true, WRITE, 0x100, 0));
            byte[] terminate = new byte[18 + cause.length()];
            new DdpSegment().bind(MemorySegment.ofArray(terminate), 0, terminate.length)
                    .writeUntagged(true, RdmapControl.encode(RdmapOpcode.TERMINATE), 0, 2, 1, 0);
            cause.encodeTo(MemorySegment.ofArray(terminate), 18);
            transport.initiator().lastInitiatorEnd().inject(terminate);

            Side.Event received = peers.responder.await(QpEvent.TERMINATE_RECEIVED);
            assertThat(received.terminate()).isEqualTo(cause);
            assertThat(received.detail()).containsIgnoringCase("base or bounds");
            peers.responder.awaitState(QpState.ERROR);
            expectFlushed(peers.responder.next(), 1);
            assertThat(peers.responder.events).noneMatch(event -> event.event() == QpEvent.TERMINATE_SENT);
        }
    }

    @Test
    void anLlpErrorBecomesATerminateWithoutHeaders() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            peers.connect(1, 1);
            transport.initiator().lastResponderEnd().reportLlpError(MpaError.CRC_ERROR, "bad CRC");
            TerminateHeader sent = peers.responder.await(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent).isEqualTo(TerminateHeader.of(MpaError.CRC_ERROR));
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate()).isEqualTo(sent);
        }
    }

    @Test
    void aBadLocalReceiveIsALocalCatastrophe() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            peers.responder.postReceiveRaw(0x1234_5600, 0, 64, 1);
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region(10);
            SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(2).sge(0, source, 0, 10);
            peers.initiator.post(send);
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            WorkCompletion receive = peers.responder.next();
            assertThat(receive.status()).isEqualTo(WcStatus.LOC_PROT_ERR);
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
        }
    }

    @Test
    void aBadLocalKeyFailsItsRequestAndTerminates() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(1, 1);
            SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(5).sge(0, 0x4242_4200, 0, 8);
            peers.initiator.post(send);
            SendWorkRequest next = new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(6).noSge();
            int status = peers.initiator.qp.postSend(next);
            WorkCompletion failed = peers.initiator.next();
            assertThat(failed.wrId()).isEqualTo(5);
            assertThat(failed.status()).isEqualTo(WcStatus.LOC_PROT_ERR);
            if (status == org.rddp.verbs.PostStatus.OK) {
                expectFlushed(peers.initiator.next(), 6);
            }
            assertThat(peers.initiator.await(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(peers.responder.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            expectFlushed(peers.responder.next(), 1);
        }
    }

    @Test
    void aReadWithTwoSinkElementsIsALocalOperationError() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion source = peers.responder.region(64, Access.REMOTE_READ);
            peers.connect(1, 1);
            MemoryRegion sink = peers.initiator.region(64, Access.LOCAL_WRITE);
            SendWorkRequest read = new SendWorkRequest(2).opcode(WorkOpcode.RDMA_READ).wrId(9)
                    .remote(source.rkey(), 0).sge(0, sink, 0, 32).sge(1, sink, 32, 32);
            peers.initiator.post(read);
            WorkCompletion failed = peers.initiator.next();
            assertThat(failed.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        }
    }

    @Test
    void taggedPayloadPlacedOutOfOrderIsDeliveredInOrder() throws Exception {
        try (Peers peers = new Peers(transport, 64)) {
            int size = 200_000;
            MemoryRegion sink = peers.responder.region(size, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            MemoryRegion readable = peers.responder.region(size, Access.REMOTE_READ);
            ScenarioSuite.fill(readable, size, 77);
            MemoryRegion doorbell = peers.responder.region(8, Access.LOCAL_WRITE);
            peers.responder.postReceive(doorbell, 0, 8, 1);
            peers.connect(4, 4);
            transport.initiator().lastResponderEnd().reorderTagged(true);
            transport.initiator().lastInitiatorEnd().reorderTagged(true);
            MemoryRegion source = peers.initiator.region(size);
            ScenarioSuite.fill(source, size, 78);
            MemoryRegion readSink = peers.initiator.region(size, Access.LOCAL_WRITE);
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(1)
                    .remote(sink.rkey(), 0).sge(0, source, 0, size));
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).wrId(2)
                    .remote(readable.rkey(), 0).sge(0, readSink, 0, size));
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(3).noSge());
            assertThat(peers.initiator.next().wrId()).isEqualTo(1);
            WorkCompletion read = peers.initiator.next();
            assertThat(read.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(read.byteLength()).isEqualTo(size);
            assertThat(peers.initiator.next().wrId()).isEqualTo(3);
            assertThat(peers.responder.next().status()).isEqualTo(WcStatus.SUCCESS);
            ScenarioSuite.assertSame(source, sink, size);
            ScenarioSuite.assertSame(readable, readSink, size);
        }
    }

    /**
     * Tagged payload that arrives ahead of its turn is placed by the LLP (RFC 5043 §10), outside the engine: when the
     * region's memory is gone by then (its arena closed under a live registration), the early placement declines,
     * and the segment, delivered in its turn, fails in the engine as any placement into such a region does — a
     * Terminate and an error to both users, not an exception left at the loop and a connection that stalls.
     */
    @Test
    void taggedPayloadPlacedEarlyIntoMemoryThatIsGoneIsALocalCatastrophe() throws Exception {
        try (Peers peers = new Peers(transport, 64)) {
            int size = 20_000;
            Arena arena = Arena.ofShared();
            MemoryRegion sink = peers.responder.pd.register(arena.allocate(size, 8),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            peers.connect(1, 1);
            transport.initiator().lastResponderEnd().reorderTagged(true);
            arena.close();
            MemoryRegion source = peers.initiator.region(size);
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(1)
                    .remote(sink.rkey(), 0).sge(0, source, 0, size));
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            assertThat(peers.initiator.await(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(transport.initiator().lastResponderEnd().loop().failure()).isNull();
        }
    }

    @Test
    void aStalledReceiverBackPressuresTheSenderAndNothingIsLost() throws Exception {
        try (Peers peers = new Peers(transport, 256)) {
            MemoryRegion sink = peers.responder.region(200 * 100L, Access.LOCAL_WRITE);
            for (int i = 0; i < 200; i++) {
                peers.responder.postReceive(sink, i * 100L, 100, i);
            }
            peers.connect(1, 1);
            InMemoryLlp responderEnd = transport.initiator().lastResponderEnd();
            responderEnd.stall();
            MemoryRegion source = peers.initiator.region(200 * 100L);
            ScenarioSuite.fill(source, 200 * 100L, 5);
            for (int i = 0; i < 200; i++) {
                peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(i).sge(0, source, i * 100L,
                        100));
            }
            for (int i = 0; i < 32; i++) { // exactly the 32 segments the ring holds go out; then the sender waits
                assertThat(peers.initiator.next().wrId()).isEqualTo(i);
            }
            peers.initiator.assertNoCompletionOnceQuiet(transport.initiator().loop());
            responderEnd.resume();
            for (int i = 32; i < 200; i++) {
                assertThat(peers.initiator.next().wrId()).isEqualTo(i);
            }
            for (int i = 0; i < 200; i++) {
                WorkCompletion received = peers.responder.next();
                assertThat(received.wrId()).isEqualTo(i);
                assertThat(received.byteLength()).isEqualTo(100);
            }
            ScenarioSuite.assertSame(source, sink, 200 * 100L);
        }
    }

    @Test
    void aLostConnectionFlushesEverythingOnBothSides() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(1, 1);
            MemoryRegion readSink = peers.initiator.region(64, Access.LOCAL_WRITE);
            MemoryRegion readable = peers.responder.region(64, Access.REMOTE_READ);
            transport.initiator().lastResponderEnd().stall(); // the Read stays unanswered
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).wrId(2)
                    .remote(readable.rkey(), 0).sge(0, readSink, 0, 64));
            transport.initiator().lastInitiatorEnd().dropConnection();
            peers.initiator.await(QpEvent.CONNECTION_LOST);
            peers.responder.await(QpEvent.CONNECTION_LOST);
            expectFlushed(peers.initiator.next(), 2);
            expectFlushed(peers.responder.next(), 1);
            peers.initiator.awaitState(QpState.ERROR);
            peers.responder.awaitState(QpState.ERROR);
        }
    }

    @Test
    void aCorruptedSegmentIsCaughtByItsHeader() throws Exception {
        try (Peers peers = new Peers(transport, 8)) {
            MemoryRegion sink = peers.responder.region(64, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, 64, 1);
            peers.connect(1, 1);
            transport.initiator().lastInitiatorEnd().corruptNextSent(segment ->
                    segment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0x42)); // DV 2
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(1).noSge());
            assertThat(peers.responder.await(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.UNTAGGED_INVALID_VERSION);
            expectFlushed(peers.responder.next(), 1);
        }
    }

    private static void expectFlushed(WorkCompletion completion, long wrId) {
        assertThat(completion.wrId()).as("%s", completion).isEqualTo(wrId);
        assertThat(completion.status()).as("%s", completion).isEqualTo(WcStatus.WR_FLUSH_ERR);
    }

    private static byte[][] one(byte[] segment) {
        return new byte[][] {segment};
    }

    static byte[] tagged(int control, int rdmap, int stag, long to, int payload) {
        byte[] octets = new byte[14 + payload];
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length).writeTagged(true, rdmap, stag, to);
        octets[0] = (byte) control;
        return octets;
    }

    static byte[] untagged(int control, int rdmap, int invalidate, int qn, int msn, int mo, int payload) {
        byte[] octets = new byte[18 + payload];
        new DdpSegment().bind(MemorySegment.ofArray(octets), 0, octets.length)
                .writeUntagged(true, rdmap, invalidate, qn, msn, mo);
        octets[0] = (byte) control;
        return octets;
    }

    static byte[] read(int msn, int srcStag, long srcTo, int size) {
        byte[] octets = untagged(0x41, READ, 0, 1, msn, 0, ReadRequestHeader.LENGTH);
        new ReadRequestHeader(0x99_0000, 0x40, size, srcStag, srcTo).encodeTo(MemorySegment.ofArray(octets), 18);
        return octets;
    }

    static byte[] withMo(byte[] segment, int mo) {
        MemorySegment.ofArray(segment).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                java.nio.ByteOrder.BIG_ENDIAN), DdpSegment.MO_OFFSET, mo);
        return segment;
    }

    /** Terminates sent and received are logged at DEBUG ({@code org.rddp.engine}), each with its cause. */
    @Test
    void terminatesSentAndReceivedAreLoggedAtDebug() throws Exception {
        List<String> logged;
        try (LogCapture log = LogCapture.of("org.rddp.engine"); Peers peers = new Peers(transport, 8)) {
            peers.responder.postReceive(peers.responder.region(4096, Access.LOCAL_WRITE), 0, 64, 1);
            peers.connect(1, 1);
            transport.initiator().lastInitiatorEnd().inject(untagged(0x40, SEND, 0, 0, 1, 0, 8));
            peers.responder.await(QpEvent.TERMINATE_SENT);
            peers.initiator.await(QpEvent.TERMINATE_RECEIVED);
            logged = log.lines();
        }
        assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("FINE ").contains("Terminate sent")
                .contains(DdpError.UNTAGGED_INVALID_VERSION.description()));
        assertThat(logged).anySatisfy(line -> assertThat(line).contains("Terminate received"));
    }
}
