package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;
import static org.rddp.engine.StagResolver.REMOTE_READ;
import static org.rddp.engine.StagResolver.REMOTE_WRITE;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.rddp.ddp.DdpSegment;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;

/**
 * The engine's receive path against whatever a peer may send (RFC 5040 §7, RFC 5041 §7): after a valid start, up to
 * {@value #MAX_SEGMENTS} arbitrary segments (headers of every opcode aimed at the responder's memory, their fields
 * mostly in step and sometimes anything, and raw octets) reach the responder's engine as if its peer had sent them.
 * The responder's regions lie inside one larger block of memory filled with canaries, next to a region of another
 * protection domain and a window.
 *
 * <p>Checks: no exception escapes either engine, nor does either end its stream over one; no octet changes outside
 * what the peer may write (the writable region, the window) and the posted receives; the readable region, the foreign
 * region and the canaries stay as they were; at most one Terminate is sent, with a cause from the RFCs' tables; the
 * responder is in ERROR exactly when a Terminate was sent or received, else still in RTS; receives complete in
 * posting order, none that succeeded longer than it is.
 */
class EngineReceiveProperties {
    private static final byte CANARY = (byte) 0xA5;
    private static final byte READABLE = 0x5A;
    private static final int REGION = 4096;
    private static final int WINDOW = 1024;
    private static final int RECEIVE = 64;
    private static final int RECEIVES = 4;
    private static final int MULPDU = 1024;
    /** Segments per input: fewer than the in-memory LLP holds in flight while the responder is stalled. */
    private static final int MAX_SEGMENTS = 16;
    private static final int CAPACITY = 32;
    /** The STags the responder's memory hands out, in registration order (see {@link TestMemory}). */
    private static final int WRITABLE = 0x0B00_0100;
    private static final int READABLE_STAG = 0x0B00_0200;
    private static final int LOCAL = 0x0B00_0300;
    private static final int FOREIGN = 0x0B00_0400;
    private static final int WINDOW_STAG = 0x0B00_0500;
    /** A sink STag for the Read Requests: the initiator's, which it never registered (its Terminate may follow). */
    private static final int READ_SINK = 0x0A00_0100;
    private static final ValueLayout.OfInt BIG_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BIG_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Without jqwik's edge cases: mixed into every field of every segment, they end nearly every input at its first
     * segment; the generators below put the values worth trying (0, -1, the bounds, anything at all) in at rates that
     * let most inputs reach placement.
     */
    @Property(tries = 1000, edgeCases = EdgeCasesMode.NONE)
    void arbitrarySegmentsArePlacedOnlyWhereThePeerMayWriteOrEndTheStream(
            @ForAll("peerSegments") List<byte[]> segments) {
        try (EnginePair pair = EnginePair.of(LlpParameters.of(4, 4), LlpParameters.of(4, 4), MULPDU, CAPACITY)) {
            MemorySegment memory = Arena.ofAuto().allocate(7L * REGION, 8);
            memory.fill(CANARY);
            memory.asSlice(3L * REGION, REGION).fill(READABLE);
            TestMemory mine = pair.b.memory;
            assertThat(mine.region(memory.asSlice(REGION, REGION), LOCAL_WRITE | REMOTE_WRITE).stag())
                    .isEqualTo(WRITABLE);
            assertThat(mine.region(memory.asSlice(3L * REGION, REGION), REMOTE_READ).stag()).isEqualTo(READABLE_STAG);
            assertThat(mine.region(memory.asSlice(5L * REGION, REGION), LOCAL_WRITE).stag()).isEqualTo(LOCAL);
            assertThat(mine.foreign(memory.asSlice(6L * REGION, REGION)).stag()).isEqualTo(FOREIGN);
            assertThat(mine.window(memory.asSlice(2L * REGION, WINDOW), REMOTE_WRITE | REMOTE_READ).stag())
                    .isEqualTo(WINDOW_STAG);
            for (int i = 0; i < RECEIVES; i++) {
                pair.b.postReceive(i, LOCAL, i * 2L * RECEIVE, RECEIVE);
            }
            pair.start();
            MemorySegment expected = MemorySegment.ofArray(memory.toArray(ValueLayout.JAVA_BYTE));

            pair.b.end.stall(); // every segment is in before the engine looks at the first
            for (byte[] segment : segments) {
                pair.a.end.inject(segment);
            }
            pair.b.end.resume();
            pair.settle();

            assertThat(pair.b.reported).as("the responder ended its stream over an exception").isEmpty();
            assertThat(pair.a.reported).as("the initiator ended its stream over an exception").isEmpty();
            // what the peer may write is taken from the memory itself; everything else must be as it was
            MemorySegment.copy(memory, REGION, expected, REGION, REGION);
            MemorySegment.copy(memory, 2L * REGION, expected, 2L * REGION, WINDOW);
            for (int i = 0; i < RECEIVES; i++) {
                long at = 5L * REGION + i * 2L * RECEIVE;
                MemorySegment.copy(memory, at, expected, at, RECEIVE);
            }
            long at = memory.mismatch(expected);
            assertThat(at).as("octet %d of region %d changed", at % REGION, at / REGION).isEqualTo(-1);

            List<TestQueues.Event> sent = pair.b.queues.events(QpEvent.TERMINATE_SENT);
            List<TestQueues.Event> received = pair.b.queues.events(QpEvent.TERMINATE_RECEIVED);
            assertThat(sent.size() + received.size()).as("Terminates sent and received: %s", pair.b).isLessThan(2);
            for (TestQueues.Event event : sent) {
                assertThat(event.terminate().cause()).as("the cause of %s", event.terminate()).isPresent();
            }
            assertThat(pair.b.state()).as("%s", pair.b)
                    .isEqualTo(sent.isEmpty() && received.isEmpty() ? QpState.RTS : QpState.ERROR);
            List<ReceiveDone> done = pair.b.queues.receivesDone;
            assertThat(done).extracting(ReceiveDone::wrId).isSorted().doesNotHaveDuplicates();
            assertThat(done).filteredOn(receive -> receive.status() == WcStatus.SUCCESS)
                    .allSatisfy(receive -> assertThat(receive.byteLength()).isBetween(0L, (long) RECEIVE));
            assertThat(pair.b.queues.sendsDone).as("the responder posted no work").isEmpty();
        }
    }

    /**
     * One segment of an input. Sends and Read Requests take the MSN and MO that come next in the input unless they
     * were generated with their own (a peer out of step), so that most inputs get past their first segment.
     */
    @FunctionalInterface
    interface Piece {
        byte[] octets(Sequence sequence);
    }

    /** The next MSNs and MO of the input's Sends and Read Requests, as a peer keeping step would use them. */
    static final class Sequence {
        int sendMsn = 1;
        int sendMo;
        int readMsn = 1;
    }

    @Provide
    Arbitrary<List<byte[]>> peerSegments() {
        Arbitrary<Piece> piece = Arbitraries.frequencyOf(
                Tuple.of(6, tagged()),
                Tuple.of(6, untagged()),
                Tuple.of(3, readRequest()),
                Tuple.of(1, terminate()),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(raw -> sequence -> raw)));
        return piece.list().ofMaxSize(MAX_SEGMENTS).map(pieces -> {
            Sequence sequence = new Sequence();
            return pieces.stream().map(p -> p.octets(sequence)).toList();
        });
    }

    /** Mostly {@code usual} (the first most of all), rarely anything. */
    private static Arbitrary<Integer> mostly(Arbitrary<Integer> anything, int... usual) {
        return Arbitraries.frequencyOf(Tuple.of(24, Arbitraries.just(usual[0])),
                Tuple.of(6, Arbitraries.of(IntStream.of(usual).boxed().toList())), Tuple.of(1, anything));
    }

    /** A control octet: mostly one of {@code usual}, rarely anything. */
    private static Arbitrary<Integer> octet(int... usual) {
        return mostly(Arbitraries.integers().between(0, 255), usual);
    }

    /** An STag of the responder's, mostly one that names its memory, {@code usual} most of all. */
    private static Arbitrary<Integer> stag(int usual) {
        return mostly(Arbitraries.integers(), usual, WRITABLE, READABLE_STAG, LOCAL, FOREIGN, WINDOW_STAG,
                0x7777_7700);
    }

    /** A TO, mostly within a region, sometimes across its end, rarely anything. */
    private static Arbitrary<Long> to() {
        return Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.longs().between(0, REGION - 300)),
                Tuple.of(3, Arbitraries.longs().between(REGION - 300, REGION + 8)),
                Tuple.of(1, Arbitraries.of(-1L, -4L, -8L, Long.MIN_VALUE)),
                Tuple.of(1, Arbitraries.longs()));
    }

    /** A field a peer keeping step leaves to the input's sequence ({@code null}), rarely its own value. */
    private static Arbitrary<Integer> ownValue(Arbitrary<Integer> value) {
        return Arbitraries.frequencyOf(Tuple.of(12, Arbitraries.just((Integer) null)), Tuple.of(1, value));
    }

    private static Arbitrary<Piece> tagged() {
        return Combinators.combine(octet(0xC1, 0x81), octet(RdmapControl.encode(RdmapOpcode.RDMA_WRITE),
                RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE)), stag(WRITABLE), to(),
                Arbitraries.integers().between(0, 300), Arbitraries.bytes())
                .as((control, rdmap, stag, to, payload, fill) -> sequence -> {
                    byte[] octets = Segments.tagged(control, rdmap, stag, to, payload);
                    Arrays.fill(octets, DdpSegment.TAGGED_HEADER_LENGTH, octets.length, fill);
                    return octets;
                });
    }

    private static Arbitrary<Piece> untagged() {
        Arbitrary<Integer> opcode = octet(RdmapControl.encode(RdmapOpcode.SEND),
                RdmapControl.encode(RdmapOpcode.SEND_WITH_INVALIDATE), RdmapControl.encode(RdmapOpcode.SEND_WITH_SE),
                RdmapControl.encode(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE));
        Arbitrary<Integer> qn = mostly(Arbitraries.integers(), 0, 1, 2, 3);
        Arbitrary<Integer> msn = ownValue(Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.integers().between(0, 6)),
                Tuple.of(1, Arbitraries.integers())));
        Arbitrary<Integer> mo = ownValue(Arbitraries.frequencyOf(Tuple.of(3,
                Arbitraries.integers().between(0, 2 * RECEIVE)), Tuple.of(1, Arbitraries.integers())));
        Arbitrary<Integer> payload = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, RECEIVE / 2)),
                Tuple.of(1, Arbitraries.integers().between(0, 2 * RECEIVE)));
        return Combinators.combine(octet(0x41, 0x01), opcode, stag(WINDOW_STAG), qn, msn, mo, payload,
                Arbitraries.bytes())
                .as((control, rdmap, invalidate, queue, ownMsn, ownMo, length, fill) -> sequence -> {
                    int sequenceMsn = sequence.sendMsn;
                    int sequenceMo = sequence.sendMo;
                    if ((control & DdpSegment.LAST_FLAG) != 0) {
                        sequence.sendMsn++;
                        sequence.sendMo = 0;
                    } else {
                        sequence.sendMo += length;
                    }
                    byte[] octets = Segments.untagged(control, rdmap, invalidate, queue,
                            ownMsn == null ? sequenceMsn : ownMsn, ownMo == null ? sequenceMo : ownMo, length);
                    Arrays.fill(octets, DdpSegment.UNTAGGED_HEADER_LENGTH, octets.length, fill);
                    return octets;
                });
    }

    private static Arbitrary<Piece> readRequest() {
        Arbitrary<Integer> size = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.integers().between(0, 512)),
                Tuple.of(1, Arbitraries.integers().between(0, REGION + 64)), Tuple.of(1, Arbitraries.integers()));
        Arbitrary<Integer> msn = ownValue(Arbitraries.integers().between(0, 6));
        return Combinators.combine(msn, stag(READ_SINK), to(), size, stag(READABLE_STAG), to())
                .as((ownMsn, sinkStag, sinkTo, readSize, srcStag, srcTo) -> sequence -> {
                    byte[] octets = Segments.read(ownMsn == null ? sequence.readMsn++ : ownMsn, srcStag, srcTo,
                            readSize);
                    MemorySegment header = MemorySegment.ofArray(octets);
                    header.set(BIG_INT, DdpSegment.UNTAGGED_HEADER_LENGTH + ReadRequestHeader.SINK_STAG_OFFSET,
                            sinkStag);
                    header.set(BIG_LONG, DdpSegment.UNTAGGED_HEADER_LENGTH + ReadRequestHeader.SINK_TO_OFFSET, sinkTo);
                    return octets;
                });
    }

    private static Arbitrary<Piece> terminate() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(48).map(body -> sequence -> {
            byte[] octets = Segments.untagged(0x41, RdmapControl.encode(RdmapOpcode.TERMINATE), 0,
                    RdmapControl.TERMINATE_QUEUE, 1, 0, body.length);
            System.arraycopy(body, 0, octets, DdpSegment.UNTAGGED_HEADER_LENGTH, body.length);
            return octets;
        });
    }
}
