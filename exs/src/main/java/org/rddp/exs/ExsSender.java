package org.rddp.exs;

import static org.rddp.exs.ExsConnection.ADVERTISE;
import static org.rddp.exs.ExsConnection.HEADER;
import static org.rddp.exs.ExsConnection.UNSIGNALED;

import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.exs.ExsMessage.Rearm;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WorkOpcode;

/**
 * The send side of an EXS connection: the sends advertised in order while credits, header slots and windows last
 * (immediate data in the advertisement, or a memory window bound to exactly the block), the peer's acknowledgements
 * and read notifications taken (credits and windows back, the sends' events, the rearms owed), and the sends that
 * the connection's end cancels. Runs under its queue's lock, as its {@link ExsConnection} does: on a caller's thread
 * for its sends, on the dequeuing thread for completions.
 */
final class ExsSender {
    /** What a send's window lets the peer do: read the block. */
    private static final Set<Access> PEER_READS = Set.of(Access.REMOTE_READ);

    private final ExsConnection connection;
    private final ExsSocket socket;
    private final ExsQueue queue;
    private MemoryWindow[] windows = new MemoryWindow[0];
    private final ArrayDeque<Integer> freeWindows = new ArrayDeque<>();
    private int immediateOut;
    private int sendCredits;
    private int nextSequence;
    private boolean persistentSent;
    private final ArrayDeque<SendOp> waitingSends = new ArrayDeque<>();
    /** Sends advertised and not yet acknowledged, in sequence order (a peer acknowledges in order). */
    private final ArrayDeque<SendOp> unacknowledged = new ArrayDeque<>();

    ExsSender(ExsConnection connection, ExsSocket socket, ExsQueue queue) {
        this.connection = connection;
        this.socket = socket;
        this.queue = queue;
    }

    /** The connection is up: {@code slots} credits and as many windows, immediate data up to {@code immediate}. */
    void established(int slots, int immediate) {
        this.immediateOut = immediate;
        this.sendCredits = slots;
        windows = new MemoryWindow[slots];
        for (int i = 0; i < slots; i++) {
            windows[i] = connection.exs.pd().allocateWindow();
            freeWindows.push(i);
        }
    }

    void send(SendOp op) {
        if (persistentSent) {
            throw new IllegalStateException("cannot send: " + socket + " made a persistent send, which serves every "
                    + "receive of the peer from then on");
        }
        persistentSent = op.persistent;
        waitingSends.add(op);
        pump();
    }

    /** Advertises waiting sends while credits, header slots and windows last. */
    void pump() {
        ArrayDeque<Integer> freeHeaders = connection.freeHeaders;
        MemoryRegion headers = connection.headers;
        SendWorkRequest sendRequest = connection.sendRequest;
        while (connection.open && !waitingSends.isEmpty() && sendCredits > 0 && !freeHeaders.isEmpty()) {
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
                connection.post(sendRequest.wrId(UNSIGNALED).signaled(false).noSge().bind(window, op.memory.region,
                        op.offset, op.length, 0, PEER_READS, key));
                int flags = op.persistent ? ExsMessage.PERSISTENT | (op.notify ? ExsMessage.NOTIFY : 0) : 0;
                new Advertisement(flags, sequence, op.length, op.stag, 0, op.placement).encode(headers.memory(), at);
                sendRequest.wrId(ADVERTISE | header).opcode(WorkOpcode.SEND).signaled(true).noSge()
                        .sge(0, headers, at, ExsMessage.ADVERTISEMENT_LENGTH);
            }
            sendCredits--;
            op.sequence = sequence;
            unacknowledged.add(op);
            connection.post(sendRequest);
        }
    }

    /**
     * The peer's acknowledgement of an advertisement (and of the immediate ones just before it), or its read
     * notification for a persistent one, which a rearm answers at the end of the batch.
     */
    void acknowledged(Acknowledgement ack) throws ExsProtocolException {
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
            connection.answer(new Rearm(ack.sequence()), 0, false);
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
            windows[op.window] = connection.exs.pd().allocateWindow();
        }
        freeWindows.push(op.window);
        op.window = -1;
    }

    /**
     * Gives back the windows, first, so the blocks close to the peer before their sends' events; then ends every
     * send: an unfinished one gets {@code cancelled}, a persistent one none when the connection closed gracefully
     * ({@code graceful}).
     */
    void end(ExsException cancelled, boolean graceful) {
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
    }

    // ---- for tests ----

    int unacknowledged() {
        return unacknowledged.size();
    }

    int waiting() {
        return waitingSends.size();
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
}
