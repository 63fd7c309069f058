package org.rddp.exs;

import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.EnumSet;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.exs.ExsMessage.Rearm;
import org.rddp.exs.ExsReceiver.RecvOp;
import org.rddp.exs.ExsSender.SendOp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QpEventHandler;
import org.rddp.work.QpState;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * The EXS protocol of one connected socket over its queue pair (the package documentation draws the messages), and
 * the face of its two sides: {@link ExsSender} (credits, windows, advertisements, acknowledgements received) and
 * {@link ExsReceiver} (advertisements held, receives matched, reads and copies in order, acknowledgements and read
 * notifications owed). The connection holds what both share: the queue pair, the receive buffers every message of
 * the peer lands in, the header slots every message to it goes out from, the answers waiting for a slot
 * (acknowledgements, read notifications, rearms) and the batch of completions they wait for, the completions routed
 * to either side, and the end. Everything here runs under its queue's lock: on the dequeuing thread for
 * completions, on a caller's thread for its posts.
 */
final class ExsConnection {
    /** Kinds of work request, in a request's id above its index. */
    static final long RECEIVE = 1L << 56;
    static final long ADVERTISE = 2L << 56;
    static final long CONTROL = 3L << 56;
    static final long READ = 4L << 56;
    static final long UNSIGNALED = 5L << 56;
    private static final long KIND = 0xFFL << 56;
    /** Octets of a header slot for an outgoing message. */
    static final int HEADER = ExsMessage.ADVERTISEMENT_LENGTH;

    private final ExsSocket socket;
    private final ExsQueue queue;
    final Exs exs;
    final QueuePair qp;
    final int bufferSize;
    /** Completions this connection can have outstanding at once, reserved in its queue's completion queue. */
    private final int completions;
    final MemoryRegion receiveBuffers;
    final MemoryRegion headers;
    final ArrayDeque<Integer> freeHeaders = new ArrayDeque<>();
    /** Whether new work goes out: from establishment until the socket closes or fails. */
    boolean open;
    private boolean ended;
    private final ExsSender sender;
    private final ExsReceiver receiver;

    private final ArrayDeque<Control> waitingControl = new ArrayDeque<>();
    /**
     * Whether the queue is handing this connection a batch of completions: answers wait for its end, so that the
     * immediate messages taken in one batch are acknowledged together.
     */
    private boolean batching;

    /** The one send request both sides build their posts in, one at a time. */
    final SendWorkRequest sendRequest = new SendWorkRequest(2);
    private final ReceiveWorkRequest receiveRequest = new ReceiveWorkRequest(1);

    /**
     * Makes the queue pair and posts the receive buffers, before the peer can send: room for {@code receiveSlots}
     * advertisements of up to {@code immediateIn} immediate octets, and as many acknowledgements.
     */
    ExsConnection(ExsSocket socket, Exs exs, ExsQueue queue, int receiveSlots, int immediateIn,
            QpEventHandler events) {
        this.socket = socket;
        this.queue = queue;
        this.exs = exs;
        this.sender = new ExsSender(this, socket, queue);
        this.receiver = new ExsReceiver(this, socket, queue);
        this.bufferSize = ExsMessage.ADVERTISEMENT_LENGTH + immediateIn;
        int buffers = 2 * receiveSlots; // the peer's advertisements and the answers to ours
        int headerSlots = 3 * receiveSlots + 2; // advertisements, acknowledgements and notifications, rearms
        int sendDepth = sendDepth(receiveSlots);
        this.completions = completions(receiveSlots);
        queue.reserve(completions, socket); // the queue's completion queue never overflows
        this.qp = exs.pd().createQueuePair(new QpAttributes(queue.cq, queue.cq, null, sendDepth, buffers, 2, false,
                events));
        queue.attach(qp.number(), this);
        this.receiveBuffers = exs.pd().register(Arena.ofAuto().allocate((long) buffers * bufferSize, 8),
                EnumSet.of(Access.LOCAL_WRITE));
        this.headers = exs.pd().register(Arena.ofAuto().allocate((long) headerSlots * HEADER, 8),
                EnumSet.noneOf(Access.class));
        for (int i = 0; i < headerSlots; i++) {
            freeHeaders.push(i);
        }
        for (int i = 0; i < buffers; i++) {
            repost(i);
        }
    }

    /** Send queue depth for {@code slots}: messages in header slots, window binds and invalidations, reads. */
    private static int sendDepth(int slots) {
        return 6 * slots + 4;
    }

    /** Completions a connection of {@code slots} credits can have outstanding at once: every receive and send. */
    static int completions(int slots) {
        return 2 * slots + sendDepth(slots);
    }

    /** The connection is up: {@code slots} credits each way, immediate data to the peer up to {@code immediate}. */
    void established(int slots, int immediate, int negotiatedOrd) {
        receiver.established(slots, negotiatedOrd);
        sender.established(slots, immediate);
        open = true;
    }

    // ---- posts ----

    void send(SendOp op) {
        sender.send(op);
    }

    void recv(RecvOp op) {
        receiver.recv(op);
    }

    /** Stops new work: the socket is closing. */
    void close() {
        open = false;
        qp.disconnect();
    }

    // ---- completions ----

    /** A completion of the queue pair, within a batch the queue hands over ({@link #beginBatch}). Under the lock. */
    void completed(WorkCompletion completion) {
        long kind = completion.wrId() & KIND;
        int index = (int) completion.wrId();
        if (kind == ADVERTISE || kind == CONTROL) {
            freeHeaders.push(index);
        }
        if (completion.status() != WcStatus.SUCCESS) {
            if (!ended && completion.status() != WcStatus.WR_FLUSH_ERR) {
                socket.failed(new ExsException(socket + ": " + describe(kind) + " failed: " + completion.status()));
            }
            return;
        }
        if (kind == RECEIVE) {
            received(index, (int) completion.byteLength());
        } else if (kind == READ) {
            receiver.readCompleted();
        }
        // what this made goes out at the end of the queue's batch (endBatch)
    }

    /** A message of the peer's in receive buffer {@code buffer}, to the side it is for. */
    private void received(int buffer, int length) {
        if (ended) {
            return;
        }
        try {
            switch (ExsMessage.decode(receiveBuffers.memory(), (long) buffer * bufferSize, length)) {
                case Advertisement advert -> receiver.advertised(advert, buffer);
                case Acknowledgement ack -> {
                    repost(buffer);
                    sender.acknowledged(ack);
                }
                case Rearm rearm -> {
                    repost(buffer);
                    receiver.rearmed(rearm);
                }
            }
        } catch (ExsProtocolException e) {
            socket.failed(new ExsException(socket + ": the peer broke the EXS protocol: " + e.getMessage(), e));
        }
    }

    // ---- answers ----

    /**
     * Queues a message for the peer that is not an advertisement, with the window it invalidates (0: none) and
     * whether it answers an immediate advertisement; it goes when the answers are next pumped.
     */
    void answer(ExsMessage message, int invalidate, boolean immediate) {
        waitingControl.add(new Control(message, invalidate, immediate));
    }

    /**
     * Queues the acknowledgement of advertisement {@code sequence}: one of an immediate advertisement taken whole
     * joins the waiting acknowledgement of the one before, when that is one too.
     */
    void acknowledge(int sequence, int length, int status, int invalidate, boolean immediate) {
        Control last = waitingControl.peekLast();
        if (immediate && status == Acknowledgement.OK && last != null && last.immediate
                && last.message instanceof Acknowledgement earlier && earlier.status() == Acknowledgement.OK
                && earlier.sequence() + 1 == sequence
                && earlier.more() < Acknowledgement.MAX_MORE) {
            // the waiting acknowledgement of the advertisement before, an immediate one taken whole, answers this
            // one too
            waitingControl.pollLast();
            waitingControl.add(new Control(new Acknowledgement(0, sequence, length, Acknowledgement.OK,
                    earlier.more() + 1), 0, true));
        } else {
            waitingControl.add(new Control(new Acknowledgement(0, sequence, length, status), invalidate, immediate));
        }
    }

    /** Answers are waiting: they go now, or at the end of the batch of completions being handled. */
    void controlReady() {
        if (!batching) {
            pumpControl();
        }
    }

    /** The queue starts handing this connection a batch of completions. Under the lock. */
    void beginBatch() {
        batching = true;
    }

    /** Whether a batch of completions is being handed to it. Under the lock. */
    boolean inBatch() {
        return batching;
    }

    /** The batch is over: the answers it made go out (acknowledgements of immediate messages together). */
    void endBatch() {
        batching = false;
        pumpControl();
        sender.pump();
    }

    /**
     * Sends waiting acknowledgements, notifications and rearms while header slots last. An acknowledgement of a
     * block that was read is a Send with Invalidate of its window (RFC 5040 §5.2), so the window is gone when the
     * sender learns of it.
     */
    private void pumpControl() {
        while (open && !waitingControl.isEmpty() && !freeHeaders.isEmpty()) {
            Control out = waitingControl.poll();
            int header = freeHeaders.pop();
            long at = (long) header * HEADER;
            out.message.encode(headers.memory(), at);
            sendRequest.wrId(CONTROL | header).signaled(true).noSge()
                    .sge(0, headers, at, ExsMessage.ACKNOWLEDGEMENT_LENGTH);
            if (out.invalidate != 0) {
                sendRequest.opcode(WorkOpcode.SEND_WITH_INVALIDATE).invalidate(out.invalidate);
            } else {
                sendRequest.opcode(WorkOpcode.SEND);
            }
            post(sendRequest);
        }
    }

    /** Posts receive buffer {@code buffer} again, for the peer's next message. */
    void repost(int buffer) {
        int status = qp.postReceive(receiveRequest.wrId(RECEIVE | buffer).sge(0, receiveBuffers,
                (long) buffer * bufferSize, bufferSize));
        if (status != PostStatus.OK && open) {
            socket.failed(new ExsException(socket + ": a receive buffer could not be posted: "
                    + PostStatus.name(status)));
        }
    }

    /** Posts {@code request} on the send queue; a post refused while the connection is open fails it. */
    void post(SendWorkRequest request) {
        int status = qp.postSend(request);
        if (status != PostStatus.OK && open) {
            socket.failed(new ExsException(socket + ": a work request could not be posted: "
                    + PostStatus.name(status)));
        }
    }

    // ---- the end ----

    /** Moves the queue pair to ERROR, which ends its stream; a no-op once it is there. */
    void abort() {
        open = false;
        try {
            if (qp.state() != QpState.ERROR) {
                qp.modify(QpState.ERROR);
            }
        } catch (IllegalStateException e) {
            // it went to ERROR on its own meanwhile
        }
    }

    /**
     * Ends every outstanding operation: a send or a receive not finished gets {@code cancelled}; a persistent send
     * ends without error when the connection closed gracefully ({@code graceful}). Then gives back the windows; the
     * queue pair's flushed completions are no longer routed here.
     */
    void end(ExsException cancelled, boolean graceful) {
        if (ended) {
            return;
        }
        ended = true;
        open = false;
        sender.end(cancelled, graceful); // the windows first: the blocks close to the peer before any event
        receiver.end(cancelled);
        waitingControl.clear();
        queue.detach(qp.number());
        queue.unreserve(completions);
        receiveBuffers.deregister(); // the queue pair is down: nothing places into them any more
        headers.deregister();
    }

    // ---- for tests ----

    long reads() {
        return receiver.reads();
    }

    int unacknowledged() {
        return sender.unacknowledged();
    }

    int waiting() {
        return sender.waiting();
    }

    int held() {
        return receiver.held();
    }

    private static String describe(long kind) {
        if (kind == RECEIVE) {
            return "a receive";
        } else if (kind == ADVERTISE) {
            return "an advertisement";
        } else if (kind == CONTROL) {
            return "an acknowledgement";
        } else if (kind == READ) {
            return "a read of the peer's data";
        }
        return "a window bind or invalidation";
    }

    /**
     * A message for the peer that is not an advertisement, the window it invalidates (0: none), and whether it
     * answers an immediate advertisement.
     */
    private record Control(ExsMessage message, int invalidate, boolean immediate) {
    }
}
