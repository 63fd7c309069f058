package org.rddp.llp;

import java.lang.foreign.MemorySegment;

/**
 * One LLP stream carrying one DDP stream, as a transport offers it to the engine (RFC 5041 §3): it sends whole
 * DDP segments, preserves their boundaries, delivers them to the {@link LlpSink} in the order they were sent
 * (an LLP that receives out of order re-sequences, and may place tagged payload early through
 * {@link LlpSink#placeTagged}), reports its MULPDU and its errors, and pushes back when full.
 *
 * <p>A stream lives on one {@link org.rddp.loop.Loop}, whose poller owns its socket: every call here is made on
 * that loop's thread, and the stream calls its sink only there.
 */
public interface LlpStream {
    /** {@link #send} outcome: the LLP took responsibility for the segment. */
    int SENT = 0;
    /** {@link #send} outcome: nothing was taken; {@link LlpSink#onWritable()} follows when there is room. */
    int BACK_PRESSURED = 1;
    /** {@link #send} outcome: the stream is closed; nothing was taken and nothing will be. */
    int CLOSED = 2;

    /** What connection setup negotiated. */
    LlpParameters parameters();

    /** Largest DDP segment, header included, that {@link #send} accepts now. At least 128 (RFC 5044 §4.5). */
    int mulpdu();

    /**
     * The largest DDP segment, header included, that would still join the packet the LLP is filling with the segments
     * sent since its last {@link #flush} ({@link #mulpdu()} when it starts a packet, or when its segments never share
     * one). SCTP bundles a burst's segments into packets, each a whole DATA chunk (RFC 5043 §9 forbids fragmenting
     * them): a message longer than one segment whose first segment is cut to this size leaves no packet part-filled
     * behind the previous message's last segment. A hint: {@link #send} still takes any segment up to
     * {@link #mulpdu()}. Owner thread.
     */
    default int packetRoom() {
        return mulpdu();
    }

    /** Starts delivery to {@code sink}; called once, on the owner thread. */
    void start(LlpSink sink);

    /**
     * Sends one DDP segment made of {@code headerLength} octets of header followed by {@code payloadLength}
     * octets of payload (gathered). The LLP copies or transmits the header before returning {@link #SENT}; the
     * payload too, unless it {@linkplain #holdsPayload holds} it to send where it lies. Owner thread.
     *
     * @return {@link #SENT}, {@link #BACK_PRESSURED} or {@link #CLOSED}
     */
    int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload, long payloadOffset,
            int payloadLength);

    /**
     * Sends what {@link #send} took and held back. An LLP may keep the segments it took (copied) to send several
     * at once, as MPA does with FPDUs smaller than a TCP write is worth; the engine calls this whenever it stops
     * sending for now, so nothing stays held once the owner thread moves on. Owner thread.
     */
    default void flush() {
        // nothing is held back
    }

    /**
     * {@link #flush()} after a burst of {@code messages} messages (Writes, Sends, Reads and Read Responses the engine
     * sent since its last flush). An LLP that gathers may carry what it holds over to the loop's next duty cycle
     * when the burst was a stream of many (the application keeps posting): the next burst then joins it in one write,
     * as a TCP stream's writes of many small messages would; it sends it by the end of the next cycle that brings
     * nothing more, and at once when it holds enough for one write or when one message came alone (a request that
     * waits for its answer). Owner thread.
     */
    default void flush(int messages) {
        flush();
    }

    /**
     * Whether the LLP still reads payload memory that {@link #send} took: it sends some payloads where they lie,
     * not copied, and has not handed all of them to its transport yet. The engine reports no send complete while
     * this holds (the application may reuse a completed send's memory at once), and does not put a payload into
     * memory of its own that a held one may still lie in. A {@link #flush} that the transport takes whole ends it;
     * otherwise it ends by the time the LLP calls {@link LlpSink#onWritable()}, or when the stream goes down. Owner
     * thread.
     */
    default boolean holdsPayload() {
        return false;
    }

    /**
     * How many times the LLP has handed everything it held to its transport (a write that took it all): a send the
     * engine finished while the LLP {@linkplain #holdsPayload held} a payload is complete once this count has moved
     * on, even if the LLP holds later ones by then. What the LLP drops (the stream went down, a payload's memory
     * failed) does not count. Owner thread.
     */
    default long releases() {
        return 0;
    }

    /**
     * Whether segments sent together, up to a {@link #flush}, cost less than each alone: MPA writes the FPDUs it held
     * in one {@code writev}; SCTP lets its stack bundle the burst's messages into full packets. The engine then takes
     * the posts an application thread makes to its own manual loop at the loop's next duty cycle, all together,
     * instead of one by one as they come: the posts of one turn of the application leave together. A stream that
     * hands each segment to its stack alone gains nothing from that, and its posts run at once.
     */
    default boolean gathers() {
        return false;
    }

    /**
     * The paths of the connection under this stream, as its transport sees them now ({@link LlpPath}); empty when it
     * does not say. On SCTP they are the association's, shared by every stream it carries. Owner thread.
     */
    default java.util.List<LlpPath> paths() {
        return java.util.List.of();
    }

    /**
     * Makes the path to {@code peer}, one of {@link #paths()}' addresses, the primary path: the one traffic goes to
     * while it is active (RFC 9260 §5.1.2; SCTP's {@code SCTP_PRIMARY_ADDR}). On SCTP it is the association's, for
     * every stream it carries. Owner thread.
     *
     * @throws java.io.IOException the transport has no such path, or cannot choose (a TCP connection has one path)
     */
    default void choosePrimaryPath(java.net.InetSocketAddress peer) throws java.io.IOException {
        throw new java.io.IOException("this connection has one path: there is no other to choose");
    }

    /**
     * The counters this stream's events go to: its connection manager's ({@link Counters#create}), by default the
     * process's.
     */
    default Counters counters() {
        return Counters.process();
    }

    /**
     * Closes gracefully: segments already sent, held back ones included, are delivered, then the peer sees the
     * close. The sink gets {@link LlpSink#onClosed} when the stream is down in both directions. Owner thread.
     */
    void close();

    /**
     * Tears the stream down at once, dropping what was not delivered; the sink gets {@link LlpSink#onClosed}.
     * Owner thread.
     */
    void abort();
}
