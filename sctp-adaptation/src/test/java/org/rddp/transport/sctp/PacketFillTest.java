package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The model of the packet an SCTP stack fills with a burst's DATA chunks, each whole, in order. */
class PacketFillTest {
    private static final int MAX_CHUNK = 65_456;

    @Test
    void aFreshPacketTakesTheLargestChunk() {
        assertThat(new PacketFill(MAX_CHUNK).room()).isEqualTo(MAX_CHUNK);
    }

    @Test
    void chunksJoinThePacketWithTheirHeadersAndPadding() {
        PacketFill fill = new PacketFill(MAX_CHUNK);
        fill.add(101); // 16 + 104
        assertThat(fill.room()).isEqualTo(MAX_CHUNK - 120);
        fill.add(MAX_CHUNK - 120); // fills it exactly
        assertThat(fill.room()).isZero();
    }

    @Test
    void aChunkThatDoesNotFitStartsTheNextPacket() {
        PacketFill fill = new PacketFill(MAX_CHUNK);
        fill.add(1_000);
        fill.add(MAX_CHUNK); // the next packet, alone
        assertThat(fill.room()).isZero();
        fill.add(200); // and the one after
        assertThat(fill.room()).isEqualTo(MAX_CHUNK - 216);
    }

    @Test
    void whatTheStackSentLeavesAFreshPacket() {
        PacketFill fill = new PacketFill(MAX_CHUNK);
        fill.add(1_000);
        fill.flushed();
        assertThat(fill.room()).isEqualTo(MAX_CHUNK);
        fill.add(64);
        assertThat(fill.room()).isEqualTo(MAX_CHUNK - 80);
    }
}
