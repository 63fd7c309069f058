package org.rddp.exs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.exs.ExsMessage.Rearm;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QpEventHandler;
import org.rddp.verbs.QpState;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.WorkOpcode;

/**
 * The EXS protocol of one connected socket over its queue pair (the package documentation draws the messages):
 * the send side (credits, windows, advertisements, acknowledgements received), the receive side (advertisements
 * held, receives matched, reads and copies in order, acknowledgements and read notifications sent). Everything here
 * runs under its queue's lock: on the dequeuing thread for completions, on a caller's thread for its posts.
 */
final class ExsConnection {
    /** Kinds of work request, in a request's id above its index. */
    private static final long RECEIVE = 1L << 56;
    private static final long ADVERTISE = 2L << 56;
    private static final long CONTROL = 3L << 56;
    private static final long READ = 4L << 56;
    private static final long UNSIGNALED = 5L << 56;
    private static final long KIND = 0xFFL << 56;
    /** What a send's window lets the peer do: read the block. */
    private static final Set<Access> PEER_READS = Set.of(Access.REMOTE_READ);
    /** Octets of a header slot for an outgoing message. */
    private static final int HEADER = ExsMessage.ADVERTISEMENT_LENGTH;

    private final ExsSocket socket;
    private final ExsQueue queue;
    private final Exs exs;
    final QueuePair qp;
    private final int bufferSize;
    /** Completions this connection can have outstanding at once, reserved in its queue's completion queue. */
    private final int completions;
    private final MemoryRegion receiveBuffers;
    private final MemoryRegion headers;
    private final ArrayDeque<Integer> freeHeaders = new ArrayDeque<>();
    private MemoryWindow[] windows = new MemoryWindow[0];
    private final ArrayDeque<Integer> freeWindows = new ArrayDeque<>();
    private int slots;
    private int immediateOut;
    private int ord;
    /** Whether new work goes out: from establishment until the socket closes or fails. */
    private boolean open;
    private boolean ended;

    // the send side
    private int sendCredits;
    private int nextSequence;
    private boolean persistentSent;
    private final ArrayDeque<SendOp> waitingSends = new ArrayDeque<>();
    /** Sends advertised and not yet acknowledged, in sequence order (a peer acknowledges in order). */
    private final ArrayDeque<SendOp> unacknowledged = new ArrayDeque<>();

    // the receive side
    private int expectedSequence;
    private int held;
    private final ArrayDeque<Advert> adverts = new ArrayDeque<>();
    private final ArrayDeque<RecvOp> recvs = new ArrayDeque<>();
    private RecvOp persistentRecv;
    private final ArrayDeque<Chunk> reading = new ArrayDeque<>();
    private int readsInFlight;
    private long reads;
    private final ArrayDeque<Control> waitingControl = new ArrayDeque<>();
    /**
     * Whether the queue is handing this connection a batch of completions: answers wait for its end, so that the
     * immediate messages taken in one batch are acknowledged together.
     */
    private boolean batching;

    private final SendWorkRequest sendRequest = new SendWorkRequest(2);
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
        this.slots = slots;
        this.immediateOut = immediate;
        this.sendCredits = slots;
        this.ord = Math.max(1, Math.min(negotiatedOrd, slots));
        windows = new MemoryWindow[slots];
        for (int i = 0; i < slots; i++) {
            windows[i] = exs.pd().allocateWindow();
            freeWindows.push(i);
        }
        open = true;
    }

    // ---- posts ----

    void send(SendOp op) {
        if (persistentSent) {
            throw new IllegalStateException("cannot send: " + socket + " made a persistent send, which serves every "
                    + "receive of the peer from then on");
        }
        persistentSent = op.persistent;
        waitingSends.add(op);
        pumpSends();
    }

    void recv(RecvOp op) {
        if (persistentRecv != null) {
            throw new IllegalStateException("cannot recv: " + socket + " has a persistent receive, which takes every "
                    + "message");
        }
        if (op.persistent) {
            if (!recvs.isEmpty()) {
                throw new IllegalStateException("cannot recv persistently: " + socket + " has " + recvs.size()
                        + " receives waiting");
            }
            persistentRecv = op;
        } else {
            recvs.add(op);
        }
        match();
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
            Chunk read = reading.poll();
            if (read == null) {
                return; // nothing was read: not a completion of this connection's
            }
            readsInFlight--;
            complete(read);
            while (!reading.isEmpty() && reading.peek().copied) { // copies behind the read, in order
                complete(reading.poll());
            }
            match();
        }
        // what this made goes out at the end of the queue's batch (endBatch)
    }

    private void received(int buffer, int length) {
        if (ended) {
            return;
        }
        try {
            switch (ExsMessage.decode(receiveBuffers.memory(), (long) buffer * bufferSize, length)) {
                case Advertisement advert -> advertised(advert, buffer);
                case Acknowledgement ack -> {
                    repost(buffer);
                    acknowledged(ack);
                }
                case Rearm rearm -> {
                    repost(buffer);
                    rearmed(rearm);
                }
            }
        } catch (ExsProtocolException e) {
            socket.failed(new ExsException(socket + ": the peer broke the EXS protocol: " + e.getMessage(), e));
        }
    }

    private void advertised(Advertisement advert, int buffer) throws ExsProtocolException {
        if (advert.sequence() != expectedSequence) {
            throw new ExsProtocolException("advertisement " + advert.sequence() + " where " + expectedSequence
                    + " was next");
        }
        if (held == slots) {
            throw new ExsProtocolException("an advertisement beyond the " + slots + " credits of the connection");
        }
        expectedSequence++;
        held++;
        if (advert.persistent()) {
            repost(buffer); // nothing to keep: the block is read, never copied
            adverts.add(new Advert(advert, -1));
        } else {
            adverts.add(new Advert(advert, buffer));
        }
        match();
    }

    private void acknowledged(Acknowledgement ack) throws ExsProtocolException {
        SendOp op = outstanding(ack.sequence());
        if (op == null) {
            throw new ExsProtocolException("an acknowledgement of advertisement " + ack.sequence()
                    + ", which is not outstanding");
        }
        if (ack.read()) {
            if (!op.notify) {
                throw new ExsProtocolException("a read notification for advertisement " + ack.sequence()
                        + ", which did not ask for them");
            }
            queue.post(new ExsEvent(ExsEvent.Type.READ, socket, op.context, ack.length(), null));
            waitingControl.add(new Control(new Rearm(ack.sequence()), 0, false));
            return;
        }
        if (op.persistent) {
            throw new ExsProtocolException("an acknowledgement of persistent advertisement " + ack.sequence());
        }
        for (int earlier = ack.more(); earlier > 0; earlier--) { // the immediate ones it answers too, oldest first
            int sequence = ack.sequence() - earlier;
            SendOp answered = outstanding(sequence);
            if (answered == null || answered.persistent || answered.window >= 0) {
                throw new ExsProtocolException("an acknowledgement of advertisement " + ack.sequence() + " and the "
                        + ack.more() + " before it, of which " + sequence + (answered == null
                        ? " is not outstanding" : " is not an immediate one"));
            }
        }
        if (ack.status() == Acknowledgement.OK && ack.length() != op.length) {
            throw new ExsProtocolException("an acknowledgement of " + ack.length() + " octets for advertisement "
                    + ack.sequence() + " of " + op.length);
        }
        for (int earlier = ack.more(); earlier > 0; earlier--) {
            SendOp answered = outstanding(ack.sequence() - earlier);
            unacknowledged.remove(answered);
            sendCredits++;
            answered.done.run();
            queue.post(new ExsEvent(ExsEvent.Type.SEND, socket, answered.context, answered.length, null));
        }
        unacknowledged.remove(op);
        sendCredits++;
        retire(op);
        op.done.run();
        ExsException error = switch (ack.status()) {
            case Acknowledgement.OK -> null;
            case Acknowledgement.NO_ROOM -> new ExsException(socket + ": the peer's persistent receive has no room "
                    + "for " + op.length + " octets at " + op.placement);
            default -> new ExsException(socket + ": the peer could not take the data (status " + ack.status() + ")");
        };
        queue.post(new ExsEvent(ExsEvent.Type.SEND, socket, op.context, error == null ? ack.length() : 0, error));
    }

    /** The outstanding send advertised as {@code sequence}, or null; the oldest first, as acknowledgements come. */
    private SendOp outstanding(int sequence) {
        SendOp oldest = unacknowledged.peekFirst();
        if (oldest != null && oldest.sequence == sequence) {
            return oldest; // the usual case, with no iterator
        }
        for (SendOp op : unacknowledged) {
            if (op.sequence == sequence) {
                return op;
            }
        }
        return null;
    }

    private void rearmed(Rearm rearm) throws ExsProtocolException {
        for (Advert advert : adverts) {
            if (advert.message.sequence() == rearm.sequence() && advert.message.notifying()) {
                if (!advert.notificationOut) {
                    throw new ExsProtocolException("a rearm of advertisement " + rearm.sequence()
                            + " with no notification outstanding");
                }
                advert.notificationOut = false;
                notifyReads(advert);
                return;
            }
        }
        throw new ExsProtocolException("a rearm of advertisement " + rearm.sequence()
                + ", which is not a persistent one asking for notifications");
    }

    // ---- the send side ----

    /** Advertises waiting sends while credits, header slots and windows last. */
    private void pumpSends() {
        while (open && !waitingSends.isEmpty() && sendCredits > 0 && !freeHeaders.isEmpty()) {
            SendOp op = waitingSends.peek();
            boolean immediate = !op.persistent && op.length <= immediateOut;
            if (!immediate && freeWindows.isEmpty()) {
                return;
            }
            waitingSends.poll();
            int header = freeHeaders.pop();
            int sequence = nextSequence++;
            long at = (long) header * HEADER;
            if (immediate) {
                new Advertisement(ExsMessage.IMMEDIATE, sequence, op.length, 0, 0, op.placement)
                        .encode(headers.memory(), at);
                sendRequest.wrId(ADVERTISE | header).opcode(WorkOpcode.SEND).signaled(true).noSge()
                        .sge(0, headers, at, ExsMessage.ADVERTISEMENT_LENGTH);
                if (op.length > 0) {
                    sendRequest.sge(1, op.memory.region, op.offset, op.length); // gathered from the caller's memory
                }
            } else {
                op.window = freeWindows.pop();
                MemoryWindow window = windows[op.window];
                int key = ThreadLocalRandom.current().nextInt(1, 256);
                if (key == (window.stag() & 0xFF)) {
                    key = key % 255 + 1;
                }
                op.stag = window.stagWithKey(key);
                post(sendRequest.wrId(UNSIGNALED).signaled(false).noSge().bind(window, op.memory.region, op.offset,
                        op.length, 0, PEER_READS, key));
                int flags = op.persistent ? ExsMessage.PERSISTENT | (op.notify ? ExsMessage.NOTIFY : 0) : 0;
                new Advertisement(flags, sequence, op.length, op.stag, 0, op.placement).encode(headers.memory(), at);
                sendRequest.wrId(ADVERTISE | header).opcode(WorkOpcode.SEND).signaled(true).noSge()
                        .sge(0, headers, at, ExsMessage.ADVERTISEMENT_LENGTH);
            }
            sendCredits--;
            op.sequence = sequence;
            unacknowledged.add(op);
            post(sendRequest);
        }
    }

    /**
     * The send's window goes back to the pool. If the peer's acknowledgement did not invalidate it (a peer that
     * leaves it out), it is freed at once and a new one takes its place, so the block is closed to the peer before
     * the send's event says the memory is the caller's again.
     */
    private void retire(SendOp op) {
        if (op.window < 0) {
            return;
        }
        if (windows[op.window].bound()) {
            windows[op.window].deallocate();
            windows[op.window] = exs.pd().allocateWindow();
        }
        freeWindows.push(op.window);
        op.window = -1;
    }

    // ---- the receive side ----

    /** Pairs held advertisements with receives: copies immediate data, starts reads, in order. */
    private void match() {
        while (open && !adverts.isEmpty()) {
            Advert advert = adverts.peek();
            if (advert.message.persistent()) {
                if (!matchPersistentBlock(advert)) {
                    return;
                }
            } else if (persistentRecv != null) {
                if (!matchIntoPersistentReceive(advert)) {
                    return;
                }
            } else {
                RecvOp op = recvs.peek();
                if (op == null) {
                    return;
                }
                int length = (int) Math.min(op.length - op.claimed, advert.message.length() - advert.claimed);
                if (!copies(advert, length) && readsInFlight >= ord) {
                    return;
                }
                long source = advert.claimed;
                long target = op.offset + op.claimed;
                advert.claimed += length;
                op.claimed += length;
                if (advert.claimed == advert.message.length()) {
                    adverts.poll();
                }
                boolean last = !op.waitAll || op.claimed == op.length;
                if (last) {
                    recvs.poll();
                }
                take(new Chunk(op, advert, length, last), source, target);
            }
        }
    }

    /** The head advertisement is a persistent block: the next receive reads it (at its remote offset). */
    private boolean matchPersistentBlock(Advert advert) {
        if (persistentRecv != null) {
            RecvOp both = persistentRecv;
            persistentRecv = null;
            refuse(new Chunk(both, advert, 0, true), new ExsException(socket
                    + ": the peer's send is persistent too; both sides of a connection cannot be persistent"));
            return true;
        }
        RecvOp op = recvs.peek();
        if (op == null || readsInFlight >= ord) {
            return false;
        }
        recvs.poll();
        long size = advert.message.length();
        if (op.remoteOffset > size) {
            refuse(new Chunk(op, advert, 0, true), new ExsException(socket + ": offset " + op.remoteOffset
                    + " is beyond the peer's persistent block of " + size + " octets"));
            return true;
        }
        int length = (int) Math.min(op.length, size - op.remoteOffset);
        op.claimed = length;
        take(new Chunk(op, advert, length, true), op.remoteOffset, op.offset);
        return true;
    }

    /** A message for the persistent receive: taken whole where the sender placed it, or refused. */
    private boolean matchIntoPersistentReceive(Advert advert) {
        RecvOp op = persistentRecv;
        int length = advert.message.length();
        long place = advert.message.placement();
        if (place > op.length || length > op.length - place) {
            adverts.poll();
            refuse(new Chunk(op, advert, 0, true), new ExsException(socket + ": a message of " + length
                    + " octets at " + place + " does not fit the persistent receive of " + op.length));
            return true;
        }
        if (!copies(advert, length) && readsInFlight >= ord) {
            return false;
        }
        adverts.poll();
        advert.claimed = length;
        take(new Chunk(op, advert, length, true), 0, op.offset + place);
        return true;
    }

    private static boolean copies(Advert advert, int length) {
        return advert.message.immediate() || length == 0;
    }

    /** A receive that fails for {@code why}, in its turn behind earlier reads. */
    private void refuse(Chunk chunk, ExsException why) {
        chunk.error = why;
        chunk.copied = true;
        if (reading.isEmpty()) {
            complete(chunk);
        } else {
            reading.add(chunk);
        }
    }

    /** Copies the chunk now (its event waits behind earlier reads) or starts its read. */
    private void take(Chunk chunk, long source, long target) {
        Advert advert = chunk.advert;
        if (copies(advert, chunk.length)) {
            if (chunk.length > 0) {
                MemorySegment.copy(receiveBuffers.memory(), (long) advert.buffer * bufferSize
                        + ExsMessage.ADVERTISEMENT_LENGTH + source, chunk.op.memory.segment(), target, chunk.length);
            }
            chunk.copied = true;
            if (reading.isEmpty()) {
                complete(chunk);
            } else {
                reading.add(chunk);
            }
            return;
        }
        sendRequest.wrId(READ).opcode(WorkOpcode.RDMA_READ).signaled(true).noSge()
                .sge(0, chunk.op.memory.region, target, chunk.length)
                .remote(advert.message.stag(), advert.message.taggedOffset() + source);
        reading.add(chunk);
        readsInFlight++;
        reads++;
        post(sendRequest);
    }

    /** A chunk's octets are in place: its receive's event, the advertisement's answer. */
    private void complete(Chunk chunk) {
        Advert advert = chunk.advert;
        RecvOp op = chunk.op;
        if (chunk.error != null) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, 0, chunk.error));
            if (!advert.message.persistent()) {
                release(advert, Acknowledgement.NO_ROOM, 0); // a message refused by the persistent receive
            }
            return;
        }
        op.done += chunk.length;
        if (advert.message.persistent()) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, chunk.length, null));
            if (advert.message.notifying()) {
                advert.unnotified += chunk.length;
                notifyReads(advert);
            }
            return;
        }
        advert.consumed += chunk.length;
        if (advert.consumed == advert.message.length() && advert.claimed == advert.message.length()) {
            release(advert, Acknowledgement.OK, advert.message.length());
        }
        if (op.persistent) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, chunk.length, null));
        } else if (chunk.last) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, op.done, null));
        }
    }

    /** An advertisement is done with: its buffer back, its credit back with the acknowledgement. */
    private void release(Advert advert, int status, int length) {
        if (advert.buffer >= 0) {
            repost(advert.buffer);
        }
        held--;
        int sequence = advert.message.sequence();
        int invalidate = advert.message.immediate() ? 0 : advert.message.stag();
        Control last = waitingControl.peekLast();
        if (advert.message.immediate() && status == Acknowledgement.OK && last != null && last.immediate
                && last.message instanceof Acknowledgement earlier && earlier.status() == Acknowledgement.OK
                && earlier.sequence() + 1 == sequence
                && earlier.more() < Acknowledgement.MAX_MORE) {
            // the waiting acknowledgement of the advertisement before, an immediate one taken whole, answers this
            // one too
            waitingControl.pollLast();
            waitingControl.add(new Control(new Acknowledgement(0, sequence, length, Acknowledgement.OK,
                    earlier.more() + 1), 0, true));
        } else {
            waitingControl.add(new Control(new Acknowledgement(0, sequence, length, status), invalidate,
                    advert.message.immediate()));
        }
        controlReady();
    }

    /** Answers are waiting: they go now, or at the end of the batch of completions being handled. */
    private void controlReady() {
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
        pumpSends();
    }

    /** Sends a read notification for a persistent block, unless one is outstanding (reads are summed meanwhile). */
    private void notifyReads(Advert advert) {
        if (advert.notificationOut || advert.unnotified == 0) {
            return;
        }
        int length = (int) Math.min(advert.unnotified, Integer.MAX_VALUE);
        advert.unnotified -= length;
        advert.notificationOut = true;
        waitingControl.add(new Control(new Acknowledgement(ExsMessage.READ, advert.message.sequence(), length,
                Acknowledgement.OK), 0, false));
        controlReady();
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

    private void repost(int buffer) {
        int status = qp.postReceive(receiveRequest.wrId(RECEIVE | buffer).sge(0, receiveBuffers,
                (long) buffer * bufferSize, bufferSize));
        if (status != PostStatus.OK && open) {
            socket.failed(new ExsException(socket + ": a receive buffer could not be posted: "
                    + PostStatus.name(status)));
        }
    }

    private void post(SendWorkRequest request) {
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
        for (MemoryWindow window : windows) {
            window.deallocate(); // first: the blocks close to the peer before their sends' events
        }
        windows = new MemoryWindow[0];
        freeWindows.clear();
        for (SendOp op : unacknowledged) {
            ExsException error = op.persistent && graceful ? null : cancelled;
            op.done.run();
            queue.post(new ExsEvent(ExsEvent.Type.SEND, socket, op.context, 0, error));
        }
        unacknowledged.clear();
        for (SendOp op : waitingSends) {
            op.done.run();
            queue.post(new ExsEvent(ExsEvent.Type.SEND, socket, op.context, 0, cancelled));
        }
        waitingSends.clear();
        Set<RecvOp> unfinished = new LinkedHashSet<>();
        for (Chunk chunk : reading) {
            unfinished.add(chunk.op);
        }
        unfinished.addAll(recvs);
        if (persistentRecv != null) {
            unfinished.add(persistentRecv);
        }
        for (RecvOp op : unfinished) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, 0, cancelled));
        }
        reading.clear();
        recvs.clear();
        persistentRecv = null;
        adverts.clear();
        waitingControl.clear();
        queue.detach(qp.number());
        queue.unreserve(completions);
        receiveBuffers.deregister(); // the queue pair is down: nothing places into them any more
        headers.deregister();
    }

    // ---- for tests ----

    long reads() {
        return reads;
    }

    int unacknowledged() {
        return unacknowledged.size();
    }

    int waiting() {
        return waitingSends.size();
    }

    int held() {
        return held;
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

    /** A send not yet acknowledged. */
    static final class SendOp {
        final ExsMemory memory;
        final long offset;
        final int length;
        final long placement;
        final boolean persistent;
        final boolean notify;
        final Object context;
        /** What to do once the send is over, either way (a file's mapping is deregistered). */
        Runnable done = () -> { };
        int window = -1;
        int stag;
        /** Its advertisement's sequence number, once advertised. */
        int sequence;

        SendOp(ExsMemory memory, long offset, int length, long placement, Set<ExsFlag> flags, Object context) {
            this.memory = memory;
            this.offset = offset;
            this.length = length;
            this.placement = placement;
            this.persistent = flags.contains(ExsFlag.PERSISTENT);
            this.notify = flags.contains(ExsFlag.NOTIFY);
            this.context = context;
        }
    }

    /** A receive not yet finished. */
    static final class RecvOp {
        final ExsMemory memory;
        final long offset;
        final int length;
        final long remoteOffset;
        final boolean persistent;
        final boolean waitAll;
        final Object context;
        long claimed;
        long done;

        RecvOp(ExsMemory memory, long offset, int length, long remoteOffset, Set<ExsFlag> flags, Object context) {
            this.memory = memory;
            this.offset = offset;
            this.length = length;
            this.remoteOffset = remoteOffset;
            this.persistent = flags.contains(ExsFlag.PERSISTENT);
            this.waitAll = flags.contains(ExsFlag.WAITALL);
            this.context = context;
        }
    }

    /** A received advertisement, held in its receive buffer (a normal one) until all of it is taken. */
    private static final class Advert {
        final Advertisement message;
        final int buffer;
        long claimed;
        long consumed;
        long unnotified;
        boolean notificationOut;

        Advert(Advertisement message, int buffer) {
            this.message = message;
            this.buffer = buffer;
        }
    }

    /**
     * Part of a receive taken from one advertisement: a read in flight, or a copy (or a refusal) whose event waits
     * its turn.
     */
    private static final class Chunk {
        final RecvOp op;
        final Advert advert;
        final int length;
        final boolean last;
        boolean copied;
        ExsException error;

        Chunk(RecvOp op, Advert advert, int length, boolean last) {
            this.op = op;
            this.advert = advert;
            this.length = length;
            this.last = last;
        }
    }

    /**
     * A message for the peer that is not an advertisement, the window it invalidates (0: none), and whether it
     * answers an immediate advertisement.
     */
    private record Control(ExsMessage message, int invalidate, boolean immediate) {
    }
}
