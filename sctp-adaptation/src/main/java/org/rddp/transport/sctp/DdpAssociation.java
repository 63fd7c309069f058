package org.rddp.transport.sctp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rddp.llp.EarlyPlacement;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.LlpStream;
import org.rddp.loop.Loop;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.verbs.Counter;
import org.rddp.verbs.Counters;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * One SCTP association carrying DDP (RFC 5043): the loop it lives on, the Adaptation Layer Indication check, and
 * one {@link Session} per SCTP stream id. Every chunk goes out unordered with the stream's DDP-SSN (§5.2,
 * §10); incoming chunks are put back in DDP-SSN order for delivery, tagged payload being placed as it arrives.
 * Session control follows the legal sequences of §6 and RFC 6581 §7; a chunk that fits none terminates that
 * session, not the association.
 */
final class DdpAssociation {

    /** Receives session control the ULP must decide on (passive side) and association events. */
    interface Listener {
        /** An Initiate or Enhanced Initiate arrived on an idle stream. */
        void onInitiate(Session session, SessionControl initiate);
    }

    private static final AtomicInteger NAMES = new AtomicInteger();
    private final String name = "sctp-" + NAMES.incrementAndGet();
    private final SctpSocket socket;
    private final Loop loop;
    /** The session of each stream, made when the stream is first used (most of an association's never are). */
    private final Session[] sessions;
    /** The sessions made so far, in the order they were. Owner thread. */
    private final java.util.ArrayList<Session> made = new java.util.ArrayList<>();
    /** Sessions that met a full socket and wait for room, each once. Owner thread. */
    private final java.util.ArrayDeque<Session> waitingForRoom = new java.util.ArrayDeque<>();
    private final MemorySegment receiveBuffer;
    /** Where a DDP segment or control chunk is built; swapped with {@link #heldBuffer} when a segment is held. */
    private MemorySegment sendBuffer;
    /**
     * The last DDP segment a session sent, accepted but not yet handed to the socket ({@link #heldLength} octets, 0
     * when none): the next segment sends it first, with the stack bundling ({@link SctpSocket#bundle}); the engine's
     * flush at the end of its burst sends it with bundling off, which takes out what the stack held with it.
     */
    private MemorySegment heldBuffer;
    private int heldLength;
    private int heldStream;
    private Session heldBy;
    /** The socket bundles now (a burst is being sent). */
    private boolean bundling;
    /** The packet the stack is filling with the burst's chunks. Owner thread. */
    private final PacketFill fill;
    private final SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
    private final AtomicBoolean pollScheduled = new AtomicBoolean();
    private final Runnable pollTask = () -> {
        pollScheduled.set(false);
        pollOrFail();
    };
    private final CompletableFuture<DdpAssociation> validated = new CompletableFuture<>();
    private final int maxChunk;
    private volatile Listener listener;
    private volatile boolean down;
    private boolean adaptationSeen;
    private final Consumer<DdpAssociation> onDown;
    private final ChunkTap tap;
    /** What the sessions' chunks held ahead of their turn may take. Owner thread. */
    private final AssociationBudget budget;
    /** The last illegal sequence seen, for diagnostics and tests. */
    volatile String lastIllegal;
    /** Shut the association down once no session is left on it (this side made it, for its queue pairs). */
    private boolean closeWhenIdle;
    /**
     * Sessions bound to a queue pair whose engine has not started yet (its start is queued on the loop): nothing is
     * read from the socket meanwhile, so that no DDP segment reaches a session before its engine (an MPA stream
     * likewise reads nothing before it starts). Owner thread.
     */
    private int awaitingStart;
    /** Shutting down (SHUTDOWN sent) since its last session ended; down once the stack says it is done. */
    private volatile boolean shuttingDown;
    private boolean idleCheckQueued;
    private final Runnable idleCheck = this::closeIfIdle;

    /** Octets a control chunk waiting for room takes besides its own: the array it is in, and the queue's slot. */
    private static final int PENDING_OVERHEAD = 16 + 8;
    /** What a draining stream keeps of a chunk ahead of its turn: its DDP-SSN and, for control, the function code. */
    private static final int MARKER_OCTETS = SessionControlChunk.PRIVATE_DATA_OFFSET;
    /** The most any of an association's buffers takes: a chunk as large as an IP packet, plus slack. */
    static final int LARGEST_BUFFER = 65_536 + 4096;
    /** An association's buffers: one to receive into, one to build a segment in, one to hold a segment in. */
    static final int BUFFERS = 3;

    DdpAssociation(SctpSocket socket, Loop loop, Consumer<DdpAssociation> onDown, ChunkTap tap,
            AssociationBudget budget) {
        this.tap = tap;
        this.budget = budget;
        this.socket = socket;
        this.loop = loop;
        this.onDown = onDown;
        this.maxChunk = Math.max(DdpSctp.MIN_MAX_CHUNK_LENGTH, socket.maxMessage());
        Arena arena = Arena.ofAuto();
        this.receiveBuffer = arena.allocate(maxChunk + 4096L, 8);
        this.sendBuffer = arena.allocate(maxChunk, 8);
        this.heldBuffer = arena.allocate(maxChunk, 8);
        this.fill = new PacketFill(maxChunk);
        this.sessions = new Session[socket.streams()];
    }

    /** Its name in messages: {@code sctp-3}. */
    @Override
    public String toString() {
        return name;
    }

    /**
     * Associations made, refused and lost, at DEBUG, and the sessions' setup ({@code org.rddp.transport.sctp}):
     * quiet unless asked for.
     */
    static final System.Logger LOG = System.getLogger("org.rddp.transport.sctp");

    /** Starts reading; completes {@link #validated()} once the peer's Adaptation Layer Indication is checked. */
    void start(Listener newListener) {
        LOG.log(System.Logger.Level.DEBUG, "{0}: association with {1} up, {2} streams each way ({3})", name,
                socket.remoteAddress(), socket.streams(), newListener == null ? "connected" : "accepted");
        this.listener = newListener;
        socket.onReady(this::ready);
    }

    /**
     * The socket may have something to read or room to write. Any thread (usrsctp calls it from inside the stack,
     * on whichever thread fed it): it only schedules the reading on the loop.
     */
    private void ready() {
        if (pollScheduled.compareAndSet(false, true)) {
            loop.execute(pollTask);
        }
    }

    /**
     * Shuts the association down gracefully once its last session has ended (every stream idle, nothing waiting to
     * be sent): the side that made an association for its queue pairs does not keep it, or its peer's resources,
     * when none is left. A connect that finds it going makes a new one. Owner thread.
     */
    void closeWhenIdle() {
        closeWhenIdle = true;
    }

    /** A session ended: looks, after what is queued on the loop now, whether any is left. Owner thread. */
    private void sessionEnded() {
        if (closeWhenIdle && !idleCheckQueued && !down) {
            idleCheckQueued = true;
            loop.execute(idleCheck); // after the step that ended it: an Initiate may be starting the next one
        }
    }

    private void closeIfIdle() {
        idleCheckQueued = false;
        if (down || shuttingDown) {
            return;
        }
        for (Session session : made) {
            if (session.state() != SessionStateMachine.State.IDLE || session.pendingControl() > 0) {
                return;
            }
        }
        // SHUTDOWN, and the socket kept (and read) until the stack reports the association down: usrsctp needs this
        // side's packets to finish it, which a freed socket would stop (the peer would wait out its retransmissions)
        shuttingDown = true;
        socket.shutdown();
    }

    /**
     * Aborts the association unless the peer's Adaptation Layer Indication has come within {@code within} (RFC 5043
     * §5.1: it comes with the handshake, so an association still without it is not one that speaks DDP). A deadline
     * of the association's loop. Owner thread.
     */
    void requireValidationWithin(java.time.Duration within) {
        if (validated.isDone()) {
            return;
        }
        org.rddp.loop.Deadline late = loop.schedule(System.nanoTime() + within.toNanos(), () -> {
            if (!validated.isDone() && !down) {
                refuse("no Adaptation Layer Indication within " + within.toMillis() + " ms of the handshake: the "
                        + "peer does not speak DDP (RFC 5043 §5.1)");
            }
        });
        validated.whenComplete((valid, failure) -> loop.runNowOrLater(late::cancel));
    }

    /** Completes when the peer indicated DDP (RFC 5043 §5.1); fails if it did not. */
    CompletableFuture<DdpAssociation> validated() {
        return validated;
    }

    Loop loop() {
        return loop;
    }

    boolean down() {
        return down;
    }

    /** Whether a new session may start here: up, and not shutting down because its last session ended. */
    boolean usable() {
        return !down && !shuttingDown;
    }

    /**
     * The lowest stream this side may open a session on, or null: never used, or idle with nothing of its last session
     * outstanding. RFC 5043 §6.6 reuses a stream only once no chunk of the previous session may be in flight; this
     * side's are not once the peer's SCTP acknowledged everything sent (asked of the socket once, and only when a
     * stream whose session ended is in the way), and the peer's are not once its Terminate came in its turn (a stream
     * still waiting for it is not idle). Owner thread.
     */
    Session idleSession() {
        boolean asked = false;
        for (int streamId = 0; streamId < sessions.length; streamId++) {
            Session session = sessions[streamId];
            if (session == null) {
                return session(streamId);
            }
            if (session.state() != SessionStateMachine.State.IDLE) {
                continue;
            }
            if (session.outstanding && !asked) {
                asked = true;
                if (socket.allSentAcknowledged()) {
                    for (Session ended : made) {
                        ended.outstanding = false; // every session that ended so far is quiet
                    }
                }
            }
            if (!session.outstanding) {
                return session;
            }
        }
        return null;
    }

    /** The session of stream {@code streamId}, made on its first use. Owner thread. */
    Session session(int streamId) {
        Session session = sessions[streamId];
        if (session == null) {
            session = new Session(streamId);
            sessions[streamId] = session;
            made.add(session);
        }
        return session;
    }

    /** Sessions whose Initiate waits for the ULP, which has not answered yet. Owner thread. */
    int pendingUlp() {
        int pending = 0;
        for (Session session : made) {
            if (session.state() == SessionStateMachine.State.PENDING_ULP && !session.ulpAnswered) {
                pending++;
            }
        }
        return pending;
    }

    /** The peer's address, as the socket knows it. */
    java.net.SocketAddress remoteAddress() {
        return socket.remoteAddress();
    }

    /** Largest chunk payload, DDP-SSN included; the DDP segment limit is two octets less. */
    int maxChunk() {
        return maxChunk;
    }

    /**
     * {@link #poll}, ending the association if anything escapes it (a bug, or the heap ran out under a session): a
     * local catastrophic error of the streams on it (RFC 5040 §7.1), whose queue pairs hear it lost; the loop hears
     * of it and serves its other associations. Owner thread.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // see above
    private void pollOrFail() {
        try {
            poll();
        } catch (Throwable e) {
            try {
                socket.abort();
                lose("a local catastrophic error: " + e);
            } catch (Throwable again) {
                e.addSuppressed(again);
            }
            loop.reportError(e);
        }
    }

    private void poll() {
        if (down) {
            return;
        }
        try {
            while (!down && awaitingStart == 0) {
                int length = socket.receive(receiveBuffer, message);
                if (length == SctpSocket.WOULD_BLOCK) {
                    break;
                }
                dispatch(length);
            }
            // only sessions that met a full socket wait for room: no walk over every stream, no native call, per poll
            if (!down && !waitingForRoom.isEmpty() && socket.writable() && sendHeld(false)) {
                for (int i = waitingForRoom.size(); i > 0 && !down; i--) {
                    Session session = waitingForRoom.pollFirst();
                    session.waiting = false;
                    session.writable(); // waits again if the socket fills once more
                }
            }
        } catch (IOException e) {
            lose("association failed: " + e.getMessage());
        }
    }

    private void dispatch(int length) {
        switch (message.kind) {
            case SctpSocket.ReceivedMessage.ADAPTATION -> {
                if (message.value != DdpSctp.ADAPTATION_INDICATION) {
                    refuse(String.format("peer's Adaptation Layer Indication is 0x%08x, not DDP", message.value));
                    return;
                }
                adaptationSeen = true;
                validated.complete(this);
            }
            case SctpSocket.ReceivedMessage.ASSOCIATION_DOWN -> lose(switch (message.value) {
                case SctpSocket.ReceivedMessage.LOST -> "the SCTP association was lost: the peer aborted it or "
                        + "stopped answering (" + ProtocolParameters.RDDP.associationMaxRetrans()
                        + " retransmissions or heartbeats in a row unanswered)";
                case SctpSocket.ReceivedMessage.SHUT_DOWN -> "the SCTP association was shut down";
                case SctpSocket.ReceivedMessage.NOT_STARTED -> "the SCTP association could not be set up";
                default -> "the SCTP association ended";
            });
            case SctpSocket.ReceivedMessage.DATA -> {
                if (!adaptationSeen) {
                    // the indication comes with INIT/INIT-ACK, before any data: without it, no DDP here (§5.1)
                    refuse("data before any Adaptation Layer Indication: the peer does not speak DDP");
                    return;
                }
                if (message.streamId >= sessions.length) {
                    refuse("data on stream " + message.streamId + " of " + sessions.length);
                    return;
                }
                tap.chunk(this, false, message.streamId, message.ppid, message.unordered, receiveBuffer, length);
                session(message.streamId).onChunk(length);
            }
            default -> { }
        }
    }

    private void refuse(String reason) {
        Counters.increment(Counter.CONNECTIONS_REFUSED);
        validated.completeExceptionally(new IOException(reason));
        lose(reason);
        socket.abort();
    }

    /**
     * Hands the held segment, if any, to the socket: with bundling on while more of the burst follows, off (the
     * stack then sends what it held with it) when it ends the burst. Owner thread.
     *
     * @return whether nothing is held any more (false: the socket is full, the segment waits for room)
     */
    private boolean sendHeld(boolean moreFollows) {
        if (!moreFollows) {
            fill.flushed(); // the stack sends all it held with this one
        }
        if (heldLength == 0 || down) {
            return true;
        }
        try {
            if (bundling != moreFollows) {
                socket.bundle(moreFollows);
                bundling = moreFollows;
            }
            if (socket.send(heldBuffer, 0, heldLength, heldStream, DdpSctp.PPID_DDP_SEGMENT, true)
                    == SctpSocket.WOULD_BLOCK) {
                heldBy.waitForRoom();
                return false;
            }
        } catch (IOException e) {
            lose("send failed: " + e.getMessage());
            return true;
        }
        tap.chunk(this, true, heldStream, DdpSctp.PPID_DDP_SEGMENT, true, heldBuffer, heldLength);
        heldLength = 0;
        heldBy = null;
        return true;
    }

    /** The association is gone: every session on it hears so, as a lost stream (RFC 5043 §11.3). */
    void lose(String reason) {
        if (down) {
            return;
        }
        down = true;
        LOG.log(System.Logger.Level.DEBUG, "{0}: association with {1} down: {2}", name, socket.remoteAddress(),
                reason);
        heldLength = 0; // nothing more goes out
        validated.completeExceptionally(new IOException(reason));
        for (int i = 0; i < made.size(); i++) { // by index: what a session's end sets off may make another
            made.get(i).lost(reason);
        }
        socket.close();
        onDown.accept(this);
    }

    /** Aborts the association (ABORT: nothing lingers to be shut down); sessions still open are lost. Any thread. */
    void abort() {
        loop.execute(() -> {
            if (!down) {
                socket.abort();
                lose("association aborted locally");
            }
        });
    }

    /**
     * A DDP stream session on one pair of like-numbered SCTP streams, the LLP stream of one queue pair: the I/O shell
     * of its {@link SessionStateMachine} (which decides what is legal) and of its {@link ResequencingWindow}.
     */
    final class Session implements LlpStream, SessionStateMachine.Effects {
        final int streamId;
        private final SessionStateMachine machine = new SessionStateMachine(this);
        private int txSsn;
        private LlpSink sink;
        private volatile LlpParameters parameters;
        private boolean pressured;
        /** The ULP has answered the Initiate waiting here (from any thread); the answer is on its way to the loop. */
        volatile boolean ulpAnswered;
        /** In {@link #waitingForRoom}. */
        private boolean waiting;
        private final ArrayDeque<byte[]> pendingControl = new ArrayDeque<>();
        private final ResequencingWindow window = new ResequencingWindow(budget);
        /** A session on this stream ended since the socket last said all it sent was acknowledged (§6.6). */
        private boolean outstanding;
        /**
         * Takes the chunks in order; held ones wait while the session is bound to a queue pair whose engine has not
         * started (an Accept whose segments overtook it: they are delivered once the engine started).
         */
        private final ResequencingWindow.Delivery process = new ResequencingWindow.Delivery() {
            @Override
            public void deliver(int ppid, MemorySegment chunk, int length, boolean payloadPlaced) {
                process(ppid, chunk, length, payloadPlaced);
            }

            @Override
            public boolean paused() {
                return starting;
            }
        };
        private final EarlyPlacement placer = new EarlyPlacement();
        private Consumer<SessionControl> responseHandler;
        /** Bound to a queue pair whose engine has not started yet (its start is queued on the loop). */
        private boolean starting;

        Session(int streamId) {
            this.streamId = streamId;
        }

        DdpAssociation association() {
            return DdpAssociation.this;
        }

        /** The association and the stream: {@code sctp-3 stream 1}. */
        @Override
        public String toString() {
            return name + " stream " + streamId;
        }

        /** The session's state. Owner thread. */
        SessionStateMachine.State state() {
            return machine.state();
        }

        /** Active side: sends an Initiate; {@code onResponse} gets the Accept, Reject or Terminate. Owner thread. */
        void initiate(SessionControl initiate, Consumer<SessionControl> onResponse) {
            if (down) {
                onResponse.accept(null); // the association died before the Initiate could go: no answer will come
                return;
            }
            responseHandler = onResponse;
            machine.initiate(initiate);
        }

        /** Passive side: answers the pending Initiate. Owner thread. */
        void answer(SessionControl response) {
            machine.answer(response);
        }

        /** Makes the session the LLP stream of a queue pair. Owner thread, session OPEN. */
        void bind(LlpParameters negotiated) {
            this.parameters = negotiated;
            if (!starting) {
                starting = true;
                awaitingStart++; // the peer's first segment may be right behind its Accept, in this very read
            }
        }

        // ------------------------------------------------------------------ what the machine has done

        @Override
        public void send(SessionControl control) {
            sendControl(control);
        }

        @Override
        public void initiated(SessionControl initiate) {
            Listener current = listener;
            if (current == null) {
                machine.answer(new SessionControl.Terminate()); // nobody to ask: a non-ULP reject (§6.4)
            } else {
                current.onInitiate(this, initiate);
            }
        }

        @Override
        public void answered(SessionControl response) {
            Consumer<SessionControl> waiting = responseHandler;
            responseHandler = null;
            if (waiting != null) {
                waiting.accept(response);
            }
        }

        @Override
        public void ended(boolean graceful, String reason) {
            LlpSink current = sink;
            sink = null;
            started();
            if (current != null) {
                current.onClosed(graceful, reason);
            }
        }

        @Override
        public void startedOver() {
            sessionEnded();
            outstanding = true; // what this side sent for the session just over may still be in flight
            txSsn = 0;
            window.reset(); // DDP-SSN 0 again, for the next session on this stream (RFC 5043 §6.1)
            // control chunks still waiting for room are the old session's last words (its Terminate): they still go
        }

        /** Session control chunks waiting for room in the socket. Owner thread. */
        int pendingControl() {
            return pendingControl.size();
        }

        void sendControl(SessionControl control) {
            SessionControlChunk chunk = new SessionControlChunk(txSsn, control);
            txSsn = (txSsn + 1) & 0xFFFF;
            byte[] octets = chunk.toByteArray();
            if (!pendingControl.isEmpty() || !sendHeld(false)
                    || transmit(octets, DdpSctp.PPID_SESSION_CONTROL) == SctpSocket.WOULD_BLOCK) {
                // control is never lost; it waits for room, in order, counted: a peer that keeps opening and breaking
                // sessions while it takes nothing of what this side sends would otherwise grow the queue for ever
                if (!budget.take(octets.length + PENDING_OVERHEAD)) {
                    Counters.increment(Counter.CONNECTIONS_LOST);
                    socket.abort();
                    lose("the peer leaves " + pendingControlOctets() + " octets of session control answers unsent "
                            + "and asks for more: " + budget.refusal());
                    return;
                }
                pendingControl.add(octets);
                waitForRoom();
            }
        }

        private long pendingControlOctets() {
            long octets = 0;
            for (byte[] pending : pendingControl) {
                octets += pending.length + PENDING_OVERHEAD;
            }
            return octets;
        }

        private int transmit(byte[] octets, int ppid) {
            MemorySegment.copy(MemorySegment.ofArray(octets), 0, sendBuffer, 0, octets.length);
            try {
                int sent = socket.send(sendBuffer, 0, octets.length, streamId, ppid, true);
                if (sent != SctpSocket.WOULD_BLOCK) {
                    tap.chunk(DdpAssociation.this, true, streamId, ppid, true, sendBuffer, octets.length);
                    fill.flushed(); // it left at once, bundling off: the next chunk starts a packet
                }
                return sent;
            } catch (IOException e) {
                lose("send failed: " + e.getMessage());
                return octets.length;
            }
        }

        /** Asks to hear when the socket has room again. Owner thread. */
        private void waitForRoom() {
            if (!waiting) {
                waiting = true;
                waitingForRoom.add(this);
            }
        }

        void writable() {
            while (!pendingControl.isEmpty()) {
                if (transmit(pendingControl.peekFirst(), DdpSctp.PPID_SESSION_CONTROL) == SctpSocket.WOULD_BLOCK) {
                    waitForRoom();
                    return;
                }
                budget.give(pendingControl.pollFirst().length + PENDING_OVERHEAD);
            }
            if (pressured && sink != null) {
                pressured = false;
                sink.onWritable();
            }
        }

        // ------------------------------------------------------------------ LlpStream, for the engine

        @Override
        public LlpParameters parameters() {
            return parameters;
        }

        /** The loop the session lives on: its association's. */
        Loop loop() {
            return loop;
        }

        @Override
        public int mulpdu() {
            return maxChunk - DdpSctp.DDP_SSN_LENGTH;
        }

        @Override
        public int packetRoom() {
            return fill.room() - DdpSctp.DDP_SSN_LENGTH;
        }

        @Override
        public void start(LlpSink newSink) {
            assert loop.inLoop() : "LLP stream called off its loop";
            sink = newSink; // on the loop, before the next chunk is dispatched
            started();
            window.deliverHeld(process); // segments that overtook the Accept, held until the engine started
        }

        /** The engine started, or the session ended before it did: the association reads again. */
        private void started() {
            if (starting) {
                starting = false;
                awaitingStart--;
                ready(); // what waits in the socket
            }
        }

        @Override
        public int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
                long payloadOffset, int payloadLength) {
            assert loop.inLoop() : "LLP stream called off its loop";
            if (down || !machine.sending()) {
                return CLOSED; // after the Session Terminate nothing more goes out (RFC 5043 §6.2)
            }
            int length = DdpSctp.DDP_SSN_LENGTH + headerLength + payloadLength;
            if (length > maxChunk) {
                // RFC 5043 §9: segments over the advertised maximum are refused, never fragmented
                throw new IllegalArgumentException("segment of " + (length - 2) + " octets exceeds " + mulpdu());
            }
            if (!pendingControl.isEmpty() || !sendHeld(true)) { // the one before this goes first, bundled
                pressured = true;
                waitForRoom();
                return BACK_PRESSURED;
            }
            if (down) {
                return CLOSED;
            }
            Wire.putU16(sendBuffer, 0, txSsn);
            MemorySegment.copy(header, headerOffset, sendBuffer, DdpSctp.DDP_SSN_LENGTH, headerLength);
            MemorySegment.copy(payload, payloadOffset, sendBuffer, DdpSctp.DDP_SSN_LENGTH + headerLength,
                    payloadLength);
            MemorySegment built = sendBuffer; // held until the next segment or the engine's flush
            sendBuffer = heldBuffer;
            heldBuffer = built;
            heldLength = length;
            heldStream = streamId;
            heldBy = this;
            fill.add(length);
            txSsn = (txSsn + 1) & 0xFFFF;
            return SENT;
        }

        /** Posts made in one turn of the application are sent together, so that the stack bundles them. */
        @Override
        public boolean gathers() {
            return true;
        }

        /**
         * The engine's burst ended: the held segment goes, with bundling off, and takes out with it what the stack
         * held back meanwhile (a single segment goes at once, as without bundling). Owner thread.
         */
        @Override
        public void flush() {
            sendHeld(false); // a full socket keeps it: it goes when there is room (poll)
        }

        /** The engine closes: a Session Terminate follows the last segment (RFC 5043 §6.2). */
        @Override
        public void close() {
            assert loop.inLoop() : "LLP stream called off its loop";
            machine.close();
        }

        @Override
        public void abort() {
            assert loop.inLoop() : "LLP stream called off its loop";
            if (machine.state() != SessionStateMachine.State.DRAINING) {
                machine.abort();
                draining();
            }
        }

        void lost(String reason) {
            machine.lost(reason);
            window.reset(); // what it held goes back to the budget
            for (byte[] pending = pendingControl.poll(); pending != null; pending = pendingControl.poll()) {
                budget.give(pending.length + PENDING_OVERHEAD);
            }
            started();
        }

        // ------------------------------------------------------------------ receive

        void onChunk(int length) {
            if (length < DdpSctp.DDP_SSN_LENGTH) {
                illegal("chunk of " + length + " octets has no DDP-SSN");
                return;
            }
            if (!message.complete || length > maxChunk) {
                illegal("chunk larger than the advertised " + maxChunk + " octets (" + DecodeStatus.SCTP_CHUNK_OVERSIZED
                        + ")");
                return;
            }
            if (!message.unordered) {
                illegal("an ordered DATA chunk: RFC 5043 §10 wants the U bit on every one");
                return;
            }
            int ppid = message.ppid;
            if (ppid != DdpSctp.PPID_DDP_SEGMENT && ppid != DdpSctp.PPID_SESSION_CONTROL) {
                illegal("PPID " + Integer.toUnsignedString(ppid) + " on a DDP association");
                return;
            }
            int ssn = Wire.u16(receiveBuffer, 0);
            if (ssn == 0 && ppid == DdpSctp.PPID_SESSION_CONTROL
                    && machine.state() == SessionStateMachine.State.DRAINING && initiates(length)) {
                machine.restart(); // the peer's new session: the stream is free, and the Initiate is taken below
            }
            switch (window.classify(ssn)) {
                case DELIVER -> window.deliver(ppid, receiveBuffer, length, process);
                case HOLD -> hold(ssn, ppid, length);
                case DUPLICATE -> illegal("duplicate DDP-SSN " + ssn);
                default -> illegal("DDP-SSN " + ssn + " while expecting " + window.expected());
            }
        }

        /**
         * On a draining stream: keeps only the DDP-SSN and function code of a chunk ahead of its turn, if the drain
         * waits for the peer's Terminate; else, or past the budget, the chunk is dropped and counted.
         */
        private void holdMarker(int ssn, int ppid, int length) {
            if (!machine.drainsToTerminate() || !window.hold(ssn, ppid, receiveBuffer, 0,
                    Math.min(length, MARKER_OCTETS), false)) {
                Counters.increment(Counter.EARLY_CHUNKS_REFUSED);
            }
        }

        /** Whether the control chunk of {@code length} octets just received is an Initiate, plain or enhanced. */
        private boolean initiates(int length) {
            if (length < SessionControlChunk.PRIVATE_DATA_OFFSET) {
                return false;
            }
            int code = Wire.u16(receiveBuffer, SessionControlChunk.FUNCTION_CODE_OFFSET);
            return code == FunctionCode.INITIATE.wire() || code == FunctionCode.ENHANCED_INITIATE.wire();
        }

        /**
         * A chunk ahead of its turn ({@code ssn} is within the window): kept until then only for a session this side
         * takes part in, and only within the budget (RFC 5043 §10: nothing allocated for a DDP-SSN not shown valid).
         * Past the budget the session ends with a Terminate, as for an invalid DDP-SSN (§10 allows it), rather than
         * the association being throttled: the chunk that fills the gap arrives behind the early ones in the socket,
         * so a reader that stopped reading would never reach it (SCTP takes a gap-filling chunk even into a closed
         * window, RFC 9260 §6.2, but it would wait behind what nobody reads). A draining stream keeps only each
         * chunk's DDP-SSN and function code, to know when the peer's Terminate has come in its turn.
         */
        private void hold(int ssn, int ppid, int length) {
            if (machine.state() == SessionStateMachine.State.DRAINING) {
                holdMarker(ssn, ppid, length);
                return;
            }
            if (!machine.holdsEarly()) {
                Counters.increment(Counter.EARLY_CHUNKS_REFUSED);
                illegal("DDP-SSN " + ssn + " ahead of " + window.expected() + " in state " + machine.state()
                        + ": nothing is kept for a session not open (RFC 5043 §10)");
                return;
            }
            if (!window.hold(ssn, ppid, receiveBuffer, 0, length, false)) {
                Counters.increment(Counter.EARLY_CHUNKS_REFUSED);
                illegal("DDP-SSN " + ssn + " is " + window.distance(ssn) + " ahead of " + window.expected()
                        + " and cannot be kept: " + budget.refusal());
                holdMarker(ssn, ppid, length); // the drain still needs to see it come
                return;
            }
            // tagged payload is placed as it arrives (RFC 5043 §10), once the chunk is kept for its turn
            if (ppid == DdpSctp.PPID_DDP_SEGMENT && sink != null && machine.sending()
                    && placer.place(sink, receiveBuffer, DdpSctp.DDP_SSN_LENGTH, length - DdpSctp.DDP_SSN_LENGTH)) {
                window.placed(ssn);
            }
        }

        private void process(int ppid, MemorySegment chunk, int length, boolean placed) {
            boolean wasDraining = machine.state() == SessionStateMachine.State.DRAINING;
            if (ppid == DdpSctp.PPID_DDP_SEGMENT) {
                if (machine.segment(streamId)) {
                    if (sink == null) {
                        illegal("a DDP segment on stream " + streamId + " before its queue pair took it");
                        return;
                    }
                    sink.onSegment(chunk, DdpSctp.DDP_SSN_LENGTH, length - DdpSctp.DDP_SSN_LENGTH, placed);
                } else if (!wasDraining) {
                    lastIllegal = machine.lastIllegal();
                    draining();
                }
                return;
            }
            SessionControl control;
            try {
                control = SessionControlChunk.decode(chunk, 0, length).message();
            } catch (MalformedFrameException e) {
                illegal("session control: " + e.getMessage());
                return;
            }
            machine.received(control);
            lastIllegal = machine.lastIllegal();
            if (!wasDraining) {
                draining();
            }
        }

        /** A chunk fits no legal sequence: the machine ends the session. */
        private void illegal(String reason) {
            if (machine.state() == SessionStateMachine.State.DRAINING) {
                return; // ended already: the rest of the session is dropped
            }
            machine.illegal(reason);
            lastIllegal = machine.lastIllegal();
            draining();
        }

        /**
         * The session is over for this side, the stream drains: of what it holds, only the DDP-SSNs and function
         * codes still matter (when the peer's Terminate comes in its turn), and nothing at all when no Terminate
         * will come.
         */
        private void draining() {
            if (machine.drainsToTerminate()) {
                window.keepOnly(MARKER_OCTETS);
            } else if (machine.state() == SessionStateMachine.State.DRAINING) {
                window.reset();
            }
        }
    }
}
