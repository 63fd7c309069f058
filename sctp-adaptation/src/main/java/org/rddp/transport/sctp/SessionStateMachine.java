package org.rddp.transport.sctp;

import org.rddp.sctp.SessionControl;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;

/**
 * The session control of one DDP stream (RFC 5043 §6, with the enhanced messages of RFC 6581 §7): which session
 * control messages and DDP segments are legal in which state, and what each one does. It decides; its I/O shell
 * ({@link DdpStreamSession}) carries out the {@link Effects}. A message that fits no legal sequence ends the
 * session with a Session Terminate, and so does an abort; the stream then drains until the peer's Terminate has come
 * in its turn, so that it is not reused while chunks of the old session may be in flight (§6.6). A stream that drains
 * after a chunk that came with no session open (there is no Terminate to wait for) takes a new session again when
 * the peer's Initiate comes at DDP-SSN 0: every Initiate gets an answer (§6.2–§6.4). Not thread-safe: the
 * association's loop.
 */
final class SessionStateMachine {
    /** Session states, derived from the legal sequences of RFC 5043 §6. */
    enum State {
        /** No session on the stream. */
        IDLE,
        /** Active side: Initiate sent, waiting for Accept, Reject or Terminate. */
        INITIATE_SENT,
        /** Passive side: Initiate received, the ULP decides. */
        PENDING_ULP,
        /** Accepted: DDP segments both ways. */
        OPEN,
        /** This side sent its Terminate; the peer's may still come. */
        CLOSING,
        /**
         * This side ended the session, over an illegal chunk or by aborting it; what the peer sent for it is dropped
         * until its Terminate comes in its turn, so that the stream is not reused while old chunks may be in flight
         * (RFC 5043 §6.6).
         */
        DRAINING,
    }

    /** What the machine has its shell do. */
    interface Effects {
        /** Send {@code control} on the stream, after what was sent before it. */
        void send(SessionControl control);

        /** Passive side: the peer's Initiate is for the ULP to answer ({@link #answer}). */
        void initiated(SessionControl initiate);

        /** Active side: the peer's answer to this side's Initiate; null when the session failed before one came. */
        void answered(SessionControl response);

        /** The session that was open is over: the stream above hears so. */
        void ended(boolean graceful, String reason);

        /** The stream is free: the next session's DDP-SSNs start at 0 both ways (RFC 5043 §6.1). */
        void startedOver();

        /** Where a chunk that fits no legal sequence is counted: the connection manager's counters. */
        default Counters counters() {
            return Counters.process();
        }
    }

    private final Effects effects;
    private State state = State.IDLE;
    private boolean enhanced;
    private boolean peerTerminated;
    /** In DRAINING: the peer had a session, whose Terminate is still to come in its turn. */
    private boolean awaitingTerminate;
    private String lastIllegal;

    SessionStateMachine(Effects effects) {
        this.effects = effects;
    }

    State state() {
        return state;
    }

    /** The last illegal sequence seen, for diagnostics and tests, or null. */
    String lastIllegal() {
        return lastIllegal;
    }

    /** Whether DDP segments may be sent now: the session is open and this side has not ended it. */
    boolean sending() {
        return state == State.OPEN;
    }

    /**
     * Whether a chunk that came ahead of its turn may be kept until then: only for a session this side has taken
     * part in (it sent the Initiate, or an Accept), which the peer has not ended. With no session open the only legal
     * chunk is an Initiate at DDP-SSN 0, and RFC 5043 §10 allocates nothing for a DDP-SSN not yet shown valid.
     */
    boolean holdsEarly() {
        return state == State.INITIATE_SENT || (state == State.OPEN || state == State.CLOSING) && !peerTerminated;
    }

    /**
     * Whether a draining stream keeps track of the chunks that come ahead of their turn (their DDP-SSNs, not their
     * contents): the peer's Terminate is still to come, and the drain ends only once it has come in its turn.
     */
    boolean drainsToTerminate() {
        return state == State.DRAINING && awaitingTerminate;
    }

    /**
     * The peer started a new session on a draining stream: its Initiate came at DDP-SSN 0, so its chunks of any
     * earlier session are behind it (keeping them so is the initiator's duty, RFC 5043 §6.6). The stream is free; the
     * Initiate is then taken as on any idle stream.
     */
    void restart() {
        if (state == State.DRAINING) {
            endSession();
        }
    }

    /** Active side: sends an Initiate (plain or enhanced); its answer comes through {@link Effects#answered}. */
    void initiate(SessionControl initiate) {
        if (state != State.IDLE) {
            throw new IllegalStateException("an Initiate on a stream that is " + state);
        }
        effects.startedOver();
        enhanced = initiate instanceof SessionControl.EnhancedInitiate;
        state = State.INITIATE_SENT;
        effects.send(initiate);
    }

    /** Passive side: the ULP's answer to the pending Initiate: Accept, Reject, or Terminate (a non-ULP reject). */
    void answer(SessionControl response) {
        if (state != State.PENDING_ULP) {
            throw new IllegalStateException("the stream is " + state + ", not waiting for the ULP");
        }
        effects.send(response);
        if (accepts(response)) {
            state = State.OPEN;
        } else {
            endSession();
        }
    }

    /** This side ends the open session: a Session Terminate follows its last segment (RFC 5043 §6.2). */
    void close() {
        if (state != State.OPEN) {
            return;
        }
        state = State.CLOSING;
        effects.send(new SessionControl.Terminate());
        if (peerTerminated) {
            endSession();
            effects.ended(true, "session terminated by both sides");
        }
    }

    /**
     * This side tears the session down at once: a Terminate if none was sent yet, and the stream above hears now. The
     * peer's Terminate is still to come: the stream drains until it has (§6.6).
     */
    void abort() {
        if (state != State.OPEN && state != State.CLOSING) {
            return;
        }
        if (state == State.OPEN) {
            effects.send(new SessionControl.Terminate());
        }
        drain(true);
        effects.ended(false, "aborted");
    }

    /** The association is gone: the session with it (RFC 5043 §11.3). */
    void lost(String reason) {
        State was = state;
        state = State.IDLE;
        peerTerminated = false;
        awaitingTerminate = false;
        if (was == State.OPEN || was == State.CLOSING) {
            effects.ended(false, reason);
        } else if (was == State.INITIATE_SENT) {
            effects.answered(null);
        }
    }

    /** A DDP segment arrived in its turn: whether it belongs to the open session (else it ended the session). */
    boolean segment(int streamId) {
        if ((state == State.OPEN || state == State.CLOSING) && !peerTerminated) {
            return true;
        }
        if (state != State.DRAINING) {
            illegal("a DDP segment on stream " + streamId + " in state " + state);
        }
        return false;
    }

    /** A session control message arrived in its turn. */
    void received(SessionControl control) {
        switch (state) {
            case IDLE -> {
                if (control instanceof SessionControl.Initiate || control instanceof SessionControl.EnhancedInitiate) {
                    state = State.PENDING_ULP;
                    enhanced = control instanceof SessionControl.EnhancedInitiate;
                    effects.initiated(control);
                } else {
                    illegal(control.functionCode() + " with no session");
                }
            }
            case INITIATE_SENT -> {
                boolean fits = enhanced ? control instanceof SessionControl.EnhancedAccept
                        || control instanceof SessionControl.EnhancedReject
                        : control instanceof SessionControl.Accept || control instanceof SessionControl.Reject;
                if (!fits && !(control instanceof SessionControl.Terminate)) {
                    illegal(control.functionCode() + " in answer to " + (enhanced ? "an enhanced" : "a plain")
                            + " Initiate");
                    return;
                }
                if (accepts(control)) {
                    state = State.OPEN;
                } else {
                    endSession();
                }
                effects.answered(control);
            }
            case PENDING_ULP -> {
                if (control instanceof SessionControl.Terminate) {
                    endSession(); // the initiator gave up
                } else {
                    illegal(control.functionCode() + " while the ULP decides on an Initiate");
                }
            }
            case OPEN, CLOSING -> {
                if (!(control instanceof SessionControl.Terminate)) {
                    illegal(control.functionCode() + " inside an open session");
                    return;
                }
                peerTerminated = true;
                if (state == State.OPEN) {
                    close(); // answer with this side's own Terminate, then the session is over
                } else {
                    endSession();
                    effects.ended(true, "session terminated by both sides");
                }
            }
            default -> { // DRAINING
                if (control instanceof SessionControl.Terminate) {
                    endSession(); // the peer's Terminate: the stream is free again
                }
            }
        }
    }

    /**
     * A chunk fits no legal sequence (a malformed one included): the session ends with a Session Terminate (RFC 5043
     * §6.1; the RFC does not say how, a Terminate is the natural reading) and the stream drains until the peer's own.
     */
    void illegal(String reason) {
        if (state == State.DRAINING) {
            return; // already ended; waiting for the peer's Terminate
        }
        effects.counters().increment(Counter.MALFORMED_SETUPS);
        State was = state;
        if (was != State.CLOSING) {
            effects.send(new SessionControl.Terminate());
        }
        // a peer with a session answers this side's Terminate with its own; one without (no session, or an Initiate
        // this Terminate refuses, §6.4) sends none
        drain(was != State.IDLE && was != State.PENDING_ULP);
        if (was == State.OPEN || was == State.CLOSING) {
            effects.ended(false, "illegal session sequence: " + reason);
        } else if (was == State.INITIATE_SENT) {
            effects.answered(null);
        }
        lastIllegal = reason + (was == State.IDLE ? " (no session)" : "");
    }

    private void endSession() {
        state = State.IDLE;
        peerTerminated = false;
        awaitingTerminate = false;
        effects.startedOver();
    }

    /**
     * This side's part of the session is over; the peer's chunks of it are still taken in their turn, and dropped,
     * until its Terminate ({@code awaitTerminate}) or a new Initiate at DDP-SSN 0 ({@link #restart}) frees the stream.
     */
    private void drain(boolean awaitTerminate) {
        state = State.DRAINING;
        peerTerminated = false;
        awaitingTerminate = awaitTerminate;
    }

    private static boolean accepts(SessionControl control) {
        return control instanceof SessionControl.Accept || control instanceof SessionControl.EnhancedAccept;
    }
}
