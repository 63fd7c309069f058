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
 * <p>Without Markers an FPDU that lies whole in the input is checked and handed over where it lies, without a copy
 * (the fast path: the receiving stream's buffer); only one cut by the end of the input is copied, to be completed
 * by the next input. With Markers every FPDU is copied as its Markers are stripped.
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

    private static final int LARGEST_FPDU = MpaFpdu.fpduLength(MpaFpdu.MAX_ULPDU_LENGTH_FIELD);

    private final boolean markers;
    private final boolean crcChecked;
    private final UlpduHandler handler;
    /**
     * ULPDU_Length, ULPDU and PAD of the current FPDU, Markers stripped (and, without Markers, its CRC): made on the
     * first FPDU that has to be copied, so a stream whose FPDUs arrive whole needs none.
     */
    private ByteBuffer fpdu;
    private MemorySegment fpduSegment;
    /** The last input handed to the fast path, a view of it and its memory: asked for again on every read. */
    private ByteBuffer input;
    private ByteBuffer inputView;
    private MemorySegment inputSegment;
    private String detail = "";
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

    /** What the first error was, for a person: where, and the CRC values; empty while there is none. */
    public String detail() {
        return detail;
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
        if (!markers) {
            return receiveInPlace(source);
        }
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

    /**
     * Without Markers: hands over every FPDU that lies whole in {@code source} where it lies (the segment the handler
     * gets covers all of {@code source}'s memory: offsets are {@code source}'s indices), and copies one cut short by
     * the end of the input to complete it from the next.
     */
    private DecodeStatus receiveInPlace(ByteBuffer source) {
        while (status.ok() && source.hasRemaining()) {
            if (fill > 0) {
                completeCopied(source);
                continue;
            }
            int at = source.position();
            int available = source.remaining();
            if (available < MpaFpdu.ULPDU_LENGTH_LENGTH) {
                copy(source, available);
                break;
            }
            int length = ((source.get(at) & 0xFF) << 8) | (source.get(at + 1) & 0xFF);
            int covered = MpaFpdu.ULPDU_LENGTH_LENGTH + length + MpaFpdu.padLength(length);
            if (available < covered + MpaFpdu.CRC_LENGTH) {
                copy(source, available); // the rest comes with the next input
                break;
            }
            ByteBuffer view = view(source);
            if (crcChecked && !crcMatches(view, at, covered, MpaFpdu.crcField(source, at + covered))) {
                break;
            }
            source.position(at + covered + MpaFpdu.CRC_LENGTH);
            position += covered + MpaFpdu.CRC_LENGTH;
            handler.onUlpdu(inputSegment, at + MpaFpdu.ULPDU_LENGTH_LENGTH, length);
        }
        if (!status.ok()) {
            source.position(source.limit());
        }
        return status;
    }

    /** Completes the copied FPDU from {@code source}, and hands it over once whole and checked. */
    private void completeCopied(ByteBuffer source) {
        int need = fill < MpaFpdu.ULPDU_LENGTH_LENGTH ? MpaFpdu.ULPDU_LENGTH_LENGTH
                : MpaFpdu.fpduLength(fpdu.getShort(0) & 0xFFFF);
        copy(source, Math.min(need - fill, source.remaining()));
        if (fill < need || fill == MpaFpdu.ULPDU_LENGTH_LENGTH) {
            return; // more to come, or the length is in and the rest follows
        }
        int length = fpdu.getShort(0) & 0xFFFF;
        int covered = MpaFpdu.ULPDU_LENGTH_LENGTH + length + MpaFpdu.padLength(length);
        fill = 0;
        if (!crcChecked || crcMatches(fpdu.duplicate(), 0, covered, MpaFpdu.crcField(fpdu, covered))) {
            handler.onUlpdu(fpduSegment, MpaFpdu.ULPDU_LENGTH_LENGTH, length);
        }
    }

    /** Whether the CRC32c over {@code covered} octets at {@code at} of {@code view} is {@code received}. */
    private boolean crcMatches(ByteBuffer view, int at, int covered, int received) {
        view.limit(at + covered).position(at);
        crc.reset();
        crc.update(view);
        int computed = (int) crc.getValue();
        if (received == computed) {
            return true;
        }
        status = DecodeStatus.MPA_CRC;
        detail = String.format("CRC mismatch in the FPDU at stream octet %d: received 0x%08x, computed 0x%08x",
                position, received, computed);
        return false;
    }

    /** A view of {@code source} (and its memory from index 0), made again only when the input changes. */
    private ByteBuffer view(ByteBuffer source) {
        if (source != input) {
            input = source;
            inputView = source.duplicate();
            inputSegment = MemorySegment.ofBuffer(source.duplicate().clear());
        }
        return inputView;
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
            detail = "a Marker at stream octet " + markerStart + " points " + pointer + " back, the FPDU started "
                    + expected + " back";
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
            detail = String.format("CRC mismatch in the FPDU at stream octet %d: received 0x%08x, computed 0x%08x",
                    header, receivedCrc, (int) crc.getValue());
            return;
        }
        phase = READING_LENGTH;
        fill = 0;
        crcStarted = false;
        header = -1;
        handler.onUlpdu(fpduSegment, MpaFpdu.ULPDU_LENGTH_LENGTH, ulpduLength);
    }

    /**
     * Moves {@code count} octets of the current FPDU from {@code source} into {@link #fpdu} (and, with Markers, into
     * the CRC, which is computed as the FPDU comes; without, it is computed once the FPDU is whole).
     */
    private void copy(ByteBuffer source, int count) {
        if (fpdu == null) {
            fpdu = ByteBuffer.allocateDirect(LARGEST_FPDU);
            fpduSegment = MemorySegment.ofBuffer(fpdu);
        }
        fpdu.put(fill, source, source.position(), count);
        source.position(source.position() + count);
        if (markers) {
            fpdu.limit(fill + count).position(fill);
            crc.update(fpdu);
            fpdu.clear();
        }
        fill += count;
        position += count;
    }
}
