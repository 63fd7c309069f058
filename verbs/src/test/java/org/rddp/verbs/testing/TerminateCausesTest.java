package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.rddp.error.DdpError;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.WorkCompletion;

/**
 * Every Terminate cause the engine can emit, driven by crafted segments injected into the in-memory LLP, with the
 * layer, type, code and copied headers checked on both sides (RFC 5040 §4.8, §7.1; RFC 5041 §7.2), through the verbs:
 * the queue pairs' own memory checks (protection domains, access rights, bounds, windows) behind the engine, the
 * Terminate counters and the engine's log, with each queue pair on its own loop thread. The engine's own tests of its
 * causes, local errors, LLP errors and the in-memory LLP's faults (reordered placement, back-pressure, a lost
 * connection, a corrupted segment) drive it directly: {@code org.rddp.engine.EngineTerminateTest} and
 * {@code EngineTransferTest} in {@code rdmap}.
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
