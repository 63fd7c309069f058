package org.rddp.engine;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;

/**
 * The queue pair around an engine: where work comes from and where completions and events go. Implemented by
 * the verbs layer; called on the stream's owner thread.
 */
public interface WorkQueues {

    /**
     * The next posted send work request, or {@code null}. Called only while the engine sends (RTS or CLOSING): the
     * engine is then the send queue's one consumer, and the one that gives its slots back ({@link #sendCompleted}).
     */
    SendWork nextSend();

    /**
     * Completes every send work request still posted with WR_FLUSH_ERR, in order: the engine no longer sends
     * (TERMINATE, ERROR), and posts that raced with that change are flushed here. Unlike
     * {@link #nextSend}, it may be called by an engine its queue pair has already left behind (reset to IDLE and
     * attached again): it must then do nothing.
     */
    void flushSends();

    /** The next posted receive, from the receive queue or the shared receive queue, or {@code null}. */
    ReceiveWork nextReceive();

    /** A send work request is finished; the slot goes back to the queue pair. */
    void sendCompleted(SendWork work, WcStatus status, long byteLength);

    /**
     * A receive is finished.
     *
     * @param opcode          the Send that filled it, or {@code null} when flushed
     * @param invalidatedStag the STag a Send with Invalidate invalidated, else 0
     */
    void receiveCompleted(ReceiveWork work, WcStatus status, long byteLength, RdmapOpcode opcode,
            int invalidatedStag);

    /** Flushes the receives still posted on the queue pair's own receive queue (not a shared one). */
    void flushReceives();

    /** Carries out a local operation (bind a window, invalidate an STag); returns its status. */
    WcStatus executeLocal(SendWork work);

    /** The engine moved to {@code state}. */
    void stateChanged(QpState state);

    /**
     * An asynchronous event.
     *
     * @param terminate the Terminate sent or received, for the TERMINATE events; else {@code null}
     * @param detail    what happened, for a person
     */
    void event(QpEvent event, TerminateHeader terminate, String detail);
}
