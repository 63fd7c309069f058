package org.rddp.cli.demo;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.DdpError;
import org.rddp.mpa.MpaDeframer;
import org.rddp.mpa.MpaFramer;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.DdpSegmentChunk;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

/**
 * {@code rddp demo}: builds real frames of every wire format, decodes them back, and prints both.
 */
final class WireDemo {
    private final PrintWriter out;

    WireDemo(PrintWriter out) {
        this.out = out;
    }

    /** Prints every frame; throws when one does not decode back to what was encoded. */
    void run() throws MalformedFrameException {
        demo();
    }

    private void demo() throws MalformedFrameException {
        out.println("rddp wire-format demo: every frame below is encoded, then decoded back.");
        mpaStartup();
        mpaFpdus();
        sctpChunks();
        out.println("All frames decoded back to what was encoded.");
    }

    private void mpaStartup() throws MalformedFrameException {
        var request = new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, false, true, false,
                MpaStartupFrame.REVISION_2, new EnhancedConnectionData(true, false, true, true, 16, 16),
                PrivateData.of("hello".getBytes(StandardCharsets.US_ASCII)));
        byte[] octets = request.toByteArray();
        dump("MPA Request, Rev 2, enhanced, P2P with Write/Read RTR, IRD=ORD=16 (RFC 5044 §7.1.1, RFC 6581 §6)",
                octets);
        check(request.equals(MpaStartupFrame.decode(ByteBuffer.wrap(octets), MpaStartupFrame.Kind.REQUEST)),
                "MPA Request");
        out.println("  decoded: " + request);
    }

    private void mpaFpdus() {
        // The first FPDU of a stream with Markers and CRC: RFC 5044 §4.4 Figure 5, byte for byte.
        MemorySegment send = MemorySegment.ofArray(new byte[42]);
        new DdpSegment().bind(send, 0, 42).writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND), 0,
                RdmapControl.SEND_QUEUE, 1, 0);
        ByteBuffer wire = ByteBuffer.allocate(256);
        new MpaFramer(true, true).frame(send.asByteBuffer(), wire);
        byte[] fpdu = new byte[wire.flip().remaining()];
        wire.get(fpdu);
        dump("FPDU: Marker, Send (L=1, QN 0, MSN 1, MO 0) of 24 zero octets, CRC32c (RFC 5044 Figure 5)", fpdu);

        List<String> delivered = new ArrayList<>();
        DdpSegment segment = new DdpSegment();
        MpaDeframer deframer = new MpaDeframer(true, true, (buffer, offset, length) -> {
            DecodeStatus ddp = segment.wrap(buffer, offset, length);
            DecodeStatus rdmap = ddp.ok() ? RdmapControl.validate(segment, RdmapControl.RDMAP_VERSION) : ddp;
            delivered.add(rdmap + " " + segment.header() + ", " + segment.payloadLength() + " payload octets");
        });
        for (byte b : fpdu) {
            check(deframer.receive(ByteBuffer.wrap(new byte[] {b})).ok(), "FPDU fed one octet at a time");
        }
        check(delivered.size() == 1, "one ULPDU delivered");
        out.println("  decoded one octet at a time: " + delivered.getFirst());

        fpdu[20] ^= 0x01;
        DecodeStatus corrupted = new MpaDeframer(true, true, (buffer, offset, length) -> {
            throw new IllegalStateException("a corrupted FPDU was delivered");
        }).receive(ByteBuffer.wrap(fpdu));
        check(corrupted == DecodeStatus.MPA_CRC, "corrupted FPDU rejected");
        out.println("  one bit flipped: " + corrupted + " -> Terminate "
                + corrupted.terminateCause().orElseThrow().description());
    }

    private void sctpChunks() throws MalformedFrameException {
        var initiate = new SessionControlChunk(0, new SessionControl.EnhancedInitiate(
                EnhancedConnectionData.clientServer(8, 4), PrivateData.of(new byte[] {1, 2, 3})));
        byte[] octets = initiate.toByteArray();
        dump("SCTP PPID " + DdpSctp.PPID_SESSION_CONTROL + ": Enhanced DDP Stream Session Initiate, IRD 8, ORD 4 "
                + "(RFC 5043 §5.2.3, RFC 6581 §7)", octets);
        check(initiate.equals(SessionControlChunk.decode(MemorySegment.ofArray(octets), 0, octets.length)),
                "Session Initiate");
        out.println("  decoded: " + initiate);

        byte[] write = new byte[2 + 14 + 8];
        MemorySegment chunk = MemorySegment.ofArray(write);
        DdpSegmentChunk.writeDdpSsn(chunk, 0, 1);
        new DdpSegment().bind(chunk, 2, 22).writeTagged(true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE),
                0x1234_5600, 0x1000);
        dump("SCTP PPID " + DdpSctp.PPID_DDP_SEGMENT + ": DDP-SSN 1, RDMA Write of 8 octets to STag 0x12345600 "
                + "TO 0x1000 (RFC 5043 §5.2.2)", write);
        DdpSegmentChunk view = new DdpSegmentChunk();
        check(view.wrap(chunk, 0, write.length, DdpSctp.MIN_MAX_CHUNK_LENGTH, DdpSegment.DDP_VERSION).ok(),
                "DDP Segment chunk");
        out.println("  decoded: DDP-SSN " + view.ddpSsn() + ", " + view.segment().header());

        var terminate = TerminateHeader.of(DdpError.TAGGED_INVALID_STAG, 22, view.segment().header());
        byte[] term = terminate.toByteArray();
        dump("Terminate header answering that Write with DDP Invalid STag (RFC 5040 §4.8)", term);
        check(terminate.equals(TerminateHeader.decode(MemorySegment.ofArray(term), 0, term.length)), "Terminate");
        out.println("  decoded: " + terminate.cause().orElseThrow().description() + ", " + terminate);
    }

    private void dump(String title, byte[] octets) {
        out.println();
        out.println(title + ", " + octets.length + " octets:");
        HexFormat hex = HexFormat.ofDelimiter(" ");
        for (int i = 0; i < octets.length; i += 16) {
            out.printf("  %04x  %s%n", i, hex.formatHex(octets, i, Math.min(i + 16, octets.length)));
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what + " did not decode back to what was encoded");
        }
    }
}
