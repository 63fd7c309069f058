package org.rddp.transport.sctp;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
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
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.Wire;

/**
 * A DDP stream session on one pair of like-numbered SCTP streams of a {@link DdpAssociation}, the LLP stream of one
 * queue pair: the I/O shell of its {@link SessionStateMachine} (which decides what is legal) and of its
 * {@link ResequencingWindow}. It lives on its association's loop; the association reads the socket and hands it the
 * chunks of its stream, and sends what it builds.
 */
final class DdpStreamSession implements LlpStream, SessionStateMachine.Effects {
    /** Octets a control chunk waiting for room takes besides its own: the array it is in, and the queue's slot. */
    private static final int PENDING_OVERHEAD = 16 + 8;
    /** What a draining stream keeps of a chunk ahead of its turn: its DDP-SSN and, for control, the function code. */
    private static final int MARKER_OCTETS = SessionControlChunk.PRIVATE_DATA_OFFSET;

    final int streamId;
    private final DdpAssociation association;
    /** What its chunks held ahead of their turn, and its control chunks waiting for room, take: its association's. */
    private final AssociationBudget budget;
    private final SessionStateMachine machine = new SessionStateMachine(this);
    private int txSsn;
    private LlpSink sink;
    private volatile LlpParameters parameters;
    private boolean pressured;
    /** The ULP has answered the Initiate waiting here (from any thread); the answer is on its way to the loop. */
    volatile boolean ulpAnswered;
    /** In the association's list of sessions waiting for room ({@link DdpAssociation#waitForRoom}). */
    private boolean waiting;
    private final ArrayDeque<byte[]> pendingControl = new ArrayDeque<>();
    private final ResequencingWindow window;
    /** A session on this stream ended since the socket last said all it sent was acknowledged (§6.6). */
    boolean outstanding;
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

    DdpStreamSession(DdpAssociation association, int streamId, AssociationBudget budget) {
        this.association = association;
        this.streamId = streamId;
        this.budget = budget;
        this.window = new ResequencingWindow(budget);
    }

    DdpAssociation association() {
        return association;
    }

    /** The association and the stream: {@code sctp-3 stream 1}. */
    @Override
    public String toString() {
        return association + " stream " + streamId;
    }

    /** The session's state. Owner thread. */
    SessionStateMachine.State state() {
        return machine.state();
    }

    /** Active side: sends an Initiate; {@code onResponse} gets the Accept, Reject or Terminate. Owner thread. */
    void initiate(SessionControl initiate, Consumer<SessionControl> onResponse) {
        if (association.down()) {
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
            // the peer's first segment may be right behind its Accept, in this very read
            association.sessionStarting();
        }
    }

    // ------------------------------------------------------------------ what the machine has done

    @Override
    public void send(SessionControl control) {
        sendControl(control);
    }

    @Override
    public void initiated(SessionControl initiate) {
        DdpAssociation.Listener current = association.listener();
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
        association.sessionEnded();
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
        if (!pendingControl.isEmpty() || !association.sendHeld(false)
                || association.transmit(streamId, octets, DdpSctp.PPID_SESSION_CONTROL) == SctpSocket.WOULD_BLOCK) {
            // control is never lost; it waits for room, in order, counted: a peer that keeps opening and breaking
            // sessions while it takes nothing of what this side sends would otherwise grow the queue for ever
            if (!budget.take(octets.length + PENDING_OVERHEAD)) {
                counters().increment(Counter.CONNECTIONS_LOST);
                association.abortNow("the peer leaves " + pendingControlOctets() + " octets of session control "
                        + "answers unsent and asks for more: " + budget.refusal());
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

    /** Asks to hear when the socket has room again. Owner thread. */
    void waitForRoom() {
        if (!waiting) {
            waiting = true;
            association.waitForRoom(this);
        }
    }

    /**
     * The socket has room again, and the association took this session off its list of those waiting for it: the
     * control chunks waiting go, then the engine hears it may send. Owner thread.
     */
    void writable() {
        waiting = false;
        while (!pendingControl.isEmpty()) {
            if (association.transmit(streamId, pendingControl.peekFirst(), DdpSctp.PPID_SESSION_CONTROL)
                    == SctpSocket.WOULD_BLOCK) {
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
    public Counters counters() {
        return association.counters();
    }

    @Override
    public LlpParameters parameters() {
        return parameters;
    }

    /** The association's paths, shared by every session on it. */
    @Override
    public java.util.List<org.rddp.llp.LlpPath> paths() {
        assert loop().inLoop() : "LLP stream called off its loop";
        return association.paths();
    }

    /** The association's primary path: every session on it moves with it. */
    @Override
    public void choosePrimaryPath(java.net.InetSocketAddress peer) throws java.io.IOException {
        assert loop().inLoop() : "LLP stream called off its loop";
        association.choosePrimaryPath(peer);
    }

    /** The loop the session lives on: its association's. */
    Loop loop() {
        return association.loop();
    }

    @Override
    public int mulpdu() {
        return association.maxChunk() - DdpSctp.DDP_SSN_LENGTH;
    }

    @Override
    public int packetRoom() {
        return association.packetRoom() - DdpSctp.DDP_SSN_LENGTH;
    }

    @Override
    public void start(LlpSink newSink) {
        assert loop().inLoop() : "LLP stream called off its loop";
        sink = newSink; // on the loop, before the next chunk is dispatched
        started();
        window.deliverHeld(process); // segments that overtook the Accept, held until the engine started
    }

    /** The engine started, or the session ended before it did: the association reads again. */
    private void started() {
        if (starting) {
            starting = false;
            association.sessionStarted();
        }
    }

    @Override
    public int send(MemorySegment header, long headerOffset, int headerLength, MemorySegment payload,
            long payloadOffset, int payloadLength) {
        assert loop().inLoop() : "LLP stream called off its loop";
        if (association.down() || !machine.sending()) {
            return CLOSED; // after the Session Terminate nothing more goes out (RFC 5043 §6.2)
        }
        int length = DdpSctp.DDP_SSN_LENGTH + headerLength + payloadLength;
        if (length > association.maxChunk()) {
            // RFC 5043 §9: segments over the advertised maximum are refused, never fragmented
            throw new IllegalArgumentException("segment of " + (length - 2) + " octets exceeds " + mulpdu());
        }
        if (association.behindOthers(this)) { // room goes to the sessions waiting for it first, in turn
            pressured = true;
            waitForRoom();
            association.nudge();
            return BACK_PRESSURED;
        }
        if (!pendingControl.isEmpty() || !association.sendHeld(true)) { // the one before this goes first, bundled
            pressured = true;
            waitForRoom();
            return BACK_PRESSURED;
        }
        if (association.down()) {
            return CLOSED;
        }
        association.hold(this, txSsn, header, headerOffset, headerLength, payload, payloadOffset, payloadLength);
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
        association.sendHeld(false); // a full socket keeps it: it goes when there is room (poll)
    }

    /** The engine closes: a Session Terminate follows the last segment (RFC 5043 §6.2). */
    @Override
    public void close() {
        assert loop().inLoop() : "LLP stream called off its loop";
        machine.close();
    }

    @Override
    public void abort() {
        assert loop().inLoop() : "LLP stream called off its loop";
        if (machine.state() != SessionStateMachine.State.DRAINING) {
            machine.abort();
            draining();
        }
    }

    /** The association's path changed: the queue pair bound to this session, if any, hears it. Owner thread. */
    void pathChanged(String detail) {
        LlpSink current = sink;
        if (current != null) {
            current.onPathChanged(detail);
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

    /** The chunk of {@code length} octets in {@code chunk}, on this session's stream, as {@code message} says. */
    void onChunk(SctpSocket.ReceivedMessage message, MemorySegment chunk, int length) {
        if (length < DdpSctp.DDP_SSN_LENGTH) {
            illegal("chunk of " + length + " octets has no DDP-SSN");
            return;
        }
        int maxChunk = DdpAssociation.largestReceived();
        if (!message.complete || length > maxChunk) {
            illegal("chunk larger than an IP packet's " + maxChunk + " octets, or not whole ("
                    + DecodeStatus.SCTP_CHUNK_OVERSIZED + ")");
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
        int ssn = Wire.u16(chunk, 0);
        if (ssn == 0 && ppid == DdpSctp.PPID_SESSION_CONTROL
                && machine.state() == SessionStateMachine.State.DRAINING && initiates(chunk, length)) {
            machine.restart(); // the peer's new session: the stream is free, and the Initiate is taken below
        }
        switch (window.classify(ssn)) {
            case DELIVER -> window.deliver(ppid, chunk, length, process);
            case HOLD -> hold(ssn, ppid, chunk, length);
            case DUPLICATE -> illegal("duplicate DDP-SSN " + ssn);
            default -> illegal("DDP-SSN " + ssn + " while expecting " + window.expected());
        }
    }

    /**
     * On a draining stream: keeps only the DDP-SSN and function code of a chunk ahead of its turn, if the drain
     * waits for the peer's Terminate; else, or past the budget, the chunk is dropped and counted.
     */
    private void holdMarker(int ssn, int ppid, MemorySegment chunk, int length) {
        if (!machine.drainsToTerminate() || !window.hold(ssn, ppid, chunk, 0,
                Math.min(length, MARKER_OCTETS), false)) {
            counters().increment(Counter.EARLY_CHUNKS_REFUSED);
        }
    }

    /** Whether the control chunk of {@code length} octets just received is an Initiate, plain or enhanced. */
    private static boolean initiates(MemorySegment chunk, int length) {
        if (length < SessionControlChunk.PRIVATE_DATA_OFFSET) {
            return false;
        }
        int code = Wire.u16(chunk, SessionControlChunk.FUNCTION_CODE_OFFSET);
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
    private void hold(int ssn, int ppid, MemorySegment chunk, int length) {
        if (machine.state() == SessionStateMachine.State.DRAINING) {
            holdMarker(ssn, ppid, chunk, length);
            return;
        }
        if (!machine.holdsEarly()) {
            counters().increment(Counter.EARLY_CHUNKS_REFUSED);
            illegal("DDP-SSN " + ssn + " ahead of " + window.expected() + " in state " + machine.state()
                    + ": nothing is kept for a session not open (RFC 5043 §10)");
            return;
        }
        if (!window.hold(ssn, ppid, chunk, 0, length, false)) {
            counters().increment(Counter.EARLY_CHUNKS_REFUSED);
            illegal("DDP-SSN " + ssn + " is " + window.distance(ssn) + " ahead of " + window.expected()
                    + " and cannot be kept: " + budget.refusal());
            holdMarker(ssn, ppid, chunk, length); // the drain still needs to see it come
            return;
        }
        // tagged payload is placed as it arrives (RFC 5043 §10), once the chunk is kept for its turn
        if (ppid == DdpSctp.PPID_DDP_SEGMENT && sink != null && machine.sending()
                && placer.place(sink, chunk, DdpSctp.DDP_SSN_LENGTH, length - DdpSctp.DDP_SSN_LENGTH)) {
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
                association.lastIllegal(machine.lastIllegal());
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
        association.lastIllegal(machine.lastIllegal());
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
        association.lastIllegal(machine.lastIllegal());
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
