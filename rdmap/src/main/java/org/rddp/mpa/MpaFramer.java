package org.rddp.mpa;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.rddp.wire.Wire;

/**
 * The sending half of MPA Full Operation for one direction of one connection (RFC 5044 §4): turns ULPDUs into
 * FPDUs with PAD and CRC32c, inserting a Marker at every 512th octet of the stream when the peer asked for
 * them. Not thread-safe: one owner thread per connection.
 *
 * <p>Stream positions count from the first octet of Full Operation in this direction (SeqStart of §4.3), so
 * the first FPDU is preceded by a Marker with FPDUPTR 0 when Markers are on. The CRC value is written least
 * significant octet first, as the hex dumps of RFC 5044 §4.4 show ({@link MpaFpdu#putCrcField}).
 *
 * <p>A sending stream frames through {@link #frame(MemorySegment, long, int, MemorySegment, long, int, ByteBuffer)},
 * which takes the DDP segment's header and payload where they lie, or, for an FPDU whose payload is sent in place
 * (without Markers), {@link #frameAround} builds the parts before and after it, one after the other.
 */
public final class MpaFramer {
    private final boolean markers;
    private final boolean crcEnabled;
    private final CRC32C crc = new CRC32C();
    private long position;
    /** The destination buffer last framed into; its memory from index 0; a view of it the CRC reads through. */
    private ByteBuffer viewed;
    private MemorySegment view;
    /** Its own position and limit, so that the destination's stay as they are. */
    private ByteBuffer crcView;

    /**
     * @param markers    insert Markers (the peer's M bit, RFC 5044 §7.1.1)
     * @param crcEnabled compute CRCs (either side's C bit); when off the CRC field is sent as zero
     */
    public MpaFramer(boolean markers, boolean crcEnabled) {
        this.markers = markers;
        this.crcEnabled = crcEnabled;
    }

    /** Octets sent so far in Full Operation, Markers included. */
    public long position() {
        return position;
    }

    /** Octets the next FPDU takes on the wire for a ULPDU of {@code ulpduLength}, Markers included. */
    public int wireLength(int ulpduLength) {
        int span = MpaFpdu.fpduLength(ulpduLength);
        if (!markers) {
            return span;
        }
        long boundary = Math.ceilDiv(position, MpaFpdu.MARKER_INTERVAL) * MpaFpdu.MARKER_INTERVAL;
        while (boundary < position + span) {
            span += MpaFpdu.MARKER_LENGTH;
            boundary += MpaFpdu.MARKER_INTERVAL;
        }
        return span;
    }

    /**
     * Frames a ULPDU made of {@code headerLength} octets of {@code header} then {@code payloadLength} of
     * {@code payload} into {@code destination} at its position, which advances; nothing is copied twice.
     *
     * @return octets written, {@link #wireLength(int)} of the ULPDU
     * @throws IllegalArgumentException as {@link #frame(ByteBuffer, ByteBuffer)}
     */
    public int frame(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength, ByteBuffer destination) {
        int ulpduLength = headerLength + payloadLength;
        int wireLength = checkedWireLength(ulpduLength, destination);
        if (markers) {
            return frame(ulpduLength, destination, wireLength, header, headerOffset, headerLength, payload,
                    payloadOffset, payloadLength);
        }
        int start = destination.position();
        MemorySegment memory = memoryOf(destination);
        destination.putShort((short) ulpduLength);
        Wire.copy(header, headerOffset, memory, start + MpaFpdu.ULPDU_LENGTH_LENGTH, headerLength);
        Wire.copy(payload, payloadOffset, memory, start + MpaFpdu.ULPDU_LENGTH_LENGTH + headerLength, payloadLength);
        int end = start + MpaFpdu.ULPDU_LENGTH_LENGTH + ulpduLength;
        for (int pad = MpaFpdu.padLength(ulpduLength); pad > 0; pad--) {
            destination.put(end++, (byte) 0);
        }
        seal(destination, start, end);
        position += wireLength;
        return wireLength;
    }

    /**
     * Forgets an FPDU whose framing failed part way (its payload's memory failed under the copy): the stream position,
     * which places the Markers, goes back to {@code to}, what {@link #position()} was before it. The caller drops the
     * octets written.
     */
    public void rewind(long to) {
        if (to > position) {
            throw new IllegalArgumentException("cannot rewind forward, from " + position + " to " + to);
        }
        position = to;
    }

    /** The memory of {@code destination} from index 0, kept while a sending stream frames into the same buffer. */
    private MemorySegment memoryOf(ByteBuffer destination) {
        if (destination != viewed) {
            view = MemorySegment.ofBuffer(destination.duplicate().clear());
            crcView = destination.duplicate().clear();
            viewed = destination;
        }
        return view;
    }

    /** Adds {@code from} to {@code to} of {@code destination} to the CRC. */
    private void crcOver(ByteBuffer destination, int from, int to) {
        memoryOf(destination);
        crc.update(crcView.limit(to).position(from));
    }

    /** Puts the CRC field over {@code start} to {@code end} of {@code destination} (zero without CRCs), after it. */
    private void seal(ByteBuffer destination, int start, int end) {
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            crcOver(destination, start, end);
            value = (int) crc.getValue();
        }
        MpaFpdu.putCrcField(destination, end, value);
        destination.position(end + MpaFpdu.CRC_LENGTH);
    }

    /** Adds the remaining octets of {@code buffer} to the CRC, leaving its position where it was. */
    private void update(ByteBuffer buffer) {
        int at = buffer.position();
        crc.update(buffer);
        buffer.position(at);
    }

    /**
     * For an FPDU whose payload leaves in place (a gathering write), without Markers: frames around {@code body} (the
     * payload, position to limit, left as it was) into {@code destination} at its position — the 2-octet
     * ULPDU_Length and the {@code headerLength}-octet header, then at once PAD and the CRC, which covers those, the
     * body and PAD — and advances the position past the CRC. On the wire the FPDU is the destination's octets from
     * the old position to the returned index, the body, then the destination's octets from that index to the new
     * position.
     *
     * @return the index in {@code destination} where the head ends and PAD begins
     * @throws IllegalArgumentException if the ULPDU exceeds 64768 octets or {@code destination} has no room for
     *                                  the head and tail; nothing is written then
     */
    public int frameAround(MemorySegment header, long headerOffset, int headerLength, ByteBuffer body,
            ByteBuffer destination) {
        if (markers) {
            throw new IllegalStateException("an FPDU with Markers is framed whole: Markers fall inside its payload");
        }
        int ulpduLength = headerLength + body.remaining();
        if (ulpduLength > MpaFpdu.MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU of " + ulpduLength + " octets exceeds " + MpaFpdu.MAX_ULPDU
                    + " (RFC 5044 §3)");
        }
        int start = destination.position();
        int split = start + MpaFpdu.ULPDU_LENGTH_LENGTH + headerLength;
        int end = split + MpaFpdu.padLength(ulpduLength);
        if (destination.limit() < end + MpaFpdu.CRC_LENGTH) {
            throw new IllegalArgumentException("head and tail need " + (end + MpaFpdu.CRC_LENGTH - start)
                    + " octets, destination has " + destination.remaining());
        }
        destination.putShort(start, (short) ulpduLength);
        Wire.copy(header, headerOffset, memoryOf(destination), start + MpaFpdu.ULPDU_LENGTH_LENGTH, headerLength);
        for (int at = split; at < end; at++) {
            destination.put(at, (byte) 0);
        }
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            crcOver(destination, start, split);
            update(body);
            crcOver(destination, split, end);
            value = (int) crc.getValue();
        }
        MpaFpdu.putCrcField(destination, end, value);
        destination.position(end + MpaFpdu.CRC_LENGTH);
        position += MpaFpdu.fpduLength(ulpduLength);
        return split;
    }

    /**
     * Frames the remaining octets of {@code ulpdu} into {@code destination} and advances both buffers.
     *
     * @return octets written, {@link #wireLength(int)} of the ULPDU
     * @throws IllegalArgumentException if the ULPDU exceeds 64768 octets or {@code destination} has less room
     *                                  than {@link #wireLength(int)}; nothing is written then
     */
    public int frame(ByteBuffer ulpdu, ByteBuffer destination) {
        int ulpduLength = ulpdu.remaining();
        int wireLength = checkedWireLength(ulpduLength, destination);
        MemorySegment octets = MemorySegment.ofBuffer(ulpdu);
        ulpdu.position(ulpdu.limit());
        return frame(ulpduLength, destination, wireLength, octets, 0, ulpduLength, octets, 0, 0);
    }

    private int checkedWireLength(int ulpduLength, ByteBuffer destination) {
        if (ulpduLength > MpaFpdu.MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU of " + ulpduLength + " octets exceeds " + MpaFpdu.MAX_ULPDU
                    + " (RFC 5044 §3)");
        }
        int wireLength = wireLength(ulpduLength);
        if (destination.remaining() < wireLength) {
            throw new IllegalArgumentException("FPDU needs " + wireLength + " octets, destination has "
                    + destination.remaining());
        }
        return wireLength;
    }

    /** Frames the ULPDU made of the two parts, Markers inserted where due. */
    private int frame(int ulpduLength, ByteBuffer destination, int wireLength, MemorySegment first, long firstOffset,
            int firstLength, MemorySegment second, long secondOffset, int secondLength) {
        int start = destination.position();
        if (markerDue()) {
            putMarker(destination, 0); // falls between FPDUs: belongs to, and is covered by the CRC of, this one
        }
        long header = position;
        destination.putShort((short) ulpduLength);
        position += MpaFpdu.ULPDU_LENGTH_LENGTH;
        putBody(first, firstOffset, firstLength, destination, header);
        putBody(second, secondOffset, secondLength, destination, header);
        putBody(null, 0, MpaFpdu.padLength(ulpduLength), destination, header);
        if (markerDue()) {
            putMarker(destination, (int) (position - header)); // right after the PAD: covered by the CRC
        }
        seal(destination, start, destination.position());
        position += MpaFpdu.CRC_LENGTH;
        assert destination.position() - start == wireLength;
        return wireLength;
    }

    /** Copies {@code count} octets of {@code source} (zeros if null) with Markers at every interval boundary. */
    private void putBody(MemorySegment source, long offset, int count, ByteBuffer destination, long header) {
        int left = count;
        long from = offset;
        while (left > 0) {
            if (markerDue()) {
                putMarker(destination, (int) (position - header));
            }
            int chunk = markers ? (int) Math.min(left, MpaFpdu.MARKER_INTERVAL - position % MpaFpdu.MARKER_INTERVAL)
                    : left;
            if (source == null) {
                for (int i = 0; i < chunk; i++) {
                    destination.put((byte) 0);
                }
            } else {
                MemorySegment.copy(source, from, memoryOf(destination), destination.position(), chunk);
                destination.position(destination.position() + chunk);
                from += chunk;
            }
            position += chunk;
            left -= chunk;
        }
    }

    private boolean markerDue() {
        return markers && position % MpaFpdu.MARKER_INTERVAL == 0;
    }

    private void putMarker(ByteBuffer destination, int fpduPointer) {
        destination.putShort((short) 0);
        destination.putShort((short) fpduPointer);
        position += MpaFpdu.MARKER_LENGTH;
    }
}
