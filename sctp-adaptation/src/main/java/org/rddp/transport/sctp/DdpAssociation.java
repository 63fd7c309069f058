package org.rddp.transport.sctp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rddp.loop.Loop;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.wire.Wire;

/**
 * One SCTP association carrying DDP (RFC 5043): the loop it lives on, the Adaptation Layer Indication check, and
 * one {@link DdpStreamSession} per SCTP stream id. Every chunk goes out unordered with the stream's DDP-SSN (§5.2,
 * §10); incoming chunks are put back in DDP-SSN order for delivery, tagged payload being placed as it arrives.
 * Session control follows the legal sequences of §6 and RFC 6581 §7; a chunk that fits none terminates that
 * session, not the association.
 */
final class DdpAssociation {

    /** Receives session control the ULP must decide on (passive side) and association events. */
    interface Listener {
        /** An Initiate or Enhanced Initiate arrived on an idle stream. */
        void onInitiate(DdpStreamSession session, SessionControl initiate);
    }

    private static final AtomicInteger NAMES = new AtomicInteger();
    private final String name = "sctp-" + NAMES.incrementAndGet();
    private final SctpSocket socket;
    private final Loop loop;
    /** The session of each stream, made when the stream is first used (most of an association's never are). */
    private final DdpStreamSession[] sessions;
    /** The sessions made so far, in the order they were. Owner thread. */
    private final java.util.ArrayList<DdpStreamSession> made = new java.util.ArrayList<>();
    /** Sessions that met a full socket and wait for room, each once. Owner thread. */
    private final java.util.ArrayDeque<DdpStreamSession> waitingForRoom = new java.util.ArrayDeque<>();
    /** The session {@link #poll} is handing the socket's room to, or null. Owner thread. */
    private DdpStreamSession serving;
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
    private DdpStreamSession heldBy;
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
    /**
     * The largest chunk payload now: what the path takes without SCTP or IP fragmenting it (RFC 5043 §9), followed
     * as the stack learns the path's MTU ({@link #followPath}), never above {@link #largestChunk}. Owner thread.
     */
    private int maxChunk;
    /** What the buffers were made for: the path's when the association started. */
    private final int largestChunk;
    private volatile Listener listener;
    private volatile boolean down;
    private boolean adaptationSeen;
    private final Consumer<DdpAssociation> onDown;
    private final ChunkTap tap;
    /** What the sessions' chunks held ahead of their turn may take. Owner thread. */
    private final AssociationBudget budget;
    /** Its connection manager's. */
    private final Counters counters;
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
    /**
     * Initiates that may wait for the ULP at once before the association stops reading
     * ({@link SctpLimits#pendingPerAssociation}); 0 until the first reaches the ULP. Owner thread.
     */
    private int ulpLimit;
    /** How long reading may stop for the ULP ({@link SctpLimits#ulpWait}). Owner thread. */
    private java.time.Duration ulpWait;
    /** As many Initiates as {@link #ulpLimit} wait for the ULP: nothing is read until it answers one. Owner thread. */
    private boolean ulpFull;
    /** The ULP left them waiting beyond {@link #ulpWait}: reading on, the next Initiate is refused. Owner thread. */
    private boolean ulpOverdue;
    /** When the ULP's wait is over; null while not full. Owner thread. */
    private org.rddp.loop.Deadline ulpDeadline;
    /** The stack counts this association's retransmissions ({@link SctpSocket#retransmittedChunks}). */
    private final boolean countsRetransmissions;
    /** Retransmitted chunks counted so far, and when next to ask the stack ({@link #countRetransmissions}). */
    private long retransmissionsCounted;
    private long nextRetransmissionCount;
    /** Shutting down (SHUTDOWN sent) since its last session ended; down once the stack says it is done. */
    private volatile boolean shuttingDown;
    private boolean idleCheckQueued;
    private final Runnable idleCheck = this::closeIfIdle;

    /** The most any of an association's buffers takes: a chunk as large as an IP packet, plus slack. */
    static final int LARGEST_BUFFER = 65_536 + 4096;
    /** An association's buffers: one to receive into, one to build a segment in, one to hold a segment in. */
    static final int BUFFERS = 3;

    DdpAssociation(SctpSocket socket, Loop loop, Consumer<DdpAssociation> onDown, ChunkTap tap,
            AssociationBudget budget, Counters counters) {
        this.tap = tap;
        this.counters = counters;
        this.budget = budget;
        this.socket = socket;
        this.loop = loop;
        this.onDown = onDown;
        this.maxChunk = Math.max(DdpSctp.MIN_MAX_CHUNK_LENGTH, socket.maxMessage());
        this.largestChunk = maxChunk;
        Arena arena = Arena.ofAuto();
        this.receiveBuffer = arena.allocate(LARGEST_BUFFER, 8); // the peer's chunks follow its path, not this one
        this.sendBuffer = arena.allocate(maxChunk, 8);
        this.heldBuffer = arena.allocate(maxChunk, 8);
        this.fill = new PacketFill(maxChunk);
        this.sessions = new DdpStreamSession[socket.streams()];
        this.countsRetransmissions = socket.retransmittedChunks() >= 0;
        this.nextRetransmissionCount = System.nanoTime() + RETRANSMISSIONS_EVERY;
    }

    /**
     * Sizes the next DDP segments for the path as the stack knows it now (RFC 5043 §9: the MULPDU follows the path
     * MTU, so that SCTP never fragments a segment): a smaller hop found by path MTU discovery shrinks them, a path
     * that takes more again lets them grow back up to {@link #largestChunk}. Owner thread, with the retransmission
     * count (kernel SCTP).
     */
    private void followPath() {
        int now = Math.min(largestChunk, Math.max(DdpSctp.MIN_MAX_CHUNK_LENGTH, socket.currentMaxMessage()));
        if (now != maxChunk) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: the path now takes chunks of {1} octets, not {2}", name, now,
                    maxChunk);
            maxChunk = now;
            fill.resize(now);
        }
    }

    /** How often an association with traffic asks its stack how many chunks it retransmitted: 1 s. */
    private static final long RETRANSMISSIONS_EVERY = 1_000_000_000L;

    /**
     * Counts what the stack retransmitted on this association since the last count
     * ({@link Counter#SCTP_RETRANSMISSIONS}, the manager's and the process's). Owner thread: one getsockopt, on a
     * stack that counts per association.
     */
    private void countRetransmissions() {
        if (!countsRetransmissions) {
            return;
        }
        long now = socket.retransmittedChunks();
        if (now > retransmissionsCounted) {
            counters.add(Counter.SCTP_RETRANSMISSIONS, now - retransmissionsCounted);
            retransmissionsCounted = now;
        }
    }

    /** Its connection manager's counters, which its sessions count into. */
    Counters counters() {
        return counters;
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
    void sessionEnded() {
        ulpChanged(); // one that waited for the ULP may have ended
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
        for (DdpStreamSession session : made) {
            if (session.state() != SessionStateMachine.State.IDLE || session.pendingControl() > 0) {
                return;
            }
        }
        // SHUTDOWN, and the socket kept (and read) until the stack reports the association down: usrsctp needs this
        // side's packets to finish it, which a freed socket would stop (the peer would wait out its retransmissions)
        shuttingDown = true;
        countRetransmissions(); // the last count: the stack forgets the association once it is down
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
    DdpStreamSession idleSession() {
        boolean asked = false;
        for (int streamId = 0; streamId < sessions.length; streamId++) {
            DdpStreamSession session = sessions[streamId];
            if (session == null) {
                return session(streamId);
            }
            if (session.state() != SessionStateMachine.State.IDLE) {
                continue;
            }
            if (session.outstanding && !asked) {
                asked = true;
                if (socket.allSentAcknowledged()) {
                    for (DdpStreamSession ended : made) {
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
    DdpStreamSession session(int streamId) {
        DdpStreamSession session = sessions[streamId];
        if (session == null) {
            session = new DdpStreamSession(this, streamId, budget);
            sessions[streamId] = session;
            made.add(session);
        }
        return session;
    }

    /** Sessions whose Initiate waits for the ULP, which has not answered yet. Owner thread. */
    int pendingUlp() {
        int pending = 0;
        for (DdpStreamSession session : made) {
            if (session.state() == SessionStateMachine.State.PENDING_ULP && !session.ulpAnswered) {
                pending++;
            }
        }
        return pending;
    }

    /**
     * The ULP heard of an Initiate, or answered one: with {@code limit} Initiates waiting for it, the association
     * stops reading (its peer's SCTP flow control then holds back whatever follows, as a listen backlog does for TCP)
     * until the ULP answers one or {@code wait} has passed; then it reads on, and the manager refuses an Initiate
     * beyond the limit (RFC 5043 §6.4). Owner thread.
     */
    void ulpChanged(int limit, java.time.Duration wait) {
        ulpLimit = limit;
        ulpWait = wait;
        ulpChanged();
    }

    /** The ULP answered an Initiate, or a session waiting for it ended: reads again if it was at the limit. */
    void ulpChanged() {
        if (ulpLimit == 0 || down) {
            return;
        }
        boolean full = pendingUlp() >= ulpLimit;
        if (full && !ulpFull) {
            ulpFull = true;
            ulpDeadline = loop.schedule(System.nanoTime() + ulpWait.toNanos(), () -> {
                ulpDeadline = null;
                ulpOverdue = true;
                ready(); // what waits in the socket: an Initiate beyond the limit is refused now
            });
        } else if (!full && ulpFull) {
            ulpFull = false;
            ulpOverdue = false;
            if (ulpDeadline != null) {
                ulpDeadline.cancel();
                ulpDeadline = null;
            }
            ready();
        }
    }

    /** Whether the association reads: no engine waits to start, and the ULP is not behind. Owner thread. */
    private boolean reading() {
        return awaitingStart == 0 && (!ulpFull || ulpOverdue);
    }

    /** The protocol parameters the stack applies to this association, read back from it. Owner thread. */
    ProtocolParameters protocolParameters() throws IOException {
        return socket.protocolParameters();
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
     * The largest chunk payload taken from the peer: as large as an IP packet. The peer sizes its chunks by its own
     * path MTU (RFC 5043 §9), which may be larger than this side's (a 1,500-octet link at its end, a 1,280-octet one
     * here), so this side's MTU is no bound on them; the receive buffer holds this much.
     */
    static int largestReceived() {
        return LARGEST_BUFFER - 4096;
    }

    /** Who decides on the Initiates the peer sends; null on an association this side made (none is taken there). */
    Listener listener() {
        return listener;
    }

    /** Octets left in the packet the stack is filling with the burst's chunks. Owner thread. */
    int packetRoom() {
        return fill.room();
    }

    /** A session's machine saw {@code reason} last ({@link #lastIllegal}). Owner thread. */
    void lastIllegal(String reason) {
        lastIllegal = reason;
    }

    /**
     * A session was bound to a queue pair whose engine has not started yet: nothing is read until it has
     * ({@link #awaitingStart}). Owner thread.
     */
    void sessionStarting() {
        awaitingStart++;
    }

    /** That engine started, or its session ended before it did: the association reads again. Owner thread. */
    void sessionStarted() {
        awaitingStart--;
        ready(); // what waits in the socket
    }

    /** {@code session} met a full socket: it hears when there is room ({@link DdpStreamSession#writable}). */
    void waitForRoom(DdpStreamSession session) {
        waitingForRoom.add(session);
    }

    /**
     * Whether {@code session} must wait for room behind the sessions already waiting for it: room goes to them in
     * turn ({@link #poll}), so a session whose application posts again at once cannot take what frees up before they
     * see it (on a lossy path, where room comes in small bursts, one queue pair would otherwise starve the others).
     * Owner thread.
     */
    boolean behindOthers(DdpStreamSession session) {
        return !waitingForRoom.isEmpty() && serving != session;
    }

    /** A session queued behind others while the socket may have room: the queue moves on the loop's next turn. */
    void nudge() {
        if (socket.writable()) {
            ready();
        }
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
            while (!down && reading()) {
                int length = socket.receive(receiveBuffer, message);
                if (length == SctpSocket.WOULD_BLOCK) {
                    break;
                }
                dispatch(length);
            }
            if (countsRetransmissions && System.nanoTime() - nextRetransmissionCount >= 0) {
                nextRetransmissionCount = System.nanoTime() + RETRANSMISSIONS_EVERY;
                countRetransmissions();
                followPath();
            } else if (socket.pathMtuLearned()) {
                followPath();
            }
            // only sessions that met a full socket wait for room: no walk over every stream, no native call, per poll.
            // Each in turn: one that fills the socket again waits at the back, the others keep their places
            if (!down && !waitingForRoom.isEmpty() && socket.writable() && sendHeld(false)) {
                for (int i = waitingForRoom.size(); i > 0 && !down && !waitingForRoom.isEmpty(); i--) {
                    serving = waitingForRoom.pollFirst();
                    try {
                        serving.writable(); // waits again, at the back, if the socket fills once more
                    } finally {
                        serving = null;
                    }
                    if (!socket.writable()) {
                        break;
                    }
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
                        + "stopped answering (Association.Max.Retrans retransmissions or heartbeats in a row "
                        + "unanswered: ProtocolParameters)";
                case SctpSocket.ReceivedMessage.SHUT_DOWN -> "the SCTP association was shut down";
                case SctpSocket.ReceivedMessage.NOT_STARTED -> "the SCTP association could not be set up";
                default -> "the SCTP association ended";
            });
            case SctpSocket.ReceivedMessage.PATH_CHANGE -> pathChanged(message.path, message.value);
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
                session(message.streamId).onChunk(message, receiveBuffer, length);
            }
            default -> { }
        }
    }

    /**
     * One of the association's paths changed (multi-homed, RFC 9260 §6.4): counted, logged, and, when the association
     * has another path to move to, told to the queue pairs of its sessions ({@code PATH_MIGRATED}) with the paths'
     * states. With one path nothing moves (a loss may make it potentially failed for an RTO): counted and logged only.
     * Owner thread.
     */
    private void pathChanged(java.net.InetSocketAddress path, int state) {
        counters.increment(Counter.SCTP_PATH_CHANGES);
        java.util.List<org.rddp.llp.LlpPath> paths = socket.paths();
        String detail = "the path to " + path + " is " + (state >= 0
                && state < SctpSocket.ReceivedMessage.PATH_STATES.size()
                ? SctpSocket.ReceivedMessage.PATH_STATES.get(state) : "in state " + state)
                + (paths.isEmpty() ? "" : "; paths: " + paths);
        LOG.log(System.Logger.Level.DEBUG, "{0}: {1}", name, detail);
        if (paths.size() < 2) {
            return;
        }
        for (int i = 0; i < made.size(); i++) {
            made.get(i).pathChanged(detail);
        }
    }

    /** The association's paths now ({@link org.rddp.llp.LlpStream#paths()}). Owner thread. */
    java.util.List<org.rddp.llp.LlpPath> paths() {
        return down ? java.util.List.of() : socket.paths();
    }

    /** Makes the path to {@code peer} the primary ({@link org.rddp.llp.LlpStream#choosePrimaryPath}). Owner thread. */
    void choosePrimaryPath(java.net.InetSocketAddress peer) throws IOException {
        if (down) {
            throw new IOException(name + " is down");
        }
        socket.choosePrimaryPath(peer);
        LOG.log(System.Logger.Level.DEBUG, "{0}: the primary path is now the one to {1}", name, peer);
    }

    private void refuse(String reason) {
        counters.increment(Counter.CONNECTIONS_REFUSED);
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
    boolean sendHeld(boolean moreFollows) {
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

    /**
     * Builds {@code by}'s DDP segment (DDP-SSN {@code ssn}, header, payload) and holds it, until the next segment or
     * the engine's flush ({@link #sendHeld}); nothing is held before. Owner thread.
     */
    void hold(DdpStreamSession by, int ssn, MemorySegment header, long headerOffset, int headerLength,
            MemorySegment payload, long payloadOffset, int payloadLength) {
        int length = DdpSctp.DDP_SSN_LENGTH + headerLength + payloadLength;
        Wire.putU16(sendBuffer, 0, ssn);
        Wire.copy(header, headerOffset, sendBuffer, DdpSctp.DDP_SSN_LENGTH, headerLength);
        Wire.copy(payload, payloadOffset, sendBuffer, DdpSctp.DDP_SSN_LENGTH + headerLength, payloadLength);
        MemorySegment built = sendBuffer; // held until the next segment or the engine's flush
        sendBuffer = heldBuffer;
        heldBuffer = built;
        heldLength = length;
        heldStream = by.streamId;
        heldBy = by;
        fill.add(length);
    }

    /**
     * Hands a chunk of stream {@code streamId} to the socket at once: session control, sent while no segment is
     * held. Owner thread.
     *
     * @return what the socket took, or {@link SctpSocket#WOULD_BLOCK}; a failed send loses the association
     */
    int transmit(int streamId, byte[] octets, int ppid) {
        MemorySegment.copy(MemorySegment.ofArray(octets), 0, sendBuffer, 0, octets.length);
        try {
            int sent = socket.send(sendBuffer, 0, octets.length, streamId, ppid, true);
            if (sent != SctpSocket.WOULD_BLOCK) {
                tap.chunk(this, true, streamId, ppid, true, sendBuffer, octets.length);
                fill.flushed(); // it left at once, bundling off: the next chunk starts a packet
            }
            return sent;
        } catch (IOException e) {
            lose("send failed: " + e.getMessage());
            return octets.length;
        }
    }

    /** Aborts the association at once (ABORT) and loses it for {@code reason}. Owner thread. */
    void abortNow(String reason) {
        socket.abort();
        lose(reason);
    }

    /** The association is gone: every session on it hears so, as a lost stream (RFC 5043 §11.3). */
    void lose(String reason) {
        if (down) {
            return;
        }
        down = true;
        countRetransmissions(); // if the stack still knows the association
        LOG.log(System.Logger.Level.DEBUG, "{0}: association with {1} down: {2}{3}", name, socket.remoteAddress(),
                reason, countsRetransmissions ? " (" + retransmissionsCounted + " chunks retransmitted)" : "");
        heldLength = 0; // nothing more goes out
        if (ulpDeadline != null) {
            ulpDeadline.cancel();
        }
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
                countRetransmissions();
                socket.abort();
                lose("association aborted locally");
            }
        });
    }
}
