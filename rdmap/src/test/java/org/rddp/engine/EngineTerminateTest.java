package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.rddp.engine.EnginePair.emptySend;
import static org.rddp.engine.EnginePair.nonZero;
import static org.rddp.engine.EnginePair.read;
import static org.rddp.engine.EnginePair.send;
import static org.rddp.engine.EnginePair.write;
import static org.rddp.engine.Segments.READ_RESPONSE;
import static org.rddp.engine.Segments.SEND;
import static org.rddp.engine.Segments.WRITE;
import static org.rddp.engine.Segments.tagged;
import static org.rddp.engine.Segments.untagged;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;
import static org.rddp.engine.StagResolver.REMOTE_READ;
import static org.rddp.engine.StagResolver.REMOTE_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rddp.ddp.DdpSegment;
import org.rddp.ddp.DdpTaggedHeader;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.error.DdpError;
import org.rddp.error.MpaError;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;

/**
 * How the engine ends a stream (RFC 5040 §5.4, §7.1; RFC 5041 §7): every Terminate cause its receive path can emit,
 * from crafted segments a peer's LLP end injects, with the Layer, EType and Error Code, the copied DDP and RDMA Read
 * Request headers and the DDP segment length checked against the RFCs' tables; what both sides then report (the
 * Terminate heard, never answered, both queue pairs in ERROR, outstanding work flushed in order, nothing placed);
 * and the local errors, LLP errors and faults of the in-memory LLP that end a stream.
 */
class EngineTerminateTest {
    /** The responder's memory, for building segments that aim at it. */
    record Target(TestMemory.Tagged writable, TestMemory.Tagged readable, TestMemory.Tagged local,
            TestMemory.Tagged foreign) {
        static Target in(TestMemory memory) {
            return new Target(memory.region(4096, LOCAL_WRITE | REMOTE_WRITE), memory.region(4096, REMOTE_READ),
                    memory.region(4096, LOCAL_WRITE), memory.foreign(MemorySegment.ofArray(new byte[4096])));
        }
    }

    /**
     * One crafted input and the Terminate it must produce: its cause, its RFC 6580 registry value (Layer in bits
     * 12-15, EType in 8-11, Error Code in 0-7, written out from the RFCs' tables), whether it copies the DDP and the
     * Read Request headers, and what becomes of the one receive posted (null: none posted).
     */
    record Case(String name, Function<Target, byte[][]> segments, TerminateCause cause, int registry,
            boolean ddpHeader, boolean rdmaHeader, WcStatus receive) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        WcStatus flushed = WcStatus.WR_FLUSH_ERR;
        return Stream.of(
                new Case("DDP version on a tagged segment", t -> one(tagged(0xC2, WRITE, t.writable().stag(), 0, 8)),
                        DdpError.TAGGED_INVALID_VERSION, 0x1104, true, false, flushed),
                new Case("DDP version on an untagged segment", t -> one(untagged(0x40, SEND, 0, 0, 1, 0, 8)),
                        DdpError.UNTAGGED_INVALID_VERSION, 0x1206, true, false, flushed),
                new Case("RDMAP version", t -> one(untagged(0x41, 0x83, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_INVALID_VERSION, 0x0205, true, false, flushed),
                new Case("unassigned opcode 0x8", t -> one(untagged(0x41, 0x48, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, 0x0206, true, false, flushed),
                new Case("a Write in an untagged segment", t -> one(untagged(0x41, WRITE, 0, 0, 1, 0, 8)),
                        RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, 0x0206, true, false, flushed),
                new Case("a Send on QN 1", t -> one(untagged(0x41, SEND, 0, 1, 1, 0, 8)),
                        DdpError.UNTAGGED_INVALID_QN, 0x1201, true, false, flushed),
                new Case("a Send with MSN 2 first", t -> one(untagged(0x41, SEND, 0, 0, 2, 0, 8)),
                        DdpError.UNTAGGED_MSN_RANGE, 0x1203, true, false, flushed),
                new Case("a Send with no receive posted", t -> one(untagged(0x41, SEND, 0, 0, 1, 0, 8)),
                        DdpError.UNTAGGED_NO_BUFFER, 0x1202, true, false, null),
                new Case("a Send starting at MO 5", t -> one(untagged(0x41, SEND, 0, 0, 1, 5, 8)),
                        DdpError.UNTAGGED_INVALID_MO, 0x1204, true, false, flushed),
                new Case("a Send longer than the receive", t -> one(untagged(0x41, SEND, 0, 0, 1, 0, 65)),
                        DdpError.UNTAGGED_MESSAGE_TOO_LONG, 0x1205, true, false, WcStatus.LOC_LEN_ERR),
                new Case("a Write to an unknown STag", t -> one(tagged(0xC1, WRITE, 0x7777_7700, 0, 8)),
                        DdpError.TAGGED_INVALID_STAG, 0x1100, true, false, flushed),
                new Case("a Write past the end", t -> one(tagged(0xC1, WRITE, t.writable().stag(), 4090, 8)),
                        DdpError.TAGGED_BASE_OR_BOUNDS, 0x1101, true, false, flushed),
                new Case("a Write to another PD", t -> one(tagged(0xC1, WRITE, t.foreign().stag(), 0, 8)),
                        DdpError.TAGGED_STAG_NOT_ASSOCIATED, 0x1102, true, false, flushed),
                new Case("a Write whose TO wraps", t -> one(tagged(0xC1, WRITE, t.writable().stag(), -4, 8)),
                        DdpError.TAGGED_TO_WRAP, 0x1103, true, false, flushed),
                new Case("a Write without remote write", t -> one(tagged(0xC1, WRITE, t.readable().stag(), 0, 8)),
                        RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS, 0x0102, true, false, flushed),
                new Case("a Write through an lkey only", t -> one(tagged(0xC1, WRITE, t.local().stag(), 0, 8)),
                        RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS, 0x0102, true, false, flushed),
                new Case("a Read of an unknown STag", t -> one(Segments.read(1, 0x7777_7700, 0, 16)),
                        RdmapError.REMOTE_PROTECTION_INVALID_STAG, 0x0100, true, true, flushed),
                new Case("a Read past the end", t -> one(Segments.read(1, t.readable().stag(), 4000, 100)),
                        RdmapError.REMOTE_PROTECTION_BASE_OR_BOUNDS, 0x0101, true, true, flushed),
                new Case("a Read without remote read", t -> one(Segments.read(1, t.writable().stag(), 0, 16)),
                        RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS, 0x0102, true, true, flushed),
                new Case("a Read of another PD", t -> one(Segments.read(1, t.foreign().stag(), 0, 16)),
                        RdmapError.REMOTE_PROTECTION_STAG_NOT_ASSOCIATED, 0x0103, true, true, flushed),
                new Case("a Read whose TO wraps", t -> one(Segments.read(1, t.readable().stag(), -8, 16)),
                        RdmapError.REMOTE_PROTECTION_TO_WRAP, 0x0104, true, true, flushed),
                new Case("a Read Request cut short", t -> one(Arrays.copyOf(Segments.read(1, t.readable().stag(), 0, 8),
                        45)), RdmapError.REMOTE_OPERATION_UNSPECIFIED, 0x02FF, true, false, flushed),
                new Case("a Read Request too long", t -> one(Arrays.copyOf(Segments.read(1, t.readable().stag(), 0, 8),
                        47)), DdpError.UNTAGGED_MESSAGE_TOO_LONG, 0x1205, true, false, flushed),
                new Case("a Read Request at MO 4", t -> one(Segments.withMo(Segments.read(1, t.readable().stag(), 0, 8),
                        4)), DdpError.UNTAGGED_INVALID_MO, 0x1204, true, false, flushed),
                new Case("a Read Request with MSN 3 first", t -> one(Segments.read(3, t.readable().stag(), 0, 8)),
                        DdpError.UNTAGGED_MSN_RANGE, 0x1203, true, false, flushed),
                new Case("Read Requests beyond IRD", t -> new byte[][] {Segments.read(1, t.readable().stag(), 0, 8),
                    Segments.read(2, t.readable().stag(), 0, 8)}, DdpError.UNTAGGED_NO_BUFFER, 0x1202, true, false,
                        flushed),
                new Case("a Read Response nobody asked for", t -> one(tagged(0xC1, READ_RESPONSE, t.local().stag(), 0,
                        8)), RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, 0x0206, true, false, flushed),
                new Case("Send with Invalidate of a region", t -> one(untagged(0x41,
                        RdmapControl.encode(RdmapOpcode.SEND_WITH_INVALIDATE), t.writable().stag(), 0, 1, 0, 0)),
                        RdmapError.REMOTE_OPERATION_CANNOT_INVALIDATE, 0x0209, true, false, flushed),
                new Case("Send with Invalidate of an unknown STag", t -> one(untagged(0x41,
                        RdmapControl.encode(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE), 0x5555_5500, 0, 1, 0, 0)),
                        RdmapError.REMOTE_PROTECTION_CANNOT_INVALIDATE, 0x0109, true, false, flushed),
                new Case("a segment of 5 octets", t -> one(new byte[] {0x41, 0x43, 0, 0, 0}),
                        RdmapError.REMOTE_OPERATION_UNSPECIFIED, 0x02FF, false, false, flushed),
                new Case("the first error wins", t -> new byte[][] {tagged(0xC1, WRITE, 0x7777_7700, 0, 8),
                    untagged(0x41, 0x4E, 0, 0, 1, 0, 8)}, DdpError.TAGGED_INVALID_STAG, 0x1100, true, false, flushed));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void craftedSegmentsGetTheRfcsTerminate(Case crafted) {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            Target target = Target.in(pair.b.memory);
            if (crafted.receive() != null) {
                pair.b.postReceive(1, target.local(), 0, 64);
            }
            pair.start();
            byte[][] segments = crafted.segments().apply(target);
            pair.b.end.stall(); // every crafted segment arrives before the engine looks at the first
            for (byte[] segment : segments) {
                pair.a.end.inject(segment);
            }
            pair.b.end.resume();
            pair.settle();

            TerminateHeader sent = pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent.cause()).contains(crafted.cause());
            assertThat(String.format("0x%04x", sent.layer() << 12 | sent.etype() << 8 | sent.code()))
                    .as("Layer, EType and Error Code").isEqualTo(String.format("0x%04x", crafted.registry()));
            // the offending segment: the last one injected, unless an earlier error must win
            byte[] offending = crafted.name().startsWith("the first") ? segments[0] : segments[segments.length - 1];
            if (crafted.ddpHeader()) {
                int headerLength = (offending[0] & DdpSegment.TAGGED_FLAG) != 0 ? DdpSegment.TAGGED_HEADER_LENGTH
                        : DdpSegment.UNTAGGED_HEADER_LENGTH;
                assertThat(sent.segmentLengthValid()).isTrue();
                assertThat(sent.ddpSegmentLength()).isEqualTo(offending.length - headerLength);
                assertThat(sent.terminatedDdpHeader().toByteArray())
                        .isEqualTo(Arrays.copyOf(offending, headerLength));
            } else {
                assertThat(sent.segmentLengthValid()).isFalse();
                assertThat(sent.terminatedDdpHeader()).isNull();
            }
            if (crafted.rdmaHeader()) {
                assertThat(sent.terminatedRdmaHeader()).isEqualTo(ReadRequestHeader.decode(
                        MemorySegment.ofArray(offending), DdpSegment.UNTAGGED_HEADER_LENGTH));
            } else {
                assertThat(sent.terminatedRdmaHeader()).isNull();
            }
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate()).as("the peer heard it whole")
                    .isEqualTo(sent);
            assertThat(pair.a.queues.events(QpEvent.TERMINATE_SENT)).as("a Terminate is never answered").isEmpty();
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_RECEIVED)).isEmpty();
            assertThat(pair.b.queues.states).containsExactly(QpState.RTS, QpState.TERMINATE, QpState.ERROR);
            assertThat(pair.a.queues.states).containsExactly(QpState.RTS, QpState.TERMINATE, QpState.ERROR);
            if (crafted.receive() != null) {
                assertThat(pair.b.queues.receivesDone).extracting(ReceiveDone::wrId, ReceiveDone::status)
                        .containsExactly(tuple(1L, crafted.receive()));
            } else {
                assertThat(pair.b.queues.receivesDone).isEmpty();
            }
            assertThat(nonZero(target.writable().memory())).as("nothing placed in the writable region").isEqualTo(-1);
            assertThat(nonZero(target.local().memory())).as("nothing placed in the receive").isEqualTo(-1);
            assertThat(pair.b.reported).isEmpty();
        }
    }

    @Test
    void aReceivedTerminateIsReportedFlushesAndIsNotAnswered() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged sink = pair.b.memory.region(64, LOCAL_WRITE);
            pair.b.postReceive(1, sink, 0, 64);
            pair.start();
            TerminateHeader cause = TerminateHeader.of(DdpError.TAGGED_BASE_OR_BOUNDS, 8,
                    DdpTaggedHeader.of(true, WRITE, 0x100, 0));
            pair.a.end.inject(Segments.terminate(cause));
            pair.settle();

            TestQueues.Event received = pair.b.queues.only(QpEvent.TERMINATE_RECEIVED);
            assertThat(received.terminate()).isEqualTo(cause);
            assertThat(received.detail()).containsIgnoringCase("base or bounds");
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
            assertThat(pair.b.queues.states).containsExactly(QpState.RTS, QpState.TERMINATE, QpState.ERROR);
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.WR_FLUSH_ERR, 0,
                    null, 0));
        }
    }

    @Test
    void aReadThePeerRefusesFailsWithARemoteAccessErrorAndWhatWaitsBehindItIsFlushed() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged sink = pair.a.memory.region(64, LOCAL_WRITE);
            pair.start();
            pair.a.post(read(1, sink, 0, 16, 0x7777_7700, 8)); // no such STag at the responder
            pair.a.post(read(2, sink, 16, 16, 0x7777_7700, 8)); // behind ORD 1: never sent
            pair.settle();

            TerminateHeader sent = pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent.cause()).contains(RdmapError.REMOTE_PROTECTION_INVALID_STAG);
            assertThat(sent.terminatedRdmaHeader()).isEqualTo(new ReadRequestHeader(sink.stag(), 0, 16, 0x7777_7700,
                    8));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate()).isEqualTo(sent);
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactly(tuple(1L, WcStatus.REM_ACCESS_ERR), tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.a.state()).isEqualTo(QpState.ERROR);
        }
    }

    /** A peer's Read Response must fit the Read this side asked for (RFC 5040 §4.5, RFC 5041 §7.2). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("readResponses")
    void aReadResponseOutsideTheReadIsATaggedBufferError(String name, int at, int length, boolean otherStag,
            TerminateCause cause) {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged readable = pair.a.memory.region(64, REMOTE_READ);
            TestMemory.Tagged sink = pair.b.memory.region(64, LOCAL_WRITE);
            pair.start();
            pair.a.end.stall(); // the Read Request stays unanswered
            pair.b.post(read(1, sink, 0, 16, readable.stag(), 0));
            pair.settle();
            pair.a.end.inject(tagged(0xC1, READ_RESPONSE, otherStag ? sink.stag() + 0x100 : sink.stag(), at,
                    length));
            pair.settle();

            TerminateHeader sent = pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent.cause()).contains(cause);
            assertThat(sent.ddpSegmentLength()).isEqualTo(length);
            assertThat(pair.b.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactly(tuple(1L, WcStatus.WR_FLUSH_ERR));
            assertThat(nonZero(sink.memory())).as("nothing placed").isEqualTo(-1);
        }
    }

    static Stream<Arguments> readResponses() {
        return Stream.of(
                Arguments.of("another STag", 0, 8, true, DdpError.TAGGED_INVALID_STAG),
                Arguments.of("a TO ahead of the data", 8, 8, false, DdpError.TAGGED_BASE_OR_BOUNDS),
                Arguments.of("longer than the Read", 0, 24, false, DdpError.TAGGED_BASE_OR_BOUNDS));
    }

    @Test
    void anLlpErrorBecomesATerminateWithoutHeaders() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            pair.start();
            pair.b.end.reportLlpError(MpaError.CRC_ERROR, "bad CRC");
            pair.settle();

            TerminateHeader sent = pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate();
            assertThat(sent).isEqualTo(TerminateHeader.of(MpaError.CRC_ERROR));
            assertThat(sent.layer() << 12 | sent.etype() << 8 | sent.code()).as("LLP layer, MPA CRC error")
                    .isEqualTo(0x2002);
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate()).isEqualTo(sent);
            assertThat(pair.b.state()).isEqualTo(QpState.ERROR);
        }
    }

    @Test
    void aBadLocalReceiveIsALocalCatastrophe() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            pair.b.postReceive(1, 0x1234_5600, 0, 64);
            TestMemory.Tagged source = pair.a.memory.region(10, 0);
            pair.start();
            pair.a.post(send(2, source, 0, 10));
            pair.settle();

            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.LOC_PROT_ERR, 0,
                    RdmapOpcode.SEND, 0));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
        }
    }

    @Test
    void aBadLocalKeyFailsItsRequestFlushesTheNextAndTerminates() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged sink = pair.b.memory.region(64, LOCAL_WRITE);
            pair.b.postReceive(1, sink, 0, 64);
            pair.start();
            SendWork bad = EnginePair.work(5, WorkOpcode.SEND, 1);
            bad.sges.set(0, 0x4242_4200, 0, 8);
            pair.a.post(bad);
            pair.a.post(emptySend(6));
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(
                    new SendDone(5, WorkOpcode.SEND, WcStatus.LOC_PROT_ERR, 0),
                    new SendDone(6, WorkOpcode.SEND, WcStatus.WR_FLUSH_ERR, 0));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            assertThat(pair.b.queues.only(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.WR_FLUSH_ERR, 0,
                    null, 0));
            assertThat(pair.b.end.segmentsSent()).as("the responder answered nothing").isZero();
        }
    }

    @Test
    void aReadWithTwoSinkElementsIsALocalOperationError() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged source = pair.b.memory.region(64, REMOTE_READ);
            TestMemory.Tagged sink = pair.a.memory.region(64, LOCAL_WRITE);
            pair.start();
            SendWork twoElements = EnginePair.work(9, WorkOpcode.RDMA_READ, 2);
            twoElements.sges.set(0, sink.stag(), 0, 32);
            twoElements.sges.set(1, sink.stag(), 32, 32);
            twoElements.remoteStag = source.stag();
            pair.a.post(twoElements);
            pair.settle();

            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(9, WorkOpcode.RDMA_READ,
                    WcStatus.LOC_QP_OP_ERR, 0));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            assertThat(pair.b.end.segmentsSent()).as("the responder got no Read Request to answer").isZero();
        }
    }

    @Test
    void aFailedLocalInvalidateTerminatesAndLaterWorkIsFlushed() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            pair.start();
            SendWork invalidate = EnginePair.work(3, WorkOpcode.LOCAL_INVALIDATE, 1);
            invalidate.localStag = 0x0A00_7700; // nothing of this side's
            SendWork bind = EnginePair.work(4, WorkOpcode.BIND_MEMORY_WINDOW, 1);
            bind.context = WcStatus.MW_BIND_ERR;
            pair.a.post(invalidate);
            pair.settle();
            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(3, WorkOpcode.LOCAL_INVALIDATE,
                    WcStatus.LOC_PROT_ERR, 0));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            pair.a.post(bind); // after the error: flushed, not carried out
            pair.settle();
            assertThat(pair.a.queues.sendsDone).last().isEqualTo(new SendDone(4, WorkOpcode.BIND_MEMORY_WINDOW,
                    WcStatus.WR_FLUSH_ERR, 0));
        }
    }

    @Test
    void aBindThatFailsCompletesWithItsOwnStatus() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            pair.start();
            SendWork bind = EnginePair.work(4, WorkOpcode.BIND_MEMORY_WINDOW, 1);
            bind.context = WcStatus.MW_BIND_ERR;
            pair.a.post(bind);
            pair.settle();
            assertThat(pair.a.queues.sendsDone).containsExactly(new SendDone(4, WorkOpcode.BIND_MEMORY_WINDOW,
                    WcStatus.MW_BIND_ERR, 0));
            assertThat(pair.a.state()).isEqualTo(QpState.ERROR);
        }
    }

    @Test
    void aCorruptedSegmentIsCaughtByItsHeader() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged sink = pair.b.memory.region(64, LOCAL_WRITE);
            pair.b.postReceive(1, sink, 0, 64);
            pair.start();
            pair.a.end.corruptNextSent(segment -> segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x42)); // DV 2
            pair.a.post(emptySend(1));
            pair.settle();

            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate().cause())
                    .contains(DdpError.UNTAGGED_INVALID_VERSION);
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.WR_FLUSH_ERR, 0,
                    null, 0));
        }
    }

    @Test
    void aLostConnectionFlushesEverythingOnBothSides() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            TestMemory.Tagged sink = pair.b.memory.region(64, LOCAL_WRITE);
            TestMemory.Tagged readable = pair.b.memory.region(64, REMOTE_READ);
            TestMemory.Tagged readSink = pair.a.memory.region(64, LOCAL_WRITE);
            pair.b.postReceive(1, sink, 0, 64);
            pair.start();
            pair.b.end.stall(); // the Read stays unanswered
            pair.a.post(read(2, readSink, 0, 64, readable.stag(), 0));
            pair.settle();
            assertThat(pair.a.queues.sendsDone).isEmpty();
            pair.a.end.dropConnection();
            pair.settle();

            assertThat(pair.a.queues.only(QpEvent.CONNECTION_LOST)).isNotNull();
            assertThat(pair.b.queues.only(QpEvent.CONNECTION_LOST)).isNotNull();
            assertThat(pair.a.queues.sendsDone).extracting(SendDone::wrId, SendDone::status)
                    .containsExactly(tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair.b.queues.receivesDone).containsExactly(new ReceiveDone(1, WcStatus.WR_FLUSH_ERR, 0,
                    null, 0));
            assertThat(pair.a.state()).isEqualTo(QpState.ERROR);
            assertThat(pair.b.state()).isEqualTo(QpState.ERROR);
            assertThat(pair.a.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
            assertThat(pair.b.queues.events(QpEvent.TERMINATE_SENT)).isEmpty();
        }
    }

    /**
     * Tagged payload that arrives ahead of its turn is placed by the LLP (RFC 5043 §10), outside the engine: when the
     * region's memory is gone by then (its arena closed under a live registration), the early placement declines,
     * and the segment, delivered in its turn, fails in the engine as any placement into such a region does: a
     * Terminate to the peer, not an exception left at the loop and a connection that stalls.
     */
    @Test
    void taggedPayloadPlacedEarlyIntoMemoryThatIsGoneIsALocalCatastrophe() {
        try (EnginePair pair = EnginePair.clientServer(1, 1)) {
            int size = 20_000;
            Arena arena = Arena.ofShared();
            TestMemory.Tagged sink = pair.b.memory.region(arena.allocate(size, 8), LOCAL_WRITE | REMOTE_WRITE);
            TestMemory.Tagged source = pair.a.memory.region(size, 0);
            pair.start();
            pair.b.end.reorderTagged(true);
            arena.close();
            pair.a.post(write(1, source, 0, size, sink.stag(), 0));
            pair.settle();

            assertThat(pair.b.queues.only(QpEvent.TERMINATE_SENT).terminate())
                    .isEqualTo(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC));
            assertThat(pair.a.queues.only(QpEvent.TERMINATE_RECEIVED).terminate().cause())
                    .contains(RdmapError.LOCAL_CATASTROPHIC);
            assertThat(pair.b.reported).as("nothing the engine had to end the stream over").isEmpty();
            assertThat(pair.b.state()).isEqualTo(QpState.ERROR);
        }
    }

    private static byte[][] one(byte[] segment) {
        return new byte[][] {segment};
    }
}
