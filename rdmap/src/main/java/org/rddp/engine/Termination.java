package org.rddp.engine;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.rddp.ddp.DdpHeader;
import org.rddp.error.DdpError;
import org.rddp.error.ErrorLayer;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;

/**
 * How an engine's stream ends (RFC 5040 §7.1, §5.4; RFC 5041 §7): the first error becomes the Terminate with the cause,
 * layer and copied headers the RFC prescribes, everything outstanding is flushed in order, and the queue pair moves
 * to TERMINATE, ERROR or IDLE as the LLP closes. Runs on the engine's loop.
 */
final class Termination {
    /** Terminates sent and received, at DEBUG: quiet unless asked for ({@code org.rddp.engine}). */
    static final System.Logger LOG = System.getLogger("org.rddp.engine");
    private final EngineState s;
    Transmitter transmitter;
    Receiver receiver;
    RdmapEngine engine;

    Termination(EngineState s) {
        this.s = s;
    }

    boolean accepting() {
        QpState now = s.state;
        return (now == QpState.RTS || now == QpState.CLOSING) && s.terminate == null;
    }

    /** A protocol error in the segment bound in {@link #rx}: the first one becomes the Terminate. */
    void protocolError(TerminateCause cause, boolean headerAvailable, ReadRequestHeader request,
            String detail) {
        if (s.terminate != null || s.state == QpState.ERROR) {
            return;
        }
        TerminateHeader message;
        if (headerAvailable && cause.carriesDdpHeader()) {
            DdpHeader copy = s.rx.header();
            int length = s.rx.payloadLength(); // the length DDP hands up, as siw fills it (digest §2.4)
            message = request != null && cause.carriesRdmaHeader() ? TerminateHeader.of(cause, length, copy, request)
                    : TerminateHeader.of(cause, length, copy);
        } else {
            message = TerminateHeader.of(cause);
        }
        sendTerminateFor(message, null, null, detail);
    }

    /** A local error while building or placing this side's work (RFC 5040 §7.1 rule 1). */
    void localError(SendWork culprit, WcStatus status, String detail) {
        if (s.terminate != null || s.state == QpState.ERROR) {
            return;
        }
        if (culprit != null && !culprit.done && !s.inOrder.contains(culprit)) {
            culprit.done = true;
            culprit.status = status;
            s.queues.sendCompleted(culprit, status, 0);
        }
        sendTerminateFor(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC), culprit, status,
                detail + " -> " + status);
    }

    /** A Terminate's layer, EType and code, with what they mean, for messages. */
    static String describe(TerminateHeader terminate) {
        return terminate == null ? "none" : String.format("layer %d, EType 0x%x, code 0x%02x%s", terminate.layer(),
                terminate.etype(), terminate.code(), terminate.cause().map(c -> ": " + c.description()).orElse(""));
    }

    void sendTerminateFor(TerminateHeader message, SendWork culprit, WcStatus culpritStatus,
            String detail) {
        s.terminate = message;
        setState(QpState.TERMINATE);
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: Terminate sent ({1}): {2}", s.llp, describe(message), detail);
        }
        s.queues.event(QpEvent.TERMINATE_SENT, message, detail);
        flushAll(culprit, culpritStatus);
        s.backPressured = false;
        transmitter.sendTerminate();
    }

    void onLlpError(TerminateCause cause, String detail) {
        if (s.terminate != null || s.state == QpState.ERROR) {
            return;
        }
        sendTerminateFor(TerminateHeader.of(cause), null, null, detail);
    }

    void onClosed(boolean graceful, String reason) {
        if (s.state == QpState.ERROR) {
            return;
        }
        if (s.state == QpState.TERMINATE) {
            toError(null, reason);
            return;
        }
        boolean idle = s.current == null && s.inOrder.isEmpty() && s.receiving == null;
        flushAll(null, null);
        if (graceful) {
            setState(idle ? QpState.IDLE : QpState.ERROR);
            s.queues.event(QpEvent.DISCONNECTED, null, reason);
        } else {
            toError(QpEvent.CONNECTION_LOST, reason);
        }
    }

    void toError(QpEvent event, String reason) {
        setState(QpState.ERROR);
        if (event != null) {
            s.queues.event(event, null, reason);
        }
    }

    /**
     * Completes everything outstanding: {@code culprit} with {@code status}, all else with WR_FLUSH_ERR, in
     * send-queue order; then the receives. A send the LLP still {@linkplain Transmitter#held holds} never reached
     * the transport: it is flushed too.
     */
    void flushAll(SendWork culprit, WcStatus status) {
        for (SendWork work : s.inOrder) {
            if (transmitter.held(work)) {
                work.done = false;
                work.heldAt = -1;
            }
            if (!work.done) {
                work.done = true;
                work.status = work == culprit ? status : WcStatus.WR_FLUSH_ERR;
            }
        }
        s.current = null;
        s.readsOutstanding.clear();
        s.irrqCount = 0;
        transmitter.reportCompletions();
        s.queues.flushSends();
        if (s.receiving != null) {
            ReceiveWork work = s.receiving;
            s.receiving = null;
            s.queues.receiveCompleted(work, WcStatus.WR_FLUSH_ERR, 0, null, 0);
        }
        s.queues.flushReceives();
    }

    void setState(QpState next) {
        s.state = next;
        s.queues.stateChanged(next);
    }

    static TerminateCause taggedCause(int check) {
        return switch (check) {
            case StagResolver.BASE_OR_BOUNDS -> DdpError.TAGGED_BASE_OR_BOUNDS;
            case StagResolver.NOT_ASSOCIATED -> DdpError.TAGGED_STAG_NOT_ASSOCIATED;
            case StagResolver.TO_WRAP -> DdpError.TAGGED_TO_WRAP;
            // RFC 5041 has no access-rights code; RFC 5040's Remote Protection code names it exactly
            case StagResolver.ACCESS_RIGHTS -> RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS;
            default -> DdpError.TAGGED_INVALID_STAG;
        };
    }

    static TerminateCause sourceCause(int check) {
        return switch (check) {
            case StagResolver.BASE_OR_BOUNDS -> RdmapError.REMOTE_PROTECTION_BASE_OR_BOUNDS;
            case StagResolver.NOT_ASSOCIATED -> RdmapError.REMOTE_PROTECTION_STAG_NOT_ASSOCIATED;
            case StagResolver.TO_WRAP -> RdmapError.REMOTE_PROTECTION_TO_WRAP;
            case StagResolver.ACCESS_RIGHTS -> RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS;
            default -> RdmapError.REMOTE_PROTECTION_INVALID_STAG;
        };
    }

    /** The status a Terminate gives the request it names. */
    static WcStatus statusFor(TerminateHeader received) {
        ErrorLayer layer = ErrorLayer.byWire(received.layer());
        if (layer == null || layer == ErrorLayer.LLP) {
            return WcStatus.FATAL_ERR;
        }
        if (received.etype() == 1) {
            return WcStatus.REM_ACCESS_ERR; // Remote Protection, or a tagged buffer error
        }
        if (layer == ErrorLayer.DDP && received.etype() == 2) {
            return WcStatus.REM_INV_REQ_ERR; // an untagged buffer error
        }
        return WcStatus.REM_OP_ERR;
    }

    static String name(int check) {
        return switch (check) {
            case StagResolver.OK -> "ok";
            case StagResolver.INVALID_STAG -> "invalid STag";
            case StagResolver.BASE_OR_BOUNDS -> "base or bounds violation";
            case StagResolver.ACCESS_RIGHTS -> "access rights violation";
            case StagResolver.NOT_ASSOCIATED -> "not associated with this stream";
            case StagResolver.TO_WRAP -> "TO wrap";
            case StagResolver.CANNOT_INVALIDATE -> "cannot be invalidated";
            default -> "check " + check;
        };
    }

    static String hex(int stag) {
        return String.format("STag 0x%08x", stag);
    }
}
