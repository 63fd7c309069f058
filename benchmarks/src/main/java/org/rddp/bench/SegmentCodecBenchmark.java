package org.rddp.bench;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.rddp.ddp.DdpSegment;
import org.rddp.mpa.MpaDeframer;
import org.rddp.mpa.MpaFramer;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.wire.DecodeStatus;

/** Encoding and decoding DDP segments, and framing and deframing them as MPA FPDUs with CRC32c. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SegmentCodecBenchmark {
    private final MemorySegment segment = MemorySegment.ofArray(new byte[1024]);
    private final DdpSegment writer = new DdpSegment();
    private final DdpSegment reader = new DdpSegment();
    private final ByteBuffer ulpdu = ByteBuffer.allocateDirect(1024);
    private final ByteBuffer wire = ByteBuffer.allocateDirect(4096);
    private MpaFramer framer;
    private MpaDeframer deframer;
    private long delivered;
    private long to;

    /** Fresh framers: a stream with markers and CRC. */
    @Setup
    public void setUp() {
        framer = new MpaFramer(true, true);
        deframer = new MpaDeframer(true, true, (buffer, offset, length) -> delivered += length);
        new DdpSegment().bind(MemorySegment.ofBuffer(ulpdu), 0, 1024)
                .writeTagged(true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), 0x1234_5600, 0);
    }

    /** Writes a tagged DDP header. */
    @Benchmark
    public MemorySegment encodeTaggedHeader() {
        writer.bind(segment, 0, 1024).writeTagged(true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), 0x1234_5600,
                to += 1010);
        return segment;
    }

    /** Wraps and checks a segment as the receive path does: DDP, then RDMAP. */
    @Benchmark
    public DecodeStatus decodeAndValidate() {
        DecodeStatus status = reader.wrap(segment, 0, 1024);
        return status.ok() ? RdmapControl.validate(reader, RdmapControl.RDMAP_VERSION) : status;
    }

    /** Frames a 1024-octet ULPDU (markers, pad, CRC32c) and deframes it again. */
    @Benchmark
    public long frameAndDeframe() {
        wire.clear();
        ulpdu.clear();
        framer.frame(ulpdu, wire);
        wire.flip();
        deframer.receive(wire);
        return delivered;
    }
}
