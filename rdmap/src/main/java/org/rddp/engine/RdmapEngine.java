package org.rddp.engine;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rddp.ddp.DdpHeader;
import org.rddp.ddp.DdpSegment;
import org.rddp.ddp.DdpUntaggedHeader;
import org.rddp.error.DdpError;
import org.rddp.error.ErrorLayer;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;
import org.rddp.llp.LlpParameters;
import org.rddp.loop.Loop;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;
import org.rddp.llp.RtrType;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.ReadRequestHeader;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * The DDP and RDMAP protocol machine of one stream (RFC 5041, RFC 5040). It segments outgoing messages to the
 * LLP's MULPDU, places incoming tagged and untagged payload after checking every STag, queue, MSN and offset,
 * delivers messages in order, answers RDMA Read Requests within IRD and keeps its own reads within ORD, and
 * turns the first error into a Terminate with the cause, layer and copied headers RFC 5040 §7.1 prescribes,
 * after which it places nothing more and flushes all outstanding work.
 *
 * <p>Single-threaded: it runs on the {@link Loop} its LLP stream lives on. {@link #start}, {@link #wakeup},
 * {@link #disconnect}, {@link #abort} and {@link #state} may be called on any thread: they queue a command on the
 * loop (or run it at once on a manual loop's own thread, outside a duty cycle).
 */
public final class RdmapEngine implements LlpSink {
    private static final int HEADER_SCRATCH = 128;
    private static final int UNTAGGED = DdpSegment.UNTAGGED_HEADER_LENGTH;
    private static final int TAGGED = DdpSegment.TAGGED_HEADER_LENGTH;
    private static final long MAX_MESSAGE = 0xFFFF_FFFFL;

    private final LlpStream llp;
    private final Loop loop;
    private final StagResolver memory;
    private final WorkQueues queues;
    private final LlpParameters parameters;
    private final MemorySegment header = MemorySegment.ofArray(new byte[HEADER_SCRATCH]);
    private final MemorySegment gatherBuffer = MemorySegment.ofArray(new byte[0x10000]);
    private final DdpSegment tx = new DdpSegment();
    private final DdpSegment rx = new DdpSegment();
    private final PlacementTarget target = new PlacementTarget();
    private final PlacementTarget piece = new PlacementTarget();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = () -> {
        drainScheduled.set(false);
        drain();
    };
    private final Runnable startTask = this::startOnLoop;
    private final SendWork rtrWork = new SendWork(1);

    private volatile QpState state = QpState.IDLE;

    // Send side, in SQ order.
    private final ArrayDeque<SendWork> inOrder = new ArrayDeque<>();
    private final ArrayDeque<SendWork> readsOutstanding = new ArrayDeque<>();
    private SendWork current;
    private int sendMsn = 1;
    private int readRequestMsn = 1;
    private boolean backPressured;
    private boolean holding;
    private boolean closeRequested;
    private boolean llpClosing;

    // Responder side of RDMA Read: the IRRQ, a ring.
    private final InboundRead[] irrq;
    private int irrqHead;
    private int irrqCount;

    // Receive side.
    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    private ReceiveWork receiving;
    private long received;
    private long responseReceived;
    private boolean firstSegmentSeen;

    // Termination.
    private TerminateHeader terminate;
    private boolean terminateSent;

    /** One accepted RDMA Read Request waiting for (or in) its response. */
    private static final class InboundRead {
        int msn;
        int sinkStag;
        long sinkTo;
        long size;
        int srcStag;
        long srcTo;
        long sent;
    }

    /**
     * An engine for {@code llp}, which lives on {@code loop}, reaching memory through {@code memory} and work through
     * {@code queues}. Nothing happens until {@link #start()}.
     */
    public RdmapEngine(LlpStream llp, Loop loop, StagResolver memory, WorkQueues queues) {
        this.llp = llp;
        this.loop = loop;
        this.memory = memory;
        this.queues = queues;
        this.parameters = llp.parameters();
        int capacity = Math.max(parameters.ird(), parameters.rtrToReceive() == RtrType.READ ? 1 : 0);
        irrq = new InboundRead[capacity];
        for (int i = 0; i < capacity; i++) {
            irrq[i] = new InboundRead();
        }
    }

    /** The current state; any thread. */
    public QpState state() {
        return state;
    }

    /**
     * Brings the stream up on its loop: the engine enters RTS, then the LLP starts delivering, so that no segment
     * can reach an engine that is not ready. Any thread.
     */
    public void start() {
        loop.runNowOrLater(startTask);
    }

    /** Work was posted: the loop will look at the send queue. Any thread; allocates nothing. */
    public void wakeup() {
        if (drainScheduled.compareAndSet(false, true)) {
            loop.runNowOrLater(drainTask);
        }
    }

    /** Starts a graceful disconnect: posted sends finish, then the LLP stream closes. Any thread. */
    public void disconnect() {
        loop.execute(() -> {
            if (state == QpState.RTS) {
                setState(QpState.CLOSING);
                closeRequested = true;
                drain();
            }
        });
    }

    /** Tears the stream down at once; outstanding work is flushed. Any thread. */
    public void abort(String reason) {
        loop.execute(() -> {
            if (state != QpState.ERROR) {
                flushAll(null, null);
                toError(QpEvent.CONNECTION_LOST, reason);
            }
            llp.abort(); // the stream reports its close to an engine already in ERROR: nothing more happens
        });
    }

    private void startOnLoop() {
        if (state == QpState.IDLE) {
            begin();
            llp.start(this); // RTS first: no segment can reach an engine that is not ready
        }
    }

    private void begin() {
        if (state != QpState.IDLE) {
            return;
        }
        setState(QpState.RTS);
        holding = parameters.holdUntilReceived();
        queues.event(QpEvent.ESTABLISHED, null, "stream up, IRD " + parameters.ird() + ", ORD " + parameters.ord());
        if (parameters.rtrToSend() != RtrType.NONE) {
            SendWork rtr = rtrWork;
            rtr.reset();
            rtr.internal = true;
            rtr.sges.count = 0;
            rtr.remoteStag = 1; // a zero-length Write's STag is not checked; STag 0 may be special to some RNICs
            rtr.remoteTo = 0;
            rtr.opcode = switch (parameters.rtrToSend()) {
                case SEND -> WorkOpcode.SEND;
                case WRITE -> WorkOpcode.RDMA_WRITE;
                default -> WorkOpcode.RDMA_READ;
            };
            current = rtr;
            inOrder.add(rtr);
        }
        drain();
    }

    // ------------------------------------------------------------------------------------------ transmit

    /** Sends what the queues and the peer's Read Requests allow, then has the LLP send what it held back. */
    private void drain() {
        transmit();
        llp.flush();
    }

    private void transmit() {
        QpState now = state;
        if (now == QpState.TERMINATE || now == QpState.ERROR) {
            if (terminate != null && !terminateSent) {
                sendTerminate();
            }
            flushPosted();
            return;
        }
        if (now == QpState.IDLE || backPressured) {
            return;
        }
        while (true) {
            if (irrqCount > 0) {
                if (!transmitResponse()) {
                    return;
                }
                continue;
            }
            if (current == null) {
                SendWork next = queues.nextSend();
                if (next == null) {
                    break;
                }
                next.reset();
                current = next;
                inOrder.add(next);
            }
            if (holding && current.opcode != WorkOpcode.BIND_MEMORY_WINDOW
                    && current.opcode != WorkOpcode.LOCAL_INVALIDATE) {
                return; // nothing on the wire before the first segment arrives; local work goes on (RFC 5044 §7.1.2)
            }
            if (!transmitCurrent()) {
                return;
            }
        }
        if (closeRequested && readsOutstanding.isEmpty() && !llpClosing) {
            llpClosing = true;
            llp.close();
        }
    }

    private boolean transmitCurrent() {
        SendWork work = current;
        return switch (work.opcode) {
            case BIND_MEMORY_WINDOW, LOCAL_INVALIDATE -> executeLocal(work);
            case RDMA_READ -> transmitReadRequest(work);
            default -> transmitMessage(work);
        };
    }

    private boolean executeLocal(SendWork work) {
        WcStatus status = queues.executeLocal(work);
        current = null;
        if (status != WcStatus.SUCCESS) {
            localError(work, status, work.opcode + " failed");
            return false;
        }
        finish(work, WcStatus.SUCCESS, 0);
        return true;
    }

    private boolean transmitReadRequest(SendWork work) {
        if (!work.internal && readsOutstanding.size() >= parameters.ord()) {
            return false; // ORD reached: the send queue waits for a Read Response (RFC 5040 §6.1)
        }
        int size = 0;
        int sinkStag = 0;
        long sinkTo = 0;
        if (!work.internal) {
            if (work.sges.count != 1) {
                // RFC 5040 §4.4: one Read Request names one sink buffer
                localError(work, WcStatus.LOC_QP_OP_ERR, "an RDMA Read takes exactly one sink element");
                return false;
            }
            size = work.sges.length[0];
            sinkStag = work.sges.lkey[0];
            sinkTo = work.sges.address[0];
            int check = memory.resolve(sinkStag, sinkTo, Integer.toUnsignedLong(size), StagResolver.LOCAL_WRITE,
                    target);
            if (check != StagResolver.OK) {
                localError(work, WcStatus.LOC_PROT_ERR, "sink lkey " + hex(sinkStag) + ": " + name(check));
                return false;
            }
        }
        tx.bind(header, 0, UNTAGGED).writeUntagged(true, RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST), 0,
                RdmapControl.READ_REQUEST_QUEUE, readRequestMsn, 0);
        ReadRequestHeader.write(header, UNTAGGED, sinkStag, sinkTo, size, work.remoteStag, work.remoteTo);
        if (!sent(llp.send(header, 0, UNTAGGED + ReadRequestHeader.LENGTH, header, 0, 0))) {
            return false;
        }
        readRequestMsn++;
        work.byteLength = Integer.toUnsignedLong(size);
        readsOutstanding.add(work);
        current = null;
        return true;
    }

    private boolean transmitMessage(SendWork work) {
        long total = work.sges.totalLength();
        if (total > MAX_MESSAGE) {
            localError(work, WcStatus.LOC_LEN_ERR, "message of " + total + " octets exceeds 2^32 - 1");
            return false;
        }
        RdmapOpcode opcode = work.opcode.rdmapOpcode();
        int control = RdmapControl.encode(opcode);
        boolean tagged = opcode.tagged();
        int headerLength = tagged ? TAGGED : UNTAGGED;
        int room = llp.mulpdu() - headerLength;
        do {
            int count = (int) Math.min(room, total - work.sent);
            boolean last = work.sent + count == total;
            tx.bind(header, 0, headerLength);
            if (tagged) {
                tx.writeTagged(last, control, work.remoteStag, work.remoteTo + work.sent);
            } else {
                tx.writeUntagged(last, control, opcode.invalidates() ? work.remoteStag : 0,
                        RdmapControl.SEND_QUEUE, sendMsn, (int) work.sent);
            }
            if (!gather(work, work.sent, count)) {
                return false;
            }
            if (!sent(llp.send(header, 0, headerLength, target.memory(), target.offset(), count))) {
                return false;
            }
            work.sent += count;
        } while (work.sent < total);
        if (!tagged) {
            sendMsn++;
        }
        current = null;
        finish(work, WcStatus.SUCCESS, total);
        return true;
    }

    /** Points {@link #target} at {@code count} octets of the work's elements from {@code position}. */
    private boolean gather(SendWork work, long position, int count) {
        if (count == 0) {
            target.set(header, 0);
            return true;
        }
        int element = 0;
        long offset = position;
        while (offset >= Integer.toUnsignedLong(work.sges.length[element])) {
            offset -= Integer.toUnsignedLong(work.sges.length[element]);
            element++;
        }
        if (offset + count <= Integer.toUnsignedLong(work.sges.length[element])) {
            return resolveLocal(work, element, offset, count, target);
        }
        int copied = 0;
        while (copied < count) {
            int take = (int) Math.min(count - copied, Integer.toUnsignedLong(work.sges.length[element]) - offset);
            if (!resolveLocal(work, element, offset, take, piece)) {
                return false;
            }
            MemorySegment.copy(piece.memory(), piece.offset(), gatherBuffer, copied, take);
            copied += take;
            element++;
            offset = 0;
        }
        target.set(gatherBuffer, 0);
        return true;
    }

    private boolean resolveLocal(SendWork work, int element, long offset, int count, PlacementTarget into) {
        int check = memory.resolve(work.sges.lkey[element], work.sges.address[element] + offset, count,
                StagResolver.LOCAL_READ, into);
        if (check != StagResolver.OK) {
            localError(work, WcStatus.LOC_PROT_ERR, "lkey " + hex(work.sges.lkey[element]) + ": " + name(check));
            return false;
        }
        return true;
    }

    private boolean transmitResponse() {
        InboundRead read = irrq[irrqHead];
        int room = llp.mulpdu() - TAGGED;
        int control = RdmapControl.encode(RdmapOpcode.RDMA_READ_RESPONSE);
        do {
            int count = (int) Math.min(room, read.size - read.sent);
            boolean last = read.sent + count == read.size;
            tx.bind(header, 0, TAGGED).writeTagged(last, control, read.sinkStag, read.sinkTo + read.sent);
            if (count > 0) {
                // checked again per segment: the region may have been invalidated since the request
                int check = memory.resolve(read.srcStag, read.srcTo + read.sent, count, StagResolver.REMOTE_READ,
                        target);
                if (check != StagResolver.OK) {
                    ReadRequestHeader progressed = new ReadRequestHeader(read.sinkStag, read.sinkTo + read.sent,
                            (int) (read.size - read.sent), read.srcStag, read.srcTo + read.sent);
                    DdpHeader request = DdpUntaggedHeader.of(true,
                            RdmapControl.encode(RdmapOpcode.RDMA_READ_REQUEST), 0, RdmapControl.READ_REQUEST_QUEUE,
                            read.msn, 0);
                    sendTerminateFor(TerminateHeader.of(sourceCause(check), ReadRequestHeader.LENGTH, request,
                            progressed), null, null, "Read source " + hex(read.srcStag) + " became " + name(check));
                    return false;
                }
            } else {
                target.set(header, 0);
            }
            if (!sent(llp.send(header, 0, TAGGED, target.memory(), target.offset(), count))) {
                return false;
            }
            read.sent += count;
        } while (read.sent < read.size);
        irrqHead = (irrqHead + 1) % irrq.length;
        irrqCount--;
        return true;
    }

    private boolean sent(int outcome) {
        if (outcome == LlpStream.SENT) {
            return true;
        }
        if (outcome == LlpStream.BACK_PRESSURED) {
            backPressured = true;
        }
        return false; // CLOSED: onClosed follows
    }

    private void finish(SendWork work, WcStatus status, long byteLength) {
        work.done = true;
        work.status = status;
        work.byteLength = byteLength;
        reportCompletions();
    }

    /** Reports finished work in send-queue order (RFC 5040 §5.5: local completions in submission order). */
    private void reportCompletions() {
        while (!inOrder.isEmpty() && inOrder.peekFirst().done) {
            SendWork work = inOrder.pollFirst();
            if (!work.internal) {
                queues.sendCompleted(work, work.status, work.byteLength);
            }
        }
    }

    private void sendTerminate() {
        int length = UNTAGGED + terminate.length();
        tx.bind(header, 0, UNTAGGED).writeUntagged(true, RdmapControl.encode(RdmapOpcode.TERMINATE), 0,
                RdmapControl.TERMINATE_QUEUE, 1, 0);
        terminate.encodeTo(header, UNTAGGED);
        int outcome = llp.send(header, 0, length, header, 0, 0);
        if (outcome == LlpStream.BACK_PRESSURED) {
            backPressured = true;
            return;
        }
        terminateSent = true; // sent or the LLP is gone: nothing more goes out on this stream (RFC 5040 §5.4)
        llpClosing = true;
        llp.close();
    }

    @Override
    public void onWritable() {
        backPressured = false;
        drain();
    }

    // ------------------------------------------------------------------------------------------ receive

    @Override
    public boolean placeTagged(DdpSegment segment, int payloadLength, PlacementTarget into) {
        if (!accepting() || payloadLength == 0 || !RdmapControl.validate(segment, parameters.rdmapVersion()).ok()) {
            return false;
        }
        RdmapOpcode opcode = RdmapControl.opcode(segment.rsvdUlp());
        long length = payloadLength;
        if (opcode == RdmapOpcode.RDMA_WRITE) {
            return memory.resolve(segment.stag(), segment.to(), length, StagResolver.REMOTE_WRITE, into)
                    == StagResolver.OK;
        }
        SendWork read = readsOutstanding.peekFirst();
        if (read == null || segment.stag() != read.sges.lkey[0]) {
            return false;
        }
        long start = segment.to() - read.sges.address[0];
        if (Long.compareUnsigned(start, read.byteLength) >= 0 || length > read.byteLength - start) {
            return false;
        }
        return memory.resolve(segment.stag(), segment.to(), length, StagResolver.LOCAL_WRITE, into)
                == StagResolver.OK;
    }

    @Override
    public void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
        if (!accepting()) {
            return; // after an error: silently drop (RFC 5041 §7.1)
        }
        DecodeStatus status = rx.wrap(buffer, offset, length, parameters.ddpVersion());
        if (!status.ok()) {
            protocolError(status.terminateCause().orElseThrow(), status != DecodeStatus.DDP_SEGMENT_TRUNCATED,
                    null, status.name());
            return;
        }
        status = RdmapControl.validate(rx, parameters.rdmapVersion());
        if (!status.ok()) {
            if (status == DecodeStatus.RDMAP_TERMINATE_MALFORMED) {
                onTerminate(true);
            } else {
                protocolError(status.terminateCause().orElseThrow(), true, null, status.name());
            }
            return;
        }
        boolean first = !firstSegmentSeen;
        firstSegmentSeen = true;
        if (holding) {
            holding = false;
            wakeup();
        }
        RdmapOpcode opcode = RdmapControl.opcode(rx.rsvdUlp());
        if (first && parameters.rtrToReceive() != RtrType.NONE && opcode != RdmapOpcode.TERMINATE
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
    private boolean acceptRtr(RdmapOpcode opcode) {
        RtrType expected = parameters.rtrToReceive();
        boolean matches = switch (expected) {
            case SEND -> opcode == RdmapOpcode.SEND && rx.msn() == 1 && rx.last() && rx.payloadLength() == 0;
            case WRITE -> opcode == RdmapOpcode.RDMA_WRITE && rx.last() && rx.payloadLength() == 0;
            case READ -> opcode == RdmapOpcode.RDMA_READ_REQUEST
                    && Wire.u32(rx.buffer(), rx.payloadOffset() + ReadRequestHeader.READ_SIZE_OFFSET) == 0;
            case NONE -> true;
        };
        if (!matches) {
            protocolError(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, null,
                    "first message is not the negotiated " + expected + " RTR");
            return false;
        }
        if (expected == RtrType.SEND) {
            expectedSendMsn++; // the provider's, not a user's, receive (RFC 6581 §9.2)
            return false;
        }
        return expected == RtrType.READ; // a Read RTR is answered like any zero-length Read; a Write RTR is done
    }

    private void onWrite(boolean payloadPlaced) {
        int length = rx.payloadLength();
        if (length == 0 || payloadPlaced) {
            return; // zero-length: STag and TO are not checked (RFC 5041 §5.2)
        }
        int check = memory.resolve(rx.stag(), rx.to(), length, StagResolver.REMOTE_WRITE, target);
        if (check != StagResolver.OK) {
            protocolError(taggedCause(check), true, null, "RDMA Write to " + hex(rx.stag()) + ": " + name(check));
            return;
        }
        place();
    }

    private void onReadResponse(boolean payloadPlaced) {
        SendWork read = readsOutstanding.peekFirst();
        if (read == null) {
            protocolError(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE, true, null,
                    "Read Response without an outstanding Read Request");
            return;
        }
        int length = rx.payloadLength();
        if (length > 0 && !read.internal) {
            if (rx.stag() != read.sges.lkey[0]) {
                protocolError(DdpError.TAGGED_INVALID_STAG, true, null, "Read Response to " + hex(rx.stag())
                        + ", the request named " + hex(read.sges.lkey[0]));
                return;
            }
            long expectedTo = read.sges.address[0] + responseReceived;
            if (rx.to() != expectedTo || length > read.byteLength - responseReceived) {
                protocolError(DdpError.TAGGED_BASE_OR_BOUNDS, true, null, "Read Response outside the sink buffer");
                return;
            }
            if (!payloadPlaced) {
                int check = memory.resolve(rx.stag(), rx.to(), length, StagResolver.LOCAL_WRITE, target);
                if (check != StagResolver.OK) {
                    localError(read, WcStatus.LOC_PROT_ERR, "Read sink " + hex(rx.stag()) + ": " + name(check));
                    return;
                }
                place();
            }
        } else if (length > 0) {
            protocolError(DdpError.TAGGED_BASE_OR_BOUNDS, true, null, "data in the response to a Read RTR");
            return;
        }
        responseReceived += length;
        if (rx.last()) {
            readsOutstanding.pollFirst();
            long delivered = responseReceived;
            responseReceived = 0;
            finish(read, WcStatus.SUCCESS, delivered);
            wakeup(); // an ORD slot is free again
        }
    }

    private void onSend(RdmapOpcode opcode) {
        int msn = rx.msn();
        if (msn != expectedSendMsn) {
            protocolError(DdpError.UNTAGGED_MSN_RANGE, true, null,
                    "Send MSN " + Integer.toUnsignedString(msn) + ", expected " + expectedSendMsn);
            return;
        }
        if (receiving == null) {
            receiving = queues.nextReceive();
            received = 0;
            if (receiving == null) {
                protocolError(DdpError.UNTAGGED_NO_BUFFER, true, null, "no receive posted for MSN " + msn);
                return;
            }
        }
        long mo = Integer.toUnsignedLong(rx.mo());
        int length = rx.payloadLength();
        if (mo != received) {
            protocolError(DdpError.UNTAGGED_INVALID_MO, true, null, "MO " + mo + ", " + received + " received");
            return;
        }
        if (mo + length > receiving.sges.totalLength()) {
            ReceiveWork work = receiving;
            receiving = null;
            queues.receiveCompleted(work, WcStatus.LOC_LEN_ERR, mo + length, opcode, 0);
            protocolError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, true, null, "Send of at least " + (mo + length)
                    + " octets into a " + work.sges.totalLength() + "-octet receive");
            return;
        }
        if (!scatter(mo, length, opcode)) {
            return;
        }
        received += length;
        if (!rx.last()) {
            return;
        }
        expectedSendMsn++;
        int invalidated = 0;
        if (opcode.invalidates()) {
            invalidated = rx.invalidateStag();
            int check = memory.invalidate(invalidated, true);
            if (check != StagResolver.OK) {
                protocolError(check == StagResolver.CANNOT_INVALIDATE ? RdmapError.REMOTE_OPERATION_CANNOT_INVALIDATE
                        : RdmapError.REMOTE_PROTECTION_CANNOT_INVALIDATE, true, null,
                        "cannot invalidate " + hex(invalidated) + ": " + name(check));
                return;
            }
        }
        ReceiveWork work = receiving;
        receiving = null;
        queues.receiveCompleted(work, WcStatus.SUCCESS, received, opcode, invalidated);
    }

    /** Places the segment's payload at {@code mo} of the current receive, across its elements. */
    private boolean scatter(long mo, int length, RdmapOpcode opcode) {
        ReceiveWork work = receiving;
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
            int check = memory.resolve(work.sges.lkey[element], work.sges.address[element] + offset, take,
                    StagResolver.LOCAL_WRITE, target);
            if (check != StagResolver.OK) {
                receiving = null;
                queues.receiveCompleted(work, WcStatus.LOC_PROT_ERR, 0, opcode, 0);
                protocolError(RdmapError.LOCAL_CATASTROPHIC, false, null,
                        "receive lkey " + hex(work.sges.lkey[element]) + ": " + name(check));
                return false;
            }
            if (!copy(rx.buffer(), rx.payloadOffset() + placed, take)) {
                return false;
            }
            placed += take;
            element++;
            offset = 0;
        }
        return true;
    }

    private void onReadRequest() {
        int msn = rx.msn();
        if (msn != expectedReadMsn) {
            protocolError(DdpError.UNTAGGED_MSN_RANGE, true, null,
                    "Read Request MSN " + Integer.toUnsignedString(msn) + ", expected " + expectedReadMsn);
            return;
        }
        ReadRequestHeader request = ReadRequestHeader.decode(rx.buffer(), rx.payloadOffset());
        if (irrqCount == irrq.length) {
            // a QN 1 buffer is an IRRQ entry (RFC 5040 §5.2): beyond IRD there is none
            protocolError(DdpError.UNTAGGED_NO_BUFFER, true, null, "Read Request beyond IRD " + parameters.ird());
            return;
        }
        long size = Integer.toUnsignedLong(request.readMessageSize());
        if (size > 0) {
            int check = memory.resolve(request.srcStag(), request.srcTo(), size, StagResolver.REMOTE_READ, target);
            if (check != StagResolver.OK) {
                protocolError(sourceCause(check), true, request,
                        "Read of " + hex(request.srcStag()) + ": " + name(check));
                return;
            }
        }
        expectedReadMsn++;
        InboundRead read = irrq[(irrqHead + irrqCount) % irrq.length];
        read.msn = msn;
        read.sinkStag = request.sinkStag();
        read.sinkTo = request.sinkTo();
        read.size = size;
        read.srcStag = request.srcStag();
        read.srcTo = request.srcTo();
        read.sent = 0;
        irrqCount++;
        wakeup();
    }

    private void onTerminate(boolean malformed) {
        TerminateHeader received = null;
        String detail;
        try {
            received = TerminateHeader.decode(rx.buffer(), rx.payloadOffset(), rx.payloadLength());
            detail = received.cause().map(TerminateCause::description)
                    .orElse("undefined cause " + received.layer() + "/" + received.etype() + "/" + received.code());
        } catch (MalformedFrameException e) {
            detail = "malformed Terminate: " + e.getMessage();
        }
        if (malformed && received != null) {
            detail = "malformed Terminate (not one segment at MO 0): " + detail;
        }
        SendWork culprit = received != null && received.terminatedRdmaHeader() != null
                ? readsOutstanding.peekFirst() : null;
        terminateSent = true; // never answer a Terminate with one (RFC 5040 §5.4)
        terminate = received;
        setState(QpState.TERMINATE);
        queues.event(QpEvent.TERMINATE_RECEIVED, received, detail);
        flushAll(culprit, culprit == null ? null : statusFor(received));
        llpClosing = true;
        llp.close();
    }

    private boolean copy(MemorySegment source, long sourceOffset, int length) {
        try {
            MemorySegment.copy(source, sourceOffset, target.memory(), target.offset(), length);
            return true;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // the region's memory went away under us (its arena was closed): never touch it again
            protocolError(RdmapError.LOCAL_CATASTROPHIC, false, null, "region memory unavailable: " + e.getMessage());
            return false;
        }
    }

    private void place() {
        copy(rx.buffer(), rx.payloadOffset(), rx.payloadLength());
    }

    // ------------------------------------------------------------------------------------------ errors

    private boolean accepting() {
        QpState now = state;
        return (now == QpState.RTS || now == QpState.CLOSING) && terminate == null;
    }

    /** A protocol error in the segment bound in {@link #rx}: the first one becomes the Terminate. */
    private void protocolError(TerminateCause cause, boolean headerAvailable, ReadRequestHeader request,
            String detail) {
        if (terminate != null || state == QpState.ERROR) {
            return;
        }
        TerminateHeader message;
        if (headerAvailable && cause.carriesDdpHeader()) {
            DdpHeader copy = rx.header();
            int length = rx.payloadLength(); // the length DDP hands up, as siw fills it (digest §2.4)
            message = request != null && cause.carriesRdmaHeader() ? TerminateHeader.of(cause, length, copy, request)
                    : TerminateHeader.of(cause, length, copy);
        } else {
            message = TerminateHeader.of(cause);
        }
        sendTerminateFor(message, null, null, detail);
    }

    /** A local error while building or placing this side's work (RFC 5040 §7.1 rule 1). */
    private void localError(SendWork culprit, WcStatus status, String detail) {
        if (terminate != null || state == QpState.ERROR) {
            return;
        }
        if (culprit != null && !culprit.done && !inOrder.contains(culprit)) {
            culprit.done = true;
            culprit.status = status;
            queues.sendCompleted(culprit, status, 0);
        }
        sendTerminateFor(TerminateHeader.of(RdmapError.LOCAL_CATASTROPHIC), culprit, status,
                detail + " -> " + status);
    }

    private void sendTerminateFor(TerminateHeader message, SendWork culprit, WcStatus culpritStatus,
            String detail) {
        terminate = message;
        setState(QpState.TERMINATE);
        queues.event(QpEvent.TERMINATE_SENT, message, detail);
        flushAll(culprit, culpritStatus);
        backPressured = false;
        sendTerminate();
    }

    @Override
    public void onLlpError(TerminateCause cause, String detail) {
        if (terminate != null || state == QpState.ERROR) {
            return;
        }
        sendTerminateFor(TerminateHeader.of(cause), null, null, detail);
    }

    @Override
    public void onClosed(boolean graceful, String reason) {
        if (state == QpState.ERROR) {
            return;
        }
        if (state == QpState.TERMINATE) {
            toError(null, reason);
            return;
        }
        boolean idle = current == null && inOrder.isEmpty() && receiving == null;
        flushAll(null, null);
        if (graceful) {
            setState(idle ? QpState.IDLE : QpState.ERROR);
            queues.event(QpEvent.DISCONNECTED, null, reason);
        } else {
            toError(QpEvent.CONNECTION_LOST, reason);
        }
    }

    private void toError(QpEvent event, String reason) {
        setState(QpState.ERROR);
        if (event != null) {
            queues.event(event, null, reason);
        }
    }

    /**
     * Completes everything outstanding: {@code culprit} with {@code status}, all else with WR_FLUSH_ERR, in
     * send-queue order; then the receives.
     */
    private void flushAll(SendWork culprit, WcStatus status) {
        for (SendWork work : inOrder) {
            if (!work.done) {
                work.done = true;
                work.status = work == culprit ? status : WcStatus.WR_FLUSH_ERR;
            }
        }
        current = null;
        readsOutstanding.clear();
        irrqCount = 0;
        reportCompletions();
        flushPosted();
        if (receiving != null) {
            ReceiveWork work = receiving;
            receiving = null;
            queues.receiveCompleted(work, WcStatus.WR_FLUSH_ERR, 0, null, 0);
        }
        queues.flushReceives();
    }

    private void flushPosted() {
        for (SendWork work = queues.nextSend(); work != null; work = queues.nextSend()) {
            work.reset();
            queues.sendCompleted(work, WcStatus.WR_FLUSH_ERR, 0);
        }
    }

    private void setState(QpState next) {
        state = next;
        queues.stateChanged(next);
    }

    private static TerminateCause taggedCause(int check) {
        return switch (check) {
            case StagResolver.BASE_OR_BOUNDS -> DdpError.TAGGED_BASE_OR_BOUNDS;
            case StagResolver.NOT_ASSOCIATED -> DdpError.TAGGED_STAG_NOT_ASSOCIATED;
            case StagResolver.TO_WRAP -> DdpError.TAGGED_TO_WRAP;
            // RFC 5041 has no access-rights code; RFC 5040's Remote Protection code names it exactly
            case StagResolver.ACCESS_RIGHTS -> RdmapError.REMOTE_PROTECTION_ACCESS_RIGHTS;
            default -> DdpError.TAGGED_INVALID_STAG;
        };
    }

    private static TerminateCause sourceCause(int check) {
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

    private static String name(int check) {
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

    private static String hex(int stag) {
        return String.format("STag 0x%08x", stag);
    }
}
