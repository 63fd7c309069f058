package org.rddp.mpa;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The sending half of MPA Full Operation for one direction of one connection (RFC 5044 §4): turns ULPDUs into
 * FPDUs with PAD and CRC32c, inserting a Marker at every 512th octet of the stream when the peer asked for
 * them. Not thread-safe: one owner thread per connection.
 *
 * <p>Stream positions count from the first octet of Full Operation in this direction (SeqStart of §4.3), so
 * the first FPDU is preceded by a Marker with FPDUPTR 0 when Markers are on. The CRC value is written least
 * significant octet first, as the hex dumps of RFC 5044 §4.4 show.
 */
public final class MpaFramer {
    private final boolean markers;
    private final boolean crcEnabled;
    private final CRC32C crc = new CRC32C();
    private long position;

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
     * Frames the remaining octets of {@code ulpdu} into {@code destination} and advances both buffers.
     *
     * @return octets written, {@link #wireLength(int)} of the ULPDU
     * @throws IllegalArgumentException if the ULPDU exceeds 64768 octets or {@code destination} has less room
     *                                  than {@link #wireLength(int)}; nothing is written then
     */
    public int frame(ByteBuffer ulpdu, ByteBuffer destination) {
        int ulpduLength = ulpdu.remaining();
        if (ulpduLength > MpaFpdu.MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU of " + ulpduLength + " octets exceeds " + MpaFpdu.MAX_ULPDU
                    + " (RFC 5044 §3)");
        }
        int wireLength = wireLength(ulpduLength);
        if (destination.remaining() < wireLength) {
            throw new IllegalArgumentException("FPDU needs " + wireLength + " octets, destination has "
                    + destination.remaining());
        }
        int start = destination.position();
        if (markerDue()) {
            putMarker(destination, 0); // falls between FPDUs: belongs to, and is covered by the CRC of, this one
        }
        long header = position;
        destination.putShort((short) ulpduLength);
        position += MpaFpdu.ULPDU_LENGTH_LENGTH;
        putBody(ulpdu, ulpduLength, destination, header);
        putBody(null, MpaFpdu.padLength(ulpduLength), destination, header);
        if (markerDue()) {
            putMarker(destination, (int) (position - header)); // right after the PAD: covered by the CRC
        }
        int value = 0;
        if (crcEnabled) {
            int end = destination.position();
            int limit = destination.limit();
            destination.limit(end).position(start);
            crc.reset();
            crc.update(destination); // leaves the position at end
            destination.limit(limit);
            value = (int) crc.getValue();
        }
        destination.putInt(Integer.reverseBytes(value));
        position += MpaFpdu.CRC_LENGTH;
        return destination.position() - start;
    }

    /** Copies {@code count} octets of {@code source} (zeros if null) with Markers at every interval boundary. */
    private void putBody(ByteBuffer source, int count, ByteBuffer destination, long header) {
        int left = count;
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
                destination.put(destination.position(), source, source.position(), chunk);
                destination.position(destination.position() + chunk);
                source.position(source.position() + chunk);
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
