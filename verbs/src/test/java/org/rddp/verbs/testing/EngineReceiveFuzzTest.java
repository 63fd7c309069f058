package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.rddp.ddp.DdpSegment;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;

/**
 * Coverage-guided fuzzing of the DDP/RDMAP receive path (RFC 5040, RFC 5041): after a valid connection, the
 * fuzzer's segments reach the responder's engine as if its peer had sent them. The responder's regions lie inside
 * larger segments filled with canaries, next to a region of another protection domain. Corpus under
 * {@code EngineReceiveFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes (see {@code fuzz/README.md}).
 *
 * <p>Checks: nothing escapes the loop; no octet outside a registered region changes, nor any octet of a region
 * the peer may only read, nor of the local region outside the posted receives; every Terminate sent carries a cause
 * from the RFC tables; after one the queue pair is in ERROR; every input finishes within the test timeout.
 */
class EngineReceiveFuzzTest {
    private static final byte CANARY = (byte) 0xA5;
    private static final byte READABLE = 0x5A;
    private static final int REGION = 4096;
    /** STag fields below this name one of the responder's regions, so an input means the same in every run. */
    private static final int SYMBOLIC_STAGS = 4;
    private static final int RECEIVE = 64;
    private static final int RECEIVES = 4;
    /** The in-memory LLP's MULPDU: a longer segment in an input is cut to it. */
    private static final int MULPDU = 1024;
    /** Segments per input: fewer than the in-memory LLP holds in flight while the responder is stalled. */
    private static final int MAX_SEGMENTS = 24;
    private static final ValueLayout.OfInt BIG_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The memory's octets as an input must leave them, 0 where the peer may write (runs of this many octets). */
    private static final int WRITABLE_RUN = RECEIVE;
    private static final MemorySegment EXPECTED = Arena.global().allocate(7L * REGION);
    private static final MemorySegment SCRATCH = Arena.global().allocate(7L * REGION);

    static {
        for (long at = 0; at < EXPECTED.byteSize(); at++) {
            EXPECTED.set(ValueLayout.JAVA_BYTE, at, expectedOctet(at));
        }
    }

    private static InMemoryTransport transport;

    /** The in-memory managers' loops go with the class. */
    @AfterAll
    static void stop() {
        if (transport != null) {
            transport.close();
            transport = null;
        }
    }

    /**
     * Input: up to {@value #MAX_SEGMENTS} segments, each a two-octet length then that many octets (the first
     * {@value #MULPDU} at most make the segment: a DDP header, tagged or untagged, then RDMAP payload). An STag
     * field of 0–3 (the tagged STag, a Read Request's source or sink STag, a Send with Invalidate's STag) is
     * replaced by the responder's writable region, readable region, local region or a region of another
     * protection domain.
     */
    @FuzzTest(maxDuration = "10s")
    void peerSegments(byte[] input) throws Exception {
        if (transport == null || !transport.initiator().loop().inLoop()) {
            transport = new InMemoryTransport(MULPDU, 32, Progress.manual()); // this thread runs the inputs' loops
        }
        Loop loop = transport.initiator().loop();
        try (Peers peers = new Peers(transport, 8)) {
            MemorySegment memory = Arena.ofAuto().allocate(7L * REGION, 8);
            memory.fill(CANARY);
            MemorySegment readableMemory = memory.asSlice(3L * REGION, REGION);
            readableMemory.fill(READABLE);
            MemoryRegion[] regions = {
                register(peers.responder, memory.asSlice(REGION, REGION),
                        Access.LOCAL_WRITE, Access.REMOTE_WRITE),
                register(peers.responder, readableMemory, Access.REMOTE_READ),
                register(peers.responder, memory.asSlice(5L * REGION, REGION), Access.LOCAL_WRITE),
                peers.responder.device.allocateProtectionDomain().register(memory.asSlice(6L * REGION, REGION),
                        EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)),
            };
            for (int i = 0; i < RECEIVES; i++) {
                peers.responder.postReceive(regions[2], i * 2L * RECEIVE, RECEIVE, i);
            }
            peers.connect(4, 4);
            List<byte[]> segments = segments(input, regions);
            InMemoryLlp responderEnd = transport.initiator().lastResponderEnd();
            responderEnd.stall(); // every segment is in before the engine looks at the first
            for (byte[] segment : segments) {
                transport.initiator().lastInitiatorEnd().inject(segment);
            }
            loop.execute(responderEnd::resume);
            quiesce();

            assertThat(loop.failure()).as("an exception escaped the engine").isNull();
            // what must not have changed, the octets the peer may write taken from the memory itself; compared in
            // bulk by the JDK (a loop here would run through Jazzer's instrumentation, octet by octet)
            MemorySegment.copy(EXPECTED, 0, SCRATCH, 0, EXPECTED.byteSize());
            for (long at = 0; at < memory.byteSize(); at += WRITABLE_RUN) {
                if (expectedOctet(at) == 0) {
                    MemorySegment.copy(memory, at, SCRATCH, at, WRITABLE_RUN);
                }
            }
            long at = SCRATCH.mismatch(memory);
            if (at >= 0) {
                throw new AssertionError(String.format("octet %d of region %d changed to 0x%02x (expected 0x%02x)",
                        at % REGION, at / REGION, memory.get(ValueLayout.JAVA_BYTE, at), expectedOctet(at)));
            }
            for (Side.Event event : peers.responder.events) {
                if (event.event() == QpEvent.TERMINATE_SENT) {
                    assertThat(event.terminate().cause()).as("the Terminate's cause %s", event.terminate())
                            .isPresent();
                    peers.responder.awaitState(QpState.ERROR);
                }
            }
        }
    }

    /**
     * What octet {@code at} of the memory must still hold, or 0 where the peer may write: canaries around the
     * regions and in the other protection domain's, the readable region's pattern, canaries between the receives.
     */
    private static byte expectedOctet(long at) {
        long region = at / REGION;
        long offset = at % REGION;
        if (region == 1) {
            return 0;
        }
        if (region == 3) {
            return READABLE;
        }
        if (region == 5 && offset < 2L * RECEIVE * RECEIVES && offset / RECEIVE % 2 == 0) {
            return 0;
        }
        return CANARY;
    }

    private static MemoryRegion register(Side side, MemorySegment memory, Access... rights) {
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        set.addAll(List.of(rights));
        return side.pd.register(memory, set);
    }

    /** Cuts the input into segments and puts the real STags where it names regions symbolically. */
    private static List<byte[]> segments(byte[] input, MemoryRegion[] regions) {
        List<byte[]> segments = new ArrayList<>();
        int at = 0;
        while (at + 2 <= input.length && segments.size() < MAX_SEGMENTS) {
            int length = Math.min(((input[at] & 0xFF) << 8) | (input[at + 1] & 0xFF), input.length - at - 2);
            // the in-memory LLP carries no larger segment
            byte[] segment = java.util.Arrays.copyOfRange(input, at + 2, at + 2 + Math.min(length, MULPDU));
            at += 2 + length;
            MemorySegment octets = MemorySegment.ofArray(segment);
            if (segment.length >= 6 && (segment[0] & DdpSegment.TAGGED_FLAG) != 0) {
                symbolic(octets, 2, regions);
            } else if (segment.length >= 10) {
                symbolic(octets, 2, regions); // an untagged segment's Invalidate STag
                int opcode = segment[1] & 0x0F;
                if (opcode == RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST) % 16 && segment.length >= 46) {
                    symbolic(octets, 18, regions); // sink STag
                    symbolic(octets, 18 + 16, regions); // source STag
                }
            }
            segments.add(segment);
        }
        return segments;
    }

    private static void symbolic(MemorySegment octets, long offset, MemoryRegion[] regions) {
        int value = octets.get(BIG_INT, offset);
        if (value >= 0 && value < SYMBOLIC_STAGS) {
            octets.set(BIG_INT, offset, regions[value].rkey());
        }
    }

    /**
     * Runs this thread's loops until they are idle: everything the injection set off, and what that queued in
     * turn, has run (three cycles in a row with no work).
     */
    private static void quiesce() {
        for (int idle = 0; idle < 3;) {
            idle = Loop.invokeOwned() == 0 ? idle + 1 : 0;
        }
    }
}
