package org.rddp.mpa;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.rddp.wire.DecodeStatus;

/**
 * The receiving half of MPA Full Operation for one direction of one connection (RFC 5044 §4, §6): finds FPDUs
 * in the byte stream by their ULPDU_Length, strips and checks Markers, checks the CRC32c and hands each good
 * ULPDU to the handler. Resumes across reads of any size, down to one octet. The first error is sticky: it is
 * returned, nothing more is delivered, and later input is discarded (RFC 5044 §8). Not thread-safe.
 *
 * <p>A ULPDU is handed over only after its CRC was checked, so bad data never reaches placement. A ULPDU_Length
 * above the 64768 a sender may use (RFC 5044 §3) is still parsed, up to the field's 65535; with Markers on, the
 * Marker check catches such an FPDU, since no 16-bit FPDUPTR can reach back to its header.
 */
public final class MpaDeframer {
    /** Receives each ULPDU; the octets are valid only during the call. */
    @FunctionalInterface
    public interface UlpduHandler {
        /** One whole ULPDU (a DDP segment) at {@code offset} in {@code buffer}. */
        void onUlpdu(MemorySegment buffer, long offset, int length);
    }

    private static final int READING_LENGTH = 0;
    private static final int READING_BODY = 1;
    private static final int READING_CRC = 2;

    private final boolean markers;
    private final boolean crcChecked;
    private final UlpduHandler handler;
    /** ULPDU_Length, ULPDU and PAD of the current FPDU, Markers stripped. */
    private final ByteBuffer fpdu = ByteBuffer.allocateDirect(
            MpaFpdu.ULPDU_LENGTH_LENGTH + MpaFpdu.MAX_ULPDU_LENGTH_FIELD + 3);
    private final MemorySegment fpduSegment = MemorySegment.ofBuffer(fpdu);
    private final byte[] marker = new byte[MpaFpdu.MARKER_LENGTH];
    private final CRC32C crc = new CRC32C();

    private long position;
    private int phase = READING_LENGTH;
    private int fill;
    private int bodyEnd;
    private int ulpduLength;
    private long header = -1;
    private boolean crcStarted;
    private int crcFill;
    private int receivedCrc;
    private DecodeStatus status = DecodeStatus.OK;

    /**
     * @param markers    the stream carries Markers (this side's M bit)
     * @param crcChecked CRCs are in use (either side's C bit)
     * @param handler    receives each ULPDU
     */
    public MpaDeframer(boolean markers, boolean crcChecked, UlpduHandler handler) {
        this.markers = markers;
        this.crcChecked = crcChecked;
        this.handler = handler;
    }

    /** {@link DecodeStatus#OK}, or the first error seen. */
    public DecodeStatus status() {
        return status;
    }

    /** Octets consumed so far in Full Operation, Markers included. */
    public long position() {
        return position;
    }

    /** Whether the stream is between FPDUs (a clean point to stop). */
    public boolean idle() {
        return phase == READING_LENGTH && fill == 0 && !crcStarted;
    }

    /**
     * Consumes all remaining octets of {@code source}, delivering every FPDU completed on the way.
     *
     * @return {@link DecodeStatus#OK}, or the first error ({@link DecodeStatus#MPA_CRC},
     *         {@link DecodeStatus#MPA_MARKER}); after an error all input is discarded
     */
    public DecodeStatus receive(ByteBuffer source) {
        while (status.ok() && source.hasRemaining()) {
            int inInterval = (int) (position % MpaFpdu.MARKER_INTERVAL);
            if (markers && inInterval < MpaFpdu.MARKER_LENGTH) {
                readMarker(source, inInterval);
                continue;
            }
            int untilMarker = markers ? MpaFpdu.MARKER_INTERVAL - inInterval : Integer.MAX_VALUE;
            switch (phase) {
                case READING_LENGTH -> readLength(source, untilMarker);
                case READING_BODY -> readBody(source, untilMarker);
                default -> readCrc(source, untilMarker);
            }
        }
        if (!status.ok()) {
            source.position(source.limit());
        }
        return status;
    }

    private void readMarker(ByteBuffer source, int have) {
        int take = Math.min(MpaFpdu.MARKER_LENGTH - have, source.remaining());
        source.get(marker, have, take);
        position += take;
        if (have + take < MpaFpdu.MARKER_LENGTH) {
            return;
        }
        long markerStart = position - MpaFpdu.MARKER_LENGTH;
        int pointer = ((marker[2] & 0xFF) << 8 | marker[3] & 0xFF) & ~3; // low two bits count as zero (§4.3)
        long expected;
        if (idle()) {
            expected = 0; // between FPDUs: the marker belongs to the next FPDU and starts its CRC
            crc.reset();
            crcStarted = true;
        } else {
            expected = markerStart - header;
        }
        if (pointer != expected) {
            status = DecodeStatus.MPA_MARKER;
            return;
        }
        if (phase != READING_CRC || crcFill == 0) {
            // every Marker from the FPDU's start up to its CRC field is covered, one right after the PAD too (§4.4)
            crc.update(marker, 0, MpaFpdu.MARKER_LENGTH);
        }
    }

    private void readLength(ByteBuffer source, int untilMarker) {
        if (fill == 0) {
            header = position;
            if (!crcStarted) {
                crc.reset();
                crcStarted = true;
            }
        }
        int take = Math.min(Math.min(MpaFpdu.ULPDU_LENGTH_LENGTH - fill, source.remaining()), untilMarker);
        copy(source, take);
        if (fill == MpaFpdu.ULPDU_LENGTH_LENGTH) {
            ulpduLength = fpdu.getShort(0) & 0xFFFF;
            bodyEnd = MpaFpdu.ULPDU_LENGTH_LENGTH + ulpduLength + MpaFpdu.padLength(ulpduLength);
            phase = READING_BODY;
        }
    }

    private void readBody(ByteBuffer source, int untilMarker) {
        copy(source, Math.min(Math.min(bodyEnd - fill, source.remaining()), untilMarker));
        if (fill == bodyEnd) {
            phase = READING_CRC;
            crcFill = 0;
            receivedCrc = 0;
        }
    }

    private void readCrc(ByteBuffer source, int untilMarker) {
        int take = Math.min(Math.min(MpaFpdu.CRC_LENGTH - crcFill, source.remaining()), untilMarker);
        for (int i = 0; i < take; i++) {
            receivedCrc |= (source.get() & 0xFF) << 8 * (crcFill + i); // least significant octet first
        }
        crcFill += take;
        position += take;
        if (crcFill < MpaFpdu.CRC_LENGTH) {
            return;
        }
        if (crcChecked && receivedCrc != (int) crc.getValue()) {
            status = DecodeStatus.MPA_CRC;
            return;
        }
        phase = READING_LENGTH;
        fill = 0;
        crcStarted = false;
        header = -1;
        handler.onUlpdu(fpduSegment, MpaFpdu.ULPDU_LENGTH_LENGTH, ulpduLength);
    }

    /** Moves {@code count} octets of the current FPDU from {@code source} into {@link #fpdu} and the CRC. */
    private void copy(ByteBuffer source, int count) {
        fpdu.put(fill, source, source.position(), count);
        source.position(source.position() + count);
        fpdu.limit(fill + count).position(fill);
        crc.update(fpdu);
        fpdu.clear();
        fill += count;
        position += count;
    }
}
