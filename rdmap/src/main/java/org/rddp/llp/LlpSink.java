package org.rddp.llp;

import java.lang.foreign.MemorySegment;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.TerminateCause;

/** What an LLP stream reports to the engine above it. Every method runs on the stream's owner thread. */
public interface LlpSink {

    /**
     * Zero-copy placement: the LLP holds the header of a tagged segment (bound in {@code header}, whose length
     * covers only the header) and asks where its {@code payloadLength} octets belong. The engine validates the
     * STag and range and fills {@code target}; the LLP then moves the payload there itself and later hands the
     * segment over with {@link #onSegment} and {@code payloadPlaced = true}. Used by LLPs that read payload
     * straight from the wire, and by those that receive out of order and place tagged data as it arrives
     * (RFC 5043 §10).
     *
     * @return false if the engine wants the payload delivered through {@link #onSegment} instead (an invalid
     *         STag, for instance, which it reports when the segment's turn comes)
     */
    boolean placeTagged(DdpSegment header, int payloadLength, PlacementTarget target);

    /**
     * The next DDP segment in send order, valid during the call.
     *
     * @param payloadPlaced the payload was already placed through {@link #placeTagged}; {@code length} then
     *                      still counts it, but the octets after the header need not be present in {@code buffer}
     */
    void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced);

    /**
     * There is room again after {@link LlpStream#BACK_PRESSURED}, or the transport took what the stream held when
     * a {@link LlpStream#flush} left some of it behind.
     */
    void onWritable();

    /**
     * The LLP found an error it has a Terminate cause for (an MPA CRC error, say): the engine sends a Terminate
     * with it, with no headers (RFC 5040 §4.8 Fig. 10), and closes. No further segment is delivered.
     */
    void onLlpError(TerminateCause cause, String detail);

    /**
     * The stream is down in both directions. {@code graceful} is true when it closed in order after
     * {@link LlpStream#close} on either side, false when it was lost or aborted.
     */
    void onClosed(boolean graceful, String reason);

    /**
     * The stream's path changed (a multi-homed SCTP association's path failed, came back, or another became the
     * primary); the stream goes on. {@code detail} says which, for a person.
     */
    default void onPathChanged(String detail) {
        // a sink that does not care
    }
}
