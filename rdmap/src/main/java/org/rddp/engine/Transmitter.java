package org.rddp.engine;

import static org.rddp.engine.EngineState.MAX_MESSAGE;
import static org.rddp.engine.EngineState.TAGGED;
import static org.rddp.engine.EngineState.UNTAGGED;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.lang.foreign.MemorySegment;
import org.rddp.ddp.DdpHeader;
import org.rddp.ddp.DdpUntaggedHeader;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;

/**
 * The send side of an engine (RFC 5040 §5, §6; RFC 5041 §5): work taken from the send queue in order, segmented to the
 * LLP's MULPDU, RDMA Read Requests kept within ORD, the peer's Reads answered from the IRRQ, completions reported in
 * send-queue order, and the Terminate sent when there is one. Runs on the engine's loop.
 */
final class Transmitter {
    private final EngineState s;
    Receiver receiver;
    Termination termination;
    RdmapEngine engine;
    /** Messages sent since the last flush: how long a burst the LLP is told of ({@link LlpStream#flush(int)}). */
    private int burst;

    Transmitter(EngineState s) {
        this.s = s;
    }

    void begin() {
        if (s.state != QpState.IDLE) {
            return;
        }
        termination.setState(QpState.RTS);
        s.holding = s.parameters.holdUntilReceived();
        s.queues.event(QpEvent.ESTABLISHED, null, "stream up, IRD " + s.parameters.ird() + ", ORD "
                + s.parameters.ord());
        if (s.parameters.rtrToSend() != RtrType.NONE) {
            SendWork rtr = s.rtrWork;
            rtr.reset();
            rtr.internal = true;
            rtr.sges.count = 0;
            rtr.remoteStag = 1; // a zero-length Write's STag is not checked; STag 0 may be special to some RNICs
            rtr.remoteTo = 0;
            rtr.opcode = switch (s.parameters.rtrToSend()) {
                case SEND -> WorkOpcode.SEND;
                case WRITE -> WorkOpcode.RDMA_WRITE;
                default -> WorkOpcode.RDMA_READ;
            };
            s.current = rtr;
            s.inOrder.add(rtr);
        }
        drain();
    }

    /**
     * Sends what the queues and the peer's Read Requests allow, then has the LLP send what it held back, and reports
     * the sends whose payloads it no longer reads ({@link LlpStream#holdsPayload}).
     */
    void drain() {
        transmit();
        int messages = burst;
        burst = 0;
        // a held payload whose memory failed throws here: the engine fails the stream, and flushAll fails the sends
        // the LLP still held (its count of releases did not move), none of them reported done
        s.llp.flush(messages);
        reportCompletions();
    }

    /**
     * Whether the LLP still holds what {@code work} handed it: the work finished while the LLP held a payload, and
     * the LLP has not handed everything it held to its transport since ({@link LlpStream#releases}).
     */
    boolean held(SendWork work) {
        return work.heldAt >= 0 && work.heldAt == s.llp.releases();
    }

    void transmit() {
        QpState now = s.state;
        if (now == QpState.TERMINATE || now == QpState.ERROR) {
            if (s.terminate != null && !s.terminateSent) {
                sendTerminate();
            }
            s.queues.flushSends();
            return;
        }
        if (now == QpState.IDLE || s.backPressured) {
            return;
        }
        while (true) {
            if (s.irrqCount > 0) {
                if (!transmitResponse()) {
                    return;
                }
                burst++;
                continue;
            }
            if (s.current == null) {
                SendWork next = s.queues.nextSend();
                if (next == null) {
                    break;
                }
                next.reset();
                s.current = next;
                s.inOrder.add(next);
            }
            if (s.holding && s.current.opcode != WorkOpcode.BIND_MEMORY_WINDOW
                    && s.current.opcode != WorkOpcode.LOCAL_INVALIDATE) {
                return; // nothing on the wire before the first segment arrives; local work goes on (RFC 5044 §7.1.2)
            }
            if (!transmitCurrent()) {
                return;
            }
            burst++;
        }
        if (s.closeRequested && s.readsOutstanding.isEmpty() && !s.llpClosing) {
            s.llpClosing = true;
            s.llp.close();
        }
    }

    boolean transmitCurrent() {
        SendWork work = s.current;
        return switch (work.opcode) {
            case BIND_MEMORY_WINDOW, LOCAL_INVALIDATE -> executeLocal(work);
            case RDMA_READ -> transmitReadRequest(work);
            default -> transmitMessage(work);
        };
    }

    boolean executeLocal(SendWork work) {
        WcStatus status = s.queues.executeLocal(work);
        s.current = null;
        if (status != WcStatus.SUCCESS) {
            termination.localError(work, status, work.opcode + " failed");
            return false;
        }
        finish(work, WcStatus.SUCCESS, 0);
        return true;
    }

    boolean transmitReadRequest(SendWork work) {
        if (!work.internal && s.readsOutstanding.size() >= s.parameters.ord()) {
            return false; // ORD reached: the send queue waits for a Read Response (RFC 5040 §6.1)
        }
        int size = 0;
        int sinkStag = 0;
        long sinkTo = 0;
        if (!work.internal) {
            if (work.sges.count != 1) {
                // RFC 5040 §4.4: one Read Request names one sink buffer
                termination.localError(work, WcStatus.LOC_QP_OP_ERR, "an RDMA Read takes exactly one sink element");
                return false;
            }
            size = work.sges.length[0];
            sinkStag = work.sges.lkey[0];
            sinkTo = work.sges.address[0];
            int check = s.memory.resolve(sinkStag, sinkTo, Integer.toUnsignedLong(size), StagResolver.LOCAL_WRITE,
                    s.target);
            if (check != StagResolver.OK) {
                termination.localError(work, WcStatus.LOC_PROT_ERR, "sink lkey " + Termination.hex(sinkStag) + ": "
                        + Termination.name(check));
                return false;
            }
        }
        s.tx.bind(s.header, 0, UNTAGGED).writeUntagged(true, RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST), 0,
                RdmapControl.READ_REQUEST_QUEUE, s.readRequestMsn, 0);
        ReadRequestHeader.write(s.header, UNTAGGED, sinkStag, sinkTo, size, work.remoteStag, work.remoteTo);
        if (!sent(s.llp.send(s.header, 0, UNTAGGED + ReadRequestHeader.LENGTH, s.header, 0, 0))) {
            return false;
        }
        s.readRequestMsn++;
        work.byteLength = Integer.toUnsignedLong(size);
        s.readsOutstanding.add(work);
        s.current = null;
        return true;
    }

    boolean transmitMessage(SendWork work) {
        long total = work.sges.totalLength();
        if (total > MAX_MESSAGE) {
            termination.localError(work, WcStatus.LOC_LEN_ERR, "message of " + total + " octets exceeds 2^32 - 1");
            return false;
        }
        RdmapOpcode opcode = work.opcode.rdmapOpcode();
        int control = RdmapControl.encode(opcode);
        boolean tagged = opcode.tagged();
        int headerLength = tagged ? TAGGED : UNTAGGED;
        int room = s.llp.mulpdu() - headerLength;
        do {
            int count = payload(room, headerLength, total - work.sent);
            boolean last = work.sent + count == total;
            s.tx.bind(s.header, 0, headerLength);
            if (tagged) {
                s.tx.writeTagged(last, control, work.remoteStag, work.remoteTo + work.sent);
            } else {
                s.tx.writeUntagged(last, control, opcode.invalidates() ? work.remoteStag : 0,
                        RdmapControl.SEND_QUEUE, s.sendMsn, (int) work.sent);
            }
            if (!gather(work, work.sent, count)) {
                return false;
            }
            if (!sent(s.llp.send(s.header, 0, headerLength, s.target.memory(), s.target.offset(), count))) {
                return false;
            }
            work.sent += count;
        } while (work.sent < total);
        if (!tagged) {
            s.sendMsn++;
        }
        s.current = null;
        if (s.llp.holdsPayload()) { // its payload, or one before it, is still read where it lies
            work.heldAt = s.llp.releases();
        }
        finish(work, WcStatus.SUCCESS, total);
        return true;
    }

    /**
     * The payload of a message's next segment (RFC 5041 §5.2 leaves the cut to the sender): all of what is left when
     * it fits one segment; otherwise, when the LLP's packet has room for at least a quarter of a full segment, what
     * fills that room, so that the packet leaves full ({@link LlpStream#packetRoom}); otherwise a full segment. A
     * message takes at most one segment more than full segments would.
     *
     * @param full the payload of a full segment
     * @param left the message's octets not yet sent
     */
    int payload(int full, int headerLength, long left) {
        if (left <= full) {
            return (int) left;
        }
        int fill = s.llp.packetRoom() - headerLength;
        return fill >= full / 4 && fill < full ? fill : full;
    }

    /** Points {@link #target} at {@code count} octets of the work's elements from {@code position}. */
    boolean gather(SendWork work, long position, int count) {
        if (count == 0) {
            s.target.set(s.header, 0);
            return true;
        }
        int element = 0;
        long offset = position;
        while (offset >= Integer.toUnsignedLong(work.sges.length[element])) {
            offset -= Integer.toUnsignedLong(work.sges.length[element]);
            element++;
        }
        if (offset + count <= Integer.toUnsignedLong(work.sges.length[element])) {
            return resolveLocal(work, element, offset, count, s.target);
        }
        if (s.llp.holdsPayload()) { // the last segment gathered may be held where it lies, in the gather buffer
            s.llp.flush();
            if (s.llp.holdsPayload()) {
                s.backPressured = true; // onWritable follows once the LLP let go of it
                return false;
            }
        }
        int copied = 0;
        while (copied < count) {
            int take = (int) Math.min(count - copied, Integer.toUnsignedLong(work.sges.length[element]) - offset);
            if (!resolveLocal(work, element, offset, take, s.piece)) {
                return false;
            }
            MemorySegment.copy(s.piece.memory(), s.piece.offset(), s.gatherBuffer, copied, take);
            copied += take;
            element++;
            offset = 0;
        }
        s.target.set(s.gatherBuffer, 0);
        return true;
    }

    boolean resolveLocal(SendWork work, int element, long offset, int count, PlacementTarget into) {
        int check = s.memory.resolve(work.sges.lkey[element], work.sges.address[element] + offset, count,
                StagResolver.LOCAL_READ, into);
        if (check != StagResolver.OK) {
            termination.localError(work, WcStatus.LOC_PROT_ERR, "lkey " + Termination.hex(work.sges.lkey[element])
                    + ": " + Termination.name(check));
            return false;
        }
        return true;
    }

    boolean transmitResponse() {
        EngineState.InboundRead read = s.irrq[s.irrqHead];
        int room = s.llp.mulpdu() - TAGGED;
        int control = RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);
        do {
            int count = payload(room, TAGGED, read.size - read.sent);
            boolean last = read.sent + count == read.size;
            s.tx.bind(s.header, 0, TAGGED).writeTagged(last, control, read.sinkStag, read.sinkTo + read.sent);
            if (count > 0) {
                // checked again per segment: the region may have been invalidated since the request
                int check = s.memory.resolve(read.srcStag, read.srcTo + read.sent, count, StagResolver.REMOTE_READ,
                        s.target);
                if (check != StagResolver.OK) {
                    ReadRequestHeader progressed = new ReadRequestHeader(read.sinkStag, read.sinkTo + read.sent,
                            (int) (read.size - read.sent), read.srcStag, read.srcTo + read.sent);
                    DdpHeader request = DdpUntaggedHeader.of(true,
                            RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST), 0, RdmapControl.READ_REQUEST_QUEUE,
                            read.msn, 0);
                    termination.sendTerminateFor(TerminateHeader.of(Termination.sourceCause(check),
                            ReadRequestHeader.LENGTH, request,
                            progressed), null, null, "Read source " + Termination.hex(read.srcStag) + " became "
                                    + Termination.name(check));
                    return false;
                }
            } else {
                s.target.set(s.header, 0);
            }
            if (!sent(s.llp.send(s.header, 0, TAGGED, s.target.memory(), s.target.offset(), count))) {
                return false;
            }
            read.sent += count;
        } while (read.sent < read.size);
        s.irrqHead = (s.irrqHead + 1) % s.irrq.length;
        s.irrqCount--;
        return true;
    }

    boolean sent(int outcome) {
        if (outcome == LlpStream.SENT) {
            return true;
        }
        if (outcome == LlpStream.BACK_PRESSURED) {
            s.backPressured = true;
        }
        return false; // CLOSED: onClosed follows
    }

    void finish(SendWork work, WcStatus status, long byteLength) {
        work.done = true;
        work.status = status;
        work.byteLength = byteLength;
        reportCompletions();
    }

    /**
     * Reports finished work in send-queue order (RFC 5040 §5.5: local completions in submission order), up to the
     * first one whose payload the LLP still {@linkplain #held holds}: the application may reuse a completed send's
     * memory at once.
     */
    void reportCompletions() {
        while (!s.inOrder.isEmpty() && s.inOrder.peekFirst().done && !held(s.inOrder.peekFirst())) {
            SendWork work = s.inOrder.pollFirst();
            if (!work.internal) {
                s.queues.sendCompleted(work, work.status, work.byteLength);
            }
        }
    }

    void sendTerminate() {
        int length = UNTAGGED + s.terminate.length();
        s.tx.bind(s.header, 0, UNTAGGED).writeUntagged(true, RdmapControl.encode(RdmapOpcode.TERMINATE), 0,
                RdmapControl.TERMINATE_QUEUE, 1, 0);
        s.terminate.encodeTo(s.header, UNTAGGED);
        int outcome = s.llp.send(s.header, 0, length, s.header, 0, 0);
        if (outcome == LlpStream.BACK_PRESSURED) {
            s.backPressured = true;
            return;
        }
        s.terminateSent = true; // sent or the LLP is gone: nothing more goes out on this stream (RFC 5040 §5.4)
        s.llpClosing = true;
        s.llp.close();
    }

    void onWritable() {
        s.backPressured = false;
        drain();
    }
}
