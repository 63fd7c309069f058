package org.rddp.engine;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.MemorySegment;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.DdpError;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.llp.PlacementTarget;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * The receive side of an engine (RFC 5040 §5, §6; RFC 5041 §5, §7): every incoming segment validated (DDP, then
 * RDMAP), tagged payload placed after its STag and bounds are checked, Sends delivered in MSN order into the posted
 * receives, the peer's Read Requests queued within IRD, and the RTR of the peer-to-peer model checked (RFC 6581 §5).
 * Runs on the engine's loop.
 */
final class Receiver {
    private final EngineState s;
    Transmitter transmitter;
    Termination termination;
    RdmapEngine engine;

    Receiver(EngineState s) {
        this.s = s;
    }

    boolean placeTagged(DdpSegment segment, int payloadLength, PlacementTarget into) {
        if (!termination.accepting() || payloadLength == 0 || !RdmapControl.validate(segment,
                s.parameters.rdmapVersion()).ok()) {
            return false;
        }
        RdmapOpcode opcode = RdmapControl.opcode(segment.rsvdUlp());
        long length = payloadLength;
        if (opcode == RdmapOpcode.RDMA_WRITE) {
            return s.memory.resolve(segment.stag(), segment.to(), length, StagResolver.REMOTE_WRITE
                    | StagResolver.BEFORE_ITS_TURN, into) == StagResolver.OK;
        }
        SendWork read = s.readsOutstanding.peekFirst();
        if (read == null || segment.stag() != read.sges.lkey[0]) {
            return false;
        }
        long start = segment.to() - read.sges.address[0];
        if (Long.compareUnsigned(start, read.byteLength) >= 0 || length > read.byteLength - start) {
            return false;
        }
        return s.memory.resolve(segment.stag(), segment.to(), length, StagResolver.LOCAL_WRITE, into)
                == StagResolver.OK;
    }

    void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
        if (!termination.accepting()) {
            return; // after an error: silently drop (RFC 5041 §7.1)
        }
        DecodeStatus status = s.rx.wrap(buffer, offset, length, s.parameters.ddpVersion());
        if (!status.ok()) {
            termination.protocolError(status.terminateCause().orElseThrow(),
                    status != DecodeStatus.DDP_SEGMENT_TRUNCATED,
                    null, status.name());
            return;
        }
        status = RdmapControl.validate(s.rx, s.parameters.rdmapVersion());
        if (!status.ok()) {
            if (status == DecodeStatus.RDMAP_TERMINATE_MALFORMED) {
                onTerminate(true);
            } else {
                termination.protocolError(status.terminateCause().orElseThrow(), true, null, status.name());
            }
            return;
        }
        boolean first = !s.firstSegmentSeen;
        s.firstSegmentSeen = true;
        if (s.holding) {
            s.holding = false;
            engine.wakeup();
        }
        RdmapOpcode opcode = RdmapControl.opcode(s.rx.rsvdUlp());
        if (first && s.parameters.rtrToReceive() != RtrType.NONE && opcode != RdmapOpcode.TERMINATE
                && !acceptRtr(opcode)) {
            return; // a Terminate instead of the RTR is the initiator giving up (RFC 6581 §9.2): heard, not answered
        }
        switch (opcode) {
            case RDMA_WRITE -> onWrite(payloadPlaced);
            case RDMA_READ_RESPONSE -> onReadResponse(payloadPlaced);
            case RDMA_READ_REQUEST -> onReadRequest();
            case TERMINATE -> onTerminate(false);
            default -> onSend(opcode);
        }
    }

    /** The responder's first message must be the negotiated RTR (RFC 6581 §5, §9.2). */
    boolean acceptRtr(RdmapOpcode opcode) {
        RtrType expected = s.parameters.rtrToReceive();
        boolean matches = switch (expected) {
            case SEND -> opcode == RdmapOpcode.SEND && s.rx.msn() == 1 && s.rx.last() && s.rx.payloadLength() == 0;
            case WRITE -> opcode == RdmapOpcode.RDMA_WRITE && s.rx.last() && s.rx.payloadLength() == 0;
            case READ -> opcode == RdmapOpcode.RDMA_READ_REQUEST
                    && Wire.u32(s.rx.buffer(), s.rx.payloadOffset() + ReadRequestHeader.READ_SIZE_OFFSET) == 0;
            case NONE -> true;
        };
        if (!matches) {
            termination.protocolError(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, null,
                    "first message is not the negotiated " + expected + " RTR");
            return false;
        }
        if (expected == RtrType.SEND) {
            s.expectedSendMsn++; // the provider's, not a user's, receive (RFC 6581 §9.2)
            return false;
        }
        return expected == RtrType.READ; // a Read RTR is answered like any zero-length Read; a Write RTR is done
    }

    /**
     * An RDMA Write in its turn. It is checked here even when its payload was placed early (RFC 5043 §10): the
     * message is valid or not in DDP-SSN order (RFC 5040 §7.2), so a Write that follows a Send with Invalidate of its
     * STag, or one into a region deregistered meanwhile, gets the Terminate it would have got in order. (No Write is
     * placed early into a window, the only memory the peer can invalidate: {@link StagResolver#BEFORE_ITS_TURN}.)
     */
    void onWrite(boolean payloadPlaced) {
        int length = s.rx.payloadLength();
        if (length == 0) {
            return; // zero-length: STag and TO are not checked (RFC 5041 §5.2)
        }
        int check = s.memory.resolve(s.rx.stag(), s.rx.to(), length, StagResolver.REMOTE_WRITE, s.target);
        if (check != StagResolver.OK) {
            termination.protocolError(Termination.taggedCause(check), true, null, "RDMA Write to "
                    + Termination.hex(s.rx.stag()) + ": " + Termination.name(check));
            return;
        }
        if (!payloadPlaced) {
            place();
        }
    }

    void onReadResponse(boolean payloadPlaced) {
        SendWork read = s.readsOutstanding.peekFirst();
        if (read == null) {
            termination.protocolError(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, null,
                    "Read Response without an outstanding Read Request");
            return;
        }
        int length = s.rx.payloadLength();
        if (length > 0 && !read.internal) {
            if (s.rx.stag() != read.sges.lkey[0]) {
                termination.protocolError(DdpError.TAGGED_INVALID_STAG, true, null, "Read Response to "
                        + Termination.hex(s.rx.stag())
                        + ", the request named " + Termination.hex(read.sges.lkey[0]));
                return;
            }
            long expectedTo = read.sges.address[0] + s.responseReceived;
            if (s.rx.to() != expectedTo || length > read.byteLength - s.responseReceived) {
                termination.protocolError(DdpError.TAGGED_BASE_OR_BOUNDS, true, null,
                        "Read Response outside the sink buffer");
                return;
            }
            // checked in its turn even when placed early, as a Write is (the sink may have been deregistered since)
            int check = s.memory.resolve(s.rx.stag(), s.rx.to(), length, StagResolver.LOCAL_WRITE, s.target);
            if (check != StagResolver.OK) {
                termination.localError(read, WcStatus.LOC_PROT_ERR, "Read sink " + Termination.hex(s.rx.stag())
                        + ": " + Termination.name(check));
                return;
            }
            if (!payloadPlaced) {
                place();
            }
        } else if (length > 0) {
            termination.protocolError(DdpError.TAGGED_BASE_OR_BOUNDS, true, null, "data in the response to a Read RTR");
            return;
        }
        s.responseReceived += length;
        if (s.rx.last()) {
            s.readsOutstanding.pollFirst();
            long delivered = s.responseReceived;
            s.responseReceived = 0;
            transmitter.finish(read, WcStatus.SUCCESS, delivered);
            engine.wakeup(); // an ORD slot is free again
        }
    }

    void onSend(RdmapOpcode opcode) {
        int msn = s.rx.msn();
        if (msn != s.expectedSendMsn) {
            termination.protocolError(DdpError.UNTAGGED_MSN_RANGE, true, null,
                    "Send MSN " + Integer.toUnsignedString(msn) + ", expected " + s.expectedSendMsn);
            return;
        }
        if (s.receiving == null) {
            s.receiving = s.queues.nextReceive();
            s.received = 0;
            if (s.receiving == null) {
                termination.protocolError(DdpError.UNTAGGED_NO_BUFFER, true, null, "no receive posted for MSN " + msn);
                return;
            }
        }
        long mo = Integer.toUnsignedLong(s.rx.mo());
        int length = s.rx.payloadLength();
        if (mo != s.received) {
            termination.protocolError(DdpError.UNTAGGED_INVALID_MO, true, null, "MO " + mo + ", " + s.received
                    + " received");
            return;
        }
        if (mo + length > s.receiving.sges.totalLength()) {
            ReceiveWork work = s.receiving;
            s.receiving = null;
            // the work goes back to its queue with its completion: what the message needs is read first
            String detail = "Send of at least " + (mo + length) + " octets into a " + work.sges.totalLength()
                    + "-octet receive";
            s.queues.receiveCompleted(work, WcStatus.LOC_LEN_ERR, mo + length, opcode, 0);
            termination.protocolError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, true, null, detail);
            return;
        }
        if (!scatter(mo, length, opcode)) {
            return;
        }
        s.received += length;
        if (!s.rx.last()) {
            return;
        }
        s.expectedSendMsn++;
        int invalidated = 0;
        if (opcode.invalidates()) {
            invalidated = s.rx.invalidateStag();
            int check = s.memory.invalidate(invalidated, true);
            if (check != StagResolver.OK) {
                termination.protocolError(check == StagResolver.CANNOT_INVALIDATE
                        ? RdmapError.REMOTE_OPERATION_CANNOT_INVALIDATE
                        : RdmapError.REMOTE_PROTECTION_CANNOT_INVALIDATE, true, null,
                        "cannot invalidate " + Termination.hex(invalidated) + ": " + Termination.name(check));
                return;
            }
        }
        ReceiveWork work = s.receiving;
        s.receiving = null;
        s.queues.receiveCompleted(work, WcStatus.SUCCESS, s.received, opcode, invalidated);
    }

    /** Places the segment's payload at {@code mo} of the current receive, across its elements. */
    boolean scatter(long mo, int length, RdmapOpcode opcode) {
        ReceiveWork work = s.receiving;
        int element = 0;
        long offset = mo;
        int placed = 0;
        while (placed < length) {
            long size = Integer.toUnsignedLong(work.sges.length[element]);
            if (offset >= size) {
                offset -= size;
                element++;
                continue;
            }
            int take = (int) Math.min(length - placed, size - offset);
            int check = s.memory.resolve(work.sges.lkey[element], work.sges.address[element] + offset, take,
                    StagResolver.LOCAL_WRITE, s.target);
            if (check != StagResolver.OK) {
                s.receiving = null;
                String detail = "receive lkey " + Termination.hex(work.sges.lkey[element]) + ": "
                        + Termination.name(check);
                s.queues.receiveCompleted(work, WcStatus.LOC_PROT_ERR, 0, opcode, 0);
                termination.protocolError(RdmapError.LOCAL_CATASTROPHIC, false, null, detail);
                return false;
            }
            if (!copy(s.rx.buffer(), s.rx.payloadOffset() + placed, take)) {
                return false;
            }
            placed += take;
            element++;
            offset = 0;
        }
        return true;
    }

    void onReadRequest() {
        int msn = s.rx.msn();
        if (msn != s.expectedReadMsn) {
            termination.protocolError(DdpError.UNTAGGED_MSN_RANGE, true, null,
                    "Read Request MSN " + Integer.toUnsignedString(msn) + ", expected " + s.expectedReadMsn);
            return;
        }
        ReadRequestHeader request = ReadRequestHeader.decode(s.rx.buffer(), s.rx.payloadOffset());
        if (s.irrqCount == s.irrq.length) {
            // a QN 1 buffer is an IRRQ entry (RFC 5040 §5.2): beyond IRD there is none
            termination.protocolError(DdpError.UNTAGGED_NO_BUFFER, true, null, "Read Request beyond IRD "
                    + s.parameters.ird());
            return;
        }
        long size = Integer.toUnsignedLong(request.readMessageSize());
        if (size > 0) {
            int check = s.memory.resolve(request.srcStag(), request.srcTo(), size, StagResolver.REMOTE_READ, s.target);
            if (check != StagResolver.OK) {
                termination.protocolError(Termination.sourceCause(check), true, request,
                        "Read of " + Termination.hex(request.srcStag()) + ": " + Termination.name(check));
                return;
            }
        }
        s.expectedReadMsn++;
        EngineState.InboundRead read = s.irrq[(s.irrqHead + s.irrqCount) % s.irrq.length];
        read.msn = msn;
        read.sinkStag = request.sinkStag();
        read.sinkTo = request.sinkTo();
        read.size = size;
        read.srcStag = request.srcStag();
        read.srcTo = request.srcTo();
        read.sent = 0;
        s.irrqCount++;
        engine.wakeup();
    }

    void onTerminate(boolean malformed) {
        TerminateHeader theirs = null;
        String detail;
        try {
            theirs = TerminateHeader.decode(s.rx.buffer(), s.rx.payloadOffset(), s.rx.payloadLength());
            detail = theirs.cause().map(TerminateCause::description)
                    .orElse("undefined cause " + theirs.layer() + "/" + theirs.etype() + "/" + theirs.code());
        } catch (MalformedFrameException e) {
            detail = "malformed Terminate: " + e.getMessage();
        }
        if (malformed && theirs != null) {
            detail = "malformed Terminate (not one segment at MO 0): " + detail;
        }
        SendWork culprit = theirs != null && theirs.terminatedRdmaHeader() != null
                ? s.readsOutstanding.peekFirst() : null;
        s.terminateSent = true; // never answer a Terminate with one (RFC 5040 §5.4)
        s.terminate = theirs;
        termination.setState(QpState.TERMINATE);
        if (Termination.LOG.isLoggable(System.Logger.Level.DEBUG)) {
            Termination.LOG.log(System.Logger.Level.DEBUG, "{0}: Terminate received ({1}){2}", s.llp,
                    Termination.describe(theirs),
                    detail == null ? "" : ": " + detail);
        }
        s.queues.event(QpEvent.TERMINATE_RECEIVED, theirs, detail);
        termination.flushAll(culprit, culprit == null ? null : Termination.statusFor(theirs));
        s.llpClosing = true;
        s.llp.close();
    }

    boolean copy(MemorySegment source, long sourceOffset, int length) {
        try {
            Wire.copy(source, sourceOffset, s.target.memory(), s.target.offset(), length);
            return true;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // the region's memory went away under us (its arena was closed): never touch it again
            termination.protocolError(RdmapError.LOCAL_CATASTROPHIC, false, null, "the region's memory is gone: "
                    + e.getMessage());
            return false;
        }
    }

    void place() {
        copy(s.rx.buffer(), s.rx.payloadOffset(), s.rx.payloadLength());
    }
}
