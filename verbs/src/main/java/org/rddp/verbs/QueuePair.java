package org.rddp.verbs;

import org.rddp.work.QpEvent;
import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jctools.queues.MpmcArrayQueue;
import org.rddp.engine.RdmapEngine;
import org.rddp.engine.ReceiveWork;
import org.rddp.engine.SendWork;
import org.rddp.engine.StagResolver;
import org.rddp.engine.WorkQueues;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.llp.LlpStream;
import org.rddp.llp.PlacementTarget;
import org.rddp.loop.Loop;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.internal.VerbsAccess;

/**
 * A queue pair ({@code ibv_qp}) with the iWARP states IDLE, RTS, CLOSING, TERMINATE and ERROR. Posting is
 * thread-safe and allocates nothing; the protocol runs on the loop of the LLP stream a connection manager
 * attaches it to ({@link org.rddp.verbs.spi.ManagedQueuePairs#attach}).
 *
 * <p>Legal transitions the consumer may ask for with {@link #modify}: IDLE to ERROR, RTS to CLOSING (graceful
 * disconnect), RTS, CLOSING or TERMINATE to ERROR (abort), and ERROR to IDLE (reset, once the stream is down).
 * IDLE to RTS happens through a connection manager; the protocol itself moves to TERMINATE and ERROR.
 */
public final class QueuePair {
    private static final int SENDS = 0;
    private static final int OCTETS_SENT = 1;
    private static final int RECEIVES = 2;
    private static final int OCTETS_RECEIVED = 3;
    private static final int TERMINATE_SENT = 4;
    private static final int TERMINATE_RECEIVED = 5;
    private static final int LOST = 6;

    static {
        VerbsAccess.install(QueuePair::attach);
    }

    private final ProtectionDomain pd;
    private final QpAttributes attributes;
    private final int number;
    /**
     * The send queue. Any thread posts; one thread at a time takes what is posted and gives slots back: the engine's
     * loop while the engine sends (RTS, CLOSING), and afterwards whoever flushes, under this queue pair's monitor
     * ({@link Glue#flushSends}). The engine's last unmonitored step comes before the queue pair shows ERROR (its flush
     * of what it had taken), and a reset to IDLE needs ERROR, so the two never overlap.
     */
    private final SendQueue sendQueue;
    private final Queue<ReceiveWork> receiveFree;
    private final Queue<ReceiveWork> receivePosted;
    /** The engine's view of the queues: a new one at each reset, so that an engine left behind touches nothing. */
    private volatile Glue glue;
    private volatile QpState state = QpState.IDLE;
    private volatile RdmapEngine engine;
    private volatile LlpStream stream;
    private volatile Loop loop;
    private final CompletableFuture<QpEvent> established = new CompletableFuture<>();
    /** What {@link #statistics} reads: written by the loop alone (an ordered store), read by any thread. */
    private final AtomicLongArray traffic = new AtomicLongArray(LOST + 1);
    private volatile Counters counters = Counters.process();

    QueuePair(ProtectionDomain pd, QpAttributes attributes) {
        this.pd = pd;
        this.attributes = attributes;
        this.number = pd.device().nextQueuePairNumber();
        int sends = attributes.maxSendWorkRequests();
        int receives = attributes.maxReceiveWorkRequests();
        sendQueue = new SendQueue(Math.max(0, sends), () -> {
            SendWork slot = new SendWork(attributes.maxSge());
            slot.context = new SendWorkRequest.BindRequest(); // a bind's parameters, filled at each post
            return slot;
        });
        receiveFree = new MpmcArrayQueue<>(Math.max(2, receives));
        receivePosted = new MpmcArrayQueue<>(Math.max(2, receives));
        if (attributes.sharedReceiveQueue() == null) {
            for (int i = 0; i < receives; i++) {
                receiveFree.offer(new ReceiveWork(attributes.maxSge()));
            }
        }
        glue = new Glue();
    }

    /** The queue pair number, unique on its device. */
    public int number() {
        return number;
    }

    /** The protection domain. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** What it was created with. */
    public QpAttributes attributes() {
        return attributes;
    }

    /** The current state. */
    public QpState state() {
        return state;
    }

    /** The LLP stream attached, or null before a connection manager attached it. */
    public LlpStream stream() {
        return stream;
    }

    /**
     * Posts a send-queue request ({@code ibv_post_send}).
     *
     * @return {@link PostStatus#OK}, {@link PostStatus#QUEUE_FULL} or {@link PostStatus#NOT_RTS}
     * @throws IllegalArgumentException if the request has more elements than the queue pair takes
     */
    public int postSend(SendWorkRequest request) {
        RdmapEngine running = engine;
        int status = enqueue(request, running);
        if (status == PostStatus.OK) {
            running.wakeup(); // in a state that no longer sends, the engine flushes it
        }
        return status;
    }

    /**
     * Posts the first {@code count} of {@code requests}, in order, as one call ({@code ibv_post_send} with a list, as
     * perftest's {@code --post-list}): the engine is woken once for them all. Allocates nothing.
     *
     * @return how many were posted: {@code count}, or fewer when the queue filled or the queue pair is not in RTS
     *         (the first one not posted would get that status from {@link #postSend(SendWorkRequest)})
     * @throws IllegalArgumentException if a request has more elements than the queue pair takes (those before it are
     *                                  posted)
     */
    public int postSend(SendWorkRequest[] requests, int count) {
        RdmapEngine running = engine;
        int posted = 0;
        while (posted < count && enqueue(requests[posted], running) == PostStatus.OK) {
            posted++;
        }
        if (posted > 0) {
            running.wakeup();
        }
        return posted;
    }

    /** Queues {@code request} for {@code running}, the engine, without waking it. */
    private int enqueue(SendWorkRequest request, RdmapEngine running) {
        if (request.sgeCount() > attributes.maxSge()) {
            throw new IllegalArgumentException("queue pair " + number + ": " + request.sgeCount()
                    + " elements, it takes " + attributes.maxSge());
        }
        if (state != QpState.RTS || running == null) {
            return PostStatus.NOT_RTS;
        }
        long sequence = sendQueue.claim();
        if (sequence < 0) {
            return PostStatus.QUEUE_FULL;
        }
        request.copyTo(sendQueue.slot(sequence));
        sendQueue.publish(sequence);
        return PostStatus.OK;
    }

    /**
     * Posts a receive ({@code ibv_post_recv}); allowed in IDLE, so receives can be in place before the peer's
     * first Send.
     *
     * @return {@link PostStatus#OK}, {@link PostStatus#QUEUE_FULL} or {@link PostStatus#NOT_RTS}
     * @throws IllegalStateException    if the queue pair uses a shared receive queue
     * @throws IllegalArgumentException if the request has more elements than the queue pair takes
     */
    public int postReceive(ReceiveWorkRequest request) {
        if (attributes.sharedReceiveQueue() != null) {
            throw new IllegalStateException("queue pair " + number + " takes receives from its shared receive queue");
        }
        if (request.sgeCount() > attributes.maxSge()) {
            throw new IllegalArgumentException("queue pair " + number + ": " + request.sgeCount()
                    + " elements, it takes " + attributes.maxSge());
        }
        QpState now = state;
        if (now != QpState.IDLE && now != QpState.RTS && now != QpState.CLOSING) {
            return PostStatus.NOT_RTS;
        }
        ReceiveWork work = receiveFree.poll();
        if (work == null) {
            return PostStatus.QUEUE_FULL;
        }
        request.copyTo(work);
        receivePosted.offer(work);
        if (state == QpState.ERROR) {
            flushReceivesLater(); // lost the race with a flush: never leave a receive behind
        }
        return PostStatus.OK;
    }

    /**
     * Moves to {@code target} at the consumer's request ({@code ibv_modify_qp}).
     *
     * @throws IllegalStateException if the transition is not one a consumer may ask for from the current state
     */
    public synchronized void modify(QpState target) {
        QpState now = state;
        if (!allowed(now, target)) {
            throw new IllegalStateException("queue pair " + number + ": " + now + " -> " + target
                    + " is not a transition the consumer may request");
        }
        RdmapEngine running = engine;
        switch (target) {
            case CLOSING -> running.disconnect();
            case IDLE -> {
                glue.flushSends(); // what a post slipped in after the engine's last flush (its loop may be gone)
                glue = new Glue();
                engine = null;
                stream = null;
                loop = null;
                state = QpState.IDLE;
            }
            default -> {
                if (running == null) {
                    state = QpState.ERROR;
                    glue.flushReceives();
                } else {
                    running.abort("moved to ERROR by the consumer");
                }
            }
        }
    }

    /** The consumer transitions of RDMAC verbs §6.2, as a table. */
    static boolean allowed(QpState from, QpState to) {
        return switch (from) {
            case IDLE -> to == QpState.ERROR;
            case RTS -> to == QpState.CLOSING || to == QpState.ERROR;
            case CLOSING, TERMINATE -> to == QpState.ERROR;
            case ERROR -> to == QpState.IDLE;
        };
    }

    /** Starts a graceful disconnect (RTS to CLOSING); a no-op in other states. */
    public void disconnect() {
        RdmapEngine running = engine;
        if (running != null && state == QpState.RTS) {
            running.disconnect();
        }
    }

    /** The loop its stream lives on, or null before a connection manager attached it. */
    public Loop loop() {
        return loop;
    }

    /**
     * Binds the queue pair to an established LLP stream, which lives on {@code on}, and moves it to RTS; the engine
     * starts on that loop (a manual one runs when its thread polls or waits on a completion queue). For connection
     * managers, through {@link org.rddp.verbs.spi.ManagedQueuePairs#attach}.
     *
     * @throws IllegalStateException unless the queue pair is IDLE
     */
    private static void attach(QueuePair qp, LlpStream llp, Loop on) {
        qp.attachTo(llp, on);
    }

    private synchronized void attachTo(LlpStream llp, Loop on) {
        if (state != QpState.IDLE || engine != null) {
            throw new IllegalStateException("queue pair " + number + " is " + state + ", attach needs IDLE");
        }
        RdmapEngine created = new RdmapEngine(llp, on, glue, glue);
        counters = llp.counters();
        stream = llp;
        loop = on;
        engine = created;
        state = QpState.RTS;
        created.start();
    }

    /**
     * The paths of its connection as the transport sees them now ({@link org.rddp.llp.LlpPath}): an SCTP association's
     * peer addresses (several when multi-homed), a TCP connection's one; empty before it is connected or once its
     * stream is gone. Any thread: asked of its loop, answered at once on a manual loop's own thread.
     */
    public CompletableFuture<java.util.List<org.rddp.llp.LlpPath>> paths() {
        return onStream(java.util.List.of(), LlpStream::paths);
    }

    /**
     * Makes the path to {@code peer} (one of {@link #paths()}) its connection's primary path, the one traffic goes to
     * while it is active; on SCTP the association's, for every queue pair it carries. Any thread, as {@link #paths()}.
     * The future fails when the connection has no such path or cannot choose (TCP has one path), or is not connected.
     */
    public CompletableFuture<Void> choosePrimaryPath(java.net.InetSocketAddress peer) {
        java.util.Objects.requireNonNull(peer, "peer");
        return onStream(null, llp -> {
            try {
                llp.choosePrimaryPath(peer);
                return null;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e.getMessage(), e);
            }
        });
    }

    /** Runs {@code call} on the stream's loop; {@code unconnected} when there is no stream (yet). */
    @SuppressWarnings("checkstyle:IllegalCatch") // what the transport throws goes to the caller, not to the loop
    private <T> CompletableFuture<T> onStream(T unconnected, java.util.function.Function<LlpStream, T> call) {
        LlpStream llp;
        Loop on;
        synchronized (this) {
            llp = stream;
            on = loop;
        }
        if (llp == null || on == null) {
            return unconnected != null ? CompletableFuture.completedFuture(unconnected)
                    : CompletableFuture.failedFuture(new IllegalStateException("queue pair " + number
                            + " is not connected"));
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        on.runNowOrLater(() -> {
            try {
                answer.complete(call.apply(llp));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e instanceof java.io.UncheckedIOException io ? io.getCause() : e);
            }
        });
        return answer;
    }

    /** What it did so far ({@link QpStatistics}). Any thread. */
    public QpStatistics statistics() {
        return new QpStatistics(number, state, traffic.get(SENDS), traffic.get(OCTETS_SENT), traffic.get(RECEIVES),
                traffic.get(OCTETS_RECEIVED), traffic.get(TERMINATE_SENT) != 0, traffic.get(TERMINATE_RECEIVED) != 0,
                traffic.get(LOST) != 0);
    }

    /** Adds {@code octets} to one of {@link #traffic}'s pairs: the loop is its only writer. */
    private void count(int operations, long octets) {
        traffic.lazySet(operations, traffic.get(operations) + 1);
        traffic.lazySet(operations + 1, traffic.get(operations + 1) + octets);
    }

    /** Completes when the stream is established (or exceptionally if it failed first). */
    public CompletableFuture<QpEvent> established() {
        return established;
    }

    private void flushReceivesLater() {
        Loop on = loop;
        if (on != null) {
            on.execute(glue::flushReceives);
        } else {
            glue.flushReceives();
        }
    }

    @Override
    public String toString() {
        return "QueuePair[" + number + ", " + state + "]";
    }

    /** The engine's view of this queue pair: its work queues and its memory. Owner thread. */
    private final class Glue implements WorkQueues, StagResolver {
        private final SharedReceiveQueue srq = attributes.sharedReceiveQueue();
        /** The regions {@link #resolve} found last for local and for remote access: the engine's loop's alone. */
        private TaggedMemory lastLocal;
        private TaggedMemory lastRemote;

        @Override
        public SendWork nextSend() {
            return sendQueue.take();
        }

        @Override
        public void flushSends() {
            synchronized (QueuePair.this) {
                if (glue != this) {
                    return; // an engine the queue pair was reset from: the queues have moved on without it
                }
                for (SendWork work = sendQueue.take(); work != null; work = sendQueue.take()) {
                    sendCompleted(work, WcStatus.WR_FLUSH_ERR, 0);
                }
            }
        }

        @Override
        public ReceiveWork nextReceive() {
            return srq != null ? srq.take() : receivePosted.poll();
        }

        @Override
        public void sendCompleted(SendWork work, WcStatus outcome, long byteLength) {
            WcStatus status = outcome;
            boolean complete = status != WcStatus.SUCCESS || work.signaled || attributes.signalAll();
            long wrId = work.wrId;
            org.rddp.work.WorkOpcode done = work.opcode;
            if (done == org.rddp.work.WorkOpcode.BIND_MEMORY_WINDOW) {
                ((SendWorkRequest.BindRequest) work.context).clear(); // its references go with the work
            }
            // the slot is free before the completion can be seen: a consumer may post again at once
            sendQueue.free(work);
            if (status == WcStatus.SUCCESS) {
                count(SENDS, byteLength);
            }
            if (complete) {
                attributes.sendCq().push(wrId, status, opcode(done), byteLength, number, 0, false);
            }
        }

        @Override
        public void receiveCompleted(ReceiveWork work, WcStatus outcome, long byteLength,
                RdmapOpcode opcode, int invalidatedStag) {
            long wrId = work.wrId;
            // the slot is free before the completion can be seen: a consumer may post again at once
            if (srq != null) {
                srq.recycle(work);
            } else {
                receiveFree.offer(work);
            }
            if (outcome == WcStatus.SUCCESS) {
                count(RECEIVES, byteLength);
            }
            attributes.receiveCq().push(wrId, outcome, WcOpcode.RECV, byteLength, number,
                    invalidatedStag, opcode != null && opcode.solicitedEvent());
        }

        @Override
        public void flushReceives() {
            for (ReceiveWork work = receivePosted.poll(); work != null; work = receivePosted.poll()) {
                receiveCompleted(work, WcStatus.WR_FLUSH_ERR, 0, null, 0);
            }
        }

        @Override
        public WcStatus executeLocal(SendWork work) {
            if (work.opcode == org.rddp.work.WorkOpcode.BIND_MEMORY_WINDOW) {
                SendWorkRequest.BindRequest bind = (SendWorkRequest.BindRequest) work.context;
                boolean bound = bind.window != null && bind.region != null
                        && bind.window.bind(QueuePair.this, bind.region, bind.offset, bind.length, bind.to,
                                bind.rights, bind.key);
                return bound ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
            }
            return invalidate(work.localStag, false) == OK ? WcStatus.SUCCESS
                    : WcStatus.LOC_PROT_ERR;
        }

        @Override
        public void stateChanged(QpState engineState) {
            QpState next = engineState;
            state = next;
            if (next == QpState.ERROR || next == QpState.TERMINATE) {
                established.completeExceptionally(new IllegalStateException("queue pair " + number + " " + next));
            }
        }

        @Override
        @SuppressWarnings("checkstyle:IllegalCatch") // the application's handler: whatever it throws is its bug
        public void event(QpEvent engineEvent, TerminateHeader terminate, String detail) {
            QpEvent event = engineEvent;
            switch (event) {
                case ESTABLISHED -> established.complete(event);
                case TERMINATE_SENT -> counted(TERMINATE_SENT, Counter.TERMINATES_SENT);
                case TERMINATE_RECEIVED -> counted(TERMINATE_RECEIVED, Counter.TERMINATES_RECEIVED);
                case CONNECTION_LOST -> counted(LOST, Counter.CONNECTIONS_LOST);
                default -> { }
            }
            try {
                attributes.eventHandler().onEvent(QueuePair.this, event, terminate, detail);
            } catch (RuntimeException e) { // the engine that reported the event must still finish what it does
                counters.callbackFailed(e);
            }
        }

        private void counted(int flag, Counter counter) {
            traffic.lazySet(flag, 1);
            counters.increment(counter);
        }

        @Override
        public int resolve(int stag, long to, long length, int access, PlacementTarget target) {
            boolean local = (access & (LOCAL_READ | LOCAL_WRITE)) != 0;
            TaggedMemory memory = local ? lastLocal : lastRemote;
            // the region found last for this use, while it is still the one its STag names: a region never becomes
            // valid again, and an STag names no other object while it is valid (a window's key changes at each bind,
            // so windows are looked up each time). Saves the table's pointer chase per segment.
            if (memory == null || memory.stag != stag || !memory.valid) {
                memory = pd.device().lookup(stag);
                if (memory instanceof MemoryRegion) {
                    if (local) {
                        lastLocal = memory;
                    } else {
                        lastRemote = memory;
                    }
                }
            }
            if (memory == null) {
                return INVALID_STAG;
            }
            if (memory.pd != pd) {
                return NOT_ASSOCIATED;
            }
            if (memory instanceof MemoryWindow window) {
                if ((access & (LOCAL_READ | LOCAL_WRITE)) != 0) {
                    return ACCESS_RIGHTS; // a window is for the peer, never an lkey
                }
                if (window.boundTo != QueuePair.this) {
                    return NOT_ASSOCIATED; // type 2 windows serve the queue pair that bound them
                }
                if ((access & BEFORE_ITS_TURN) != 0) {
                    return CANNOT_INVALIDATE; // a Send with Invalidate ahead of the write may revoke it: not early
                }
            }
            access &= ~BEFORE_ITS_TURN;
            if ((memory.access & access) != access) {
                return ACCESS_RIGHTS;
            }
            return memory.locate(to, length, target);
        }

        @Override
        public int invalidate(int stag, boolean remote) {
            TaggedMemory memory = pd.device().lookupAny(stag);
            if (memory == null || !memory.valid) {
                return INVALID_STAG;
            }
            if (memory.pd != pd) {
                return NOT_ASSOCIATED;
            }
            if (!(memory instanceof MemoryWindow window)) {
                return CANNOT_INVALIDATE; // regions registered with register() cannot be invalidated
            }
            if (remote && window.boundTo != QueuePair.this) {
                return NOT_ASSOCIATED;
            }
            return window.invalidate() ? OK : INVALID_STAG;
        }

        private WcOpcode opcode(org.rddp.work.WorkOpcode work) {
            return switch (work) {
                case RDMA_WRITE -> WcOpcode.RDMA_WRITE;
                case RDMA_READ -> WcOpcode.RDMA_READ;
                case BIND_MEMORY_WINDOW -> WcOpcode.BIND_MW;
                case LOCAL_INVALIDATE -> WcOpcode.LOCAL_INV;
                default -> WcOpcode.SEND;
            };
        }
    }
}
