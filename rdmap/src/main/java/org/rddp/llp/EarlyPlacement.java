package org.rddp.llp;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.Wire;
import org.rddp.ddp.DdpSegment;

/**
 * Places the payload of a tagged DDP segment that arrived ahead of its turn (RFC 5041 §5.3 lets placement
 * happen out of order; RFC 5043 §10 has the SCTP adaptation do it): for LLPs that re-sequence segments before
 * handing them to the engine. One instance per owner thread; allocates nothing.
 */
public final class EarlyPlacement {
    private final DdpSegment probe = new DdpSegment();
    private final PlacementTarget target = new PlacementTarget();

    /** A placer with its own scratch flyweights. */
    public EarlyPlacement() {
        // scratch state only
    }

    /**
     * If the {@code length} octets at {@code offset} are a well-formed tagged segment with payload and
     * {@code sink} accepts its placement, copies the payload there and returns true; the segment must then be
     * handed over later with {@code payloadPlaced = true}. Otherwise returns false and places nothing: also when the
     * target's memory cannot be reached from here (its arena closed, or confined to another thread), so that the
     * segment reaches the engine in its turn and fails there, as any placement into such memory does (a Terminate,
     * an error to the user), rather than in the LLP, where nobody would answer for it.
     */
    public boolean place(LlpSink sink, MemorySegment buffer, long offset, int length) {
        if (!probe.wrap(buffer, offset, length).ok() || !probe.tagged()) {
            return false;
        }
        int payload = probe.payloadLength();
        probe.bind(buffer, offset, DdpSegment.TAGGED_HEADER_LENGTH);
        if (payload == 0 || !sink.placeTagged(probe, payload, target)) {
            return false;
        }
        try {
            Wire.copy(buffer, offset + DdpSegment.TAGGED_HEADER_LENGTH, target.memory(), target.offset(),
                    payload); // checks the memory is reachable before it copies anything
        } catch (IllegalStateException | WrongThreadException e) {
            return false;
        }
        return true;
    }
}
