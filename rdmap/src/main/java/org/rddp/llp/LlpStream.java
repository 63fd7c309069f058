package org.rddp.llp;

import java.lang.foreign.MemorySegment;

/**
 * One LLP stream carrying one DDP stream, as a transport offers it to the engine (RFC 5041 §3): it sends whole
 * DDP segments, preserves their boundaries, delivers them to the {@link LlpSink} in the order they were sent
 * (an LLP that receives out of order re-sequences, and may place tagged payload early through
 * {@link LlpSink#placeTagged}), reports its MULPDU and its errors, and pushes back when full.
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

    /** Starts delivery to {@code sink}; called once, on any thread. */
    void start(LlpSink sink);

    /**
     * Sends one DDP segment made of {@code headerLength} octets of header followed by {@code payloadLength}
     * octets of payload (gathered; the LLP copies or transmits both before returning {@link #SENT}). Owner thread.
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

    /** The event loop that owns the stream: the engine on it never needs a lock. */
    EventLoop loop();

    /** Runs {@code task} on the owner thread, after tasks handed over before it. Any thread. */
    default void execute(Runnable task) {
        loop().execute(task);
    }

    /** Whether the caller is the owner thread. */
    default boolean inOwnerThread() {
        return loop().inEventLoop();
    }

    /**
     * Runs idempotent {@code work} on the calling thread as the owner, if the owner is idle; returns false
     * otherwise, and the caller hands the work over with {@link #execute}. Any thread; allocates nothing.
     */
    default boolean tryRun(Runnable work) {
        return loop().tryRun(work);
    }

    /**
     * Work that moves the stream forward when run as the owner (reading what arrived), for a consumer that
     * waits on a completion queue to run through {@link #tryRun} instead of waiting for the owner thread to
     * wake; null if the LLP has none.
     */
    default Runnable progress() {
        return null;
    }

    /**
     * Told that a consumer which ran {@link #progress()} stops polling for a while (it sleeps on a completion
     * queue): an LLP whose own thread leaves the reading to a polling consumer must read again itself, at once.
     * Any thread; allocates nothing.
     */
    default void progressPaused() {
        // the LLP's own thread never leaves the reading to a consumer
    }

    /**
     * Closes gracefully: segments already sent, held back ones included, are delivered, then the peer sees the
     * close. The sink gets {@link LlpSink#onClosed} when the stream is down in both directions. Owner thread.
     */
    void close();

    /** Tears the stream down at once, dropping what was not delivered. Any thread. */
    void abort();
}
