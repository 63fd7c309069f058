package org.rddp.exs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QpEvent;
import org.rddp.verbs.QpState;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.WorkOpcode;
import org.rddp.wire.PrivateData;

/**
 * An EXS socket ({@code exs_socket}): bound and listening, or connected to one peer over one queue pair. Every
 * operation returns at once and finishes with an event on the socket's {@link ExsQueue}, carrying the handle its
 * caller gave.
 *
 * <p>The protocol (UNH-EXS, sections 3 and 4.1 of the paper): a {@link #send} advertises its block to the peer in
 * an RDMA Send, through a memory window bound to exactly that block; the peer's {@link #recv} that matches it reads
 * the block with an RDMA Read into its own memory and acknowledges, and only then does the send's event come. A
 * send no larger than {@link ExsOption#SMALL_PACKET_MAX_SIZE} carries its data in the advertisement (immediate
 * data), which the receiver copies out. A sender holds at most as many unacknowledged advertisements as the
 * connection's credits (the smaller of both sides' {@link ExsOption#CREDITS}); more sends wait, in order, for
 * acknowledgements.
 *
 * <p>Receives take the stream of messages in order: a receive takes the first octets not yet taken, up to its
 * length, from one message; what a shorter receive leaves of a message goes to the next receive. A send's event
 * comes once all of its message was taken.
 */
public final class ExsSocket {
    private static final AtomicInteger NUMBERS = new AtomicInteger();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Octets of a header slot for an outgoing message. */
    private static final int HEADER = ExsMessage.ADVERTISEMENT_LENGTH;
    /** Kinds of work request, in a request's id above its index. */
    private static final long RECEIVE = 1L << 56;
    private static final long ADVERTISE = 2L << 56;
    private static final long ACKNOWLEDGE = 3L << 56;
    private static final long READ = 4L << 56;
    private static final long UNSIGNALED = 5L << 56;
    private static final long KIND = 0xFFL << 56;

    /** Where a socket is in its life. */
    public enum State {
        /** Made, not yet bound, listening or connecting. */
        NEW,
        /** Bound to a local address. */
        BOUND,
        /** Taking connections. */
        LISTENING,
        /** Connecting to a peer. */
        CONNECTING,
        /** Connected: sends and receives go. */
        CONNECTED,
        /** Closing: the connection is going down. */
        CLOSING,
        /** Closed, by either side or by a failure. */
        CLOSED
    }

    private final Exs exs;
    private final ExsQueue queue;
    private final int number;
    private final EnumMap<ExsOption, Integer> options = new EnumMap<>(ExsOption.class);
    private State state = State.NEW;
    private SocketAddress local;
    private SocketAddress peer;
    private ExsException failure;

    // listening
    private Listener listener;
    private int backlog;
    private final ArrayDeque<ConnectionRequest> requests = new ArrayDeque<>();
    private final ArrayDeque<Object> accepts = new ArrayDeque<>();

    // connected
    private QueuePair qp;
    private int slots;
    private int immediateOut;
    private int bufferSize;
    private MemoryRegion receiveBuffers;
    private MemoryRegion headers;
    private final ArrayDeque<Integer> freeHeaders = new ArrayDeque<>();
    private MemoryWindow[] windows;
    private final ArrayDeque<Integer> freeWindows = new ArrayDeque<>();
    private int sendCredits;
    private int nextSequence;
    private int expectedSequence;
    private int ord;
    private Object closeContext;
    private Object connectContext;
    private final ArrayDeque<SendOp> waitingSends = new ArrayDeque<>();
    private final Map<Integer, SendOp> unacknowledged = new HashMap<>();
    private final ArrayDeque<Advert> adverts = new ArrayDeque<>();
    private int held;
    private long reads;
    private int readsInFlight;
    private final ArrayDeque<RecvOp> recvs = new ArrayDeque<>();
    private final ArrayDeque<RecvOp> reading = new ArrayDeque<>();
    private final ArrayDeque<AckOut> waitingAcks = new ArrayDeque<>();
    private final SendWorkRequest sendRequest = new SendWorkRequest(2);
    private final ReceiveWorkRequest receiveRequest = new ReceiveWorkRequest(1);

    ExsSocket(Exs exs, ExsQueue queue) {
        this.exs = exs;
        this.queue = queue;
        this.number = NUMBERS.incrementAndGet();
        for (ExsOption option : ExsOption.values()) {
            options.put(option, option.defaultValue());
        }
    }

    /** Sets an option ({@code exs_fcntl}); before the socket connects or listens. */
    public void setOption(ExsOption option, int value) {
        int low = 0;
        int high = option == ExsOption.CREDITS ? ExsHello.MAX_SLOTS : ExsHello.MAX_IMMEDIATE;
        if (option == ExsOption.CREDITS) {
            low = 1;
        }
        if (value < low || value > high) {
            throw new IllegalArgumentException(option + " is " + low + " to " + high + ", not " + value);
        }
        lock();
        try {
            requireState("set " + option, State.NEW, State.BOUND);
            options.put(option, value);
        } finally {
            queue.lock.unlock();
        }
    }

    /** An option's value ({@code exs_fcntl}). */
    public int option(ExsOption option) {
        lock();
        try {
            return options.get(option);
        } finally {
            queue.lock.unlock();
        }
    }

    /** Binds to {@code address}, where {@link #listen} will take connections ({@code exs_bind}). */
    public void bind(SocketAddress address) {
        lock();
        try {
            requireState("bind", State.NEW);
            local = address;
            state = State.BOUND;
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Takes connections at the bound address ({@code exs_listen}); up to {@code backlog} wait for an
     * {@link #accept}, more are refused.
     */
    public void listen(int backlog) throws IOException {
        if (backlog < 1) {
            throw new IllegalArgumentException("a backlog of at least 1, not " + backlog);
        }
        lock();
        try {
            requireState("listen", State.BOUND);
            this.backlog = backlog;
            state = State.LISTENING;
        } finally {
            queue.lock.unlock();
        }
        Listener made = null;
        try {
            made = exs.manager().listen(local, this::requested);
        } finally {
            if (made == null) { // the transport refused the address: still bound, not listening
                lock();
                try {
                    state = State.BOUND;
                } finally {
                    queue.lock.unlock();
                }
            }
        }
        lock();
        try {
            listener = made;
            if (state != State.LISTENING) {
                made.close(); // closed meanwhile
            }
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Takes the next connection ({@code exs_accept}): an {@link ExsEvent.Type#ACCEPT} event with the new socket,
     * whose events go to this socket's queue, once it is connected.
     */
    public void accept(Object context) {
        lock();
        try {
            requireState("accept", State.LISTENING);
            accepts.add(context);
            acceptWaiting();
        } finally {
            queue.lock.unlock();
        }
    }

    /** Connects to the EXS listener at {@code remote}: a {@link ExsEvent.Type#CONNECT} event ({@code exs_connect}). */
    public void connect(SocketAddress remote, Object context) {
        lock();
        try {
            requireState("connect", State.NEW, State.BOUND);
            state = State.CONNECTING;
            peer = remote;
            connectContext = context;
            int own = options.get(ExsOption.CREDITS);
            prepare(own, options.get(ExsOption.SMALL_PACKET_MAX_SIZE));
            ExsHello hello = new ExsHello(own, options.get(ExsOption.SMALL_PACKET_MAX_SIZE));
            ConnectOptions connect = new ConnectOptions(hello.encode(), true, own, own, false, Set.of(),
                    CONNECT_TIMEOUT);
            CompletableFuture<Connection> connecting = exs.manager().connect(qp, remote, connect);
            connecting.whenComplete((connection, failed) -> connected(connection, failed, context));
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Sends {@code length} octets at {@code offset} of {@code memory} ({@code exs_send}): a
     * {@link ExsEvent.Type#SEND} event once the peer took them all; until then the memory is the peer's to read.
     */
    public void send(ExsMemory memory, long offset, int length, Object context) {
        checkRange(memory, offset, length);
        lock();
        try {
            requireState("send", State.CONNECTED);
            waitingSends.add(new SendOp(memory, offset, length, context));
            pumpSends();
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Receives up to {@code length} octets into {@code memory} at {@code offset} ({@code exs_recv}): a
     * {@link ExsEvent.Type#RECV} event with the octets taken, from the next message the peer sent.
     */
    public void recv(ExsMemory memory, long offset, int length, Object context) {
        checkRange(memory, offset, length);
        lock();
        try {
            requireState("recv", State.CONNECTED);
            recvs.add(new RecvOp(memory, offset, length, context));
            match();
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Closes ({@code exs_close}): a listening socket stops taking connections; a connected one goes down
     * gracefully. Operations not finished end with an error event; then a {@link ExsEvent.Type#CLOSE} event.
     */
    public void close(Object context) {
        lock();
        try {
            switch (state) {
                case LISTENING -> {
                    state = State.CLOSED;
                    closeListener();
                    queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, context, 0, null));
                }
                case CONNECTED -> {
                    state = State.CLOSING;
                    closeContext = context;
                    qp.disconnect();
                }
                case CONNECTING -> {
                    failure = new ExsException(this + ": closed while connecting");
                    queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, connectContext, 0, failure));
                    queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, context, 0, null));
                    abortQueuePair();
                    release();
                }
                case NEW, BOUND -> {
                    state = State.CLOSED;
                    queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, context, 0, null));
                }
                default -> throw new IllegalStateException(this + " is already " + state.name().toLowerCase());
            }
        } finally {
            queue.lock.unlock();
        }
    }

    /** Where the socket is in its life. */
    public State state() {
        lock();
        try {
            return state;
        } finally {
            queue.lock.unlock();
        }
    }

    /** The local address it is bound to, or null ({@code exs_getsockname}). */
    public SocketAddress localAddress() {
        lock();
        try {
            return local;
        } finally {
            queue.lock.unlock();
        }
    }

    /** The peer's address, or null when not connected ({@code exs_getpeername}). */
    public SocketAddress peerAddress() {
        lock();
        try {
            return peer;
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "EXS socket " + number;
    }

    /** RDMA Reads this socket started (for tests). */
    long reads() {
        lock();
        try {
            return reads;
        } finally {
            queue.lock.unlock();
        }
    }

    /** Advertisements sent and not acknowledged (for tests). */
    int unacknowledged() {
        lock();
        try {
            return unacknowledged.size();
        } finally {
            queue.lock.unlock();
        }
    }

    /** Sends waiting for a credit (for tests). */
    int waiting() {
        lock();
        try {
            return waitingSends.size();
        } finally {
            queue.lock.unlock();
        }
    }

    /** The peer's advertisements held (for tests). */
    int held() {
        lock();
        try {
            return held;
        } finally {
            queue.lock.unlock();
        }
    }

    // ---- connection setup ----

    /** Makes the queue pair and posts the receive buffers, before the peer can send. Under the lock. */
    private void prepare(int receiveSlots, int immediateIn) {
        bufferSize = ExsMessage.ADVERTISEMENT_LENGTH + immediateIn;
        int buffers = 2 * receiveSlots; // the peer's advertisements and the acknowledgements of ours
        int sendDepth = 4 * receiveSlots + 4;
        qp = exs.pd().createQueuePair(new QpAttributes(queue.cq, queue.cq, null, sendDepth + receiveSlots, buffers,
                2, false, this::event));
        queue.attach(qp.number(), this);
        receiveBuffers = exs.pd().register(Arena.ofAuto().allocate((long) buffers * bufferSize, 8),
                EnumSet.of(Access.LOCAL_WRITE));
        for (int i = 0; i < buffers; i++) {
            repost(i);
        }
        int headerSlots = 2 * receiveSlots + 2;
        headers = exs.pd().register(Arena.ofAuto().allocate((long) headerSlots * HEADER, 8),
                EnumSet.noneOf(Access.class));
        for (int i = 0; i < headerSlots; i++) {
            freeHeaders.push(i);
        }
    }

    /** The connection is up with {@code peerHello}: sizes the send side. Under the lock. */
    private void established(ExsHello own, ExsHello peerHello, int negotiatedOrd) {
        slots = Math.min(own.slots(), peerHello.slots());
        immediateOut = Math.min(options.get(ExsOption.SMALL_PACKET_MAX_SIZE), peerHello.immediate());
        sendCredits = slots;
        ord = Math.max(1, negotiatedOrd);
        windows = new MemoryWindow[slots];
        for (int i = 0; i < slots; i++) {
            windows[i] = exs.pd().allocateWindow();
            freeWindows.push(i);
        }
        state = State.CONNECTED;
    }

    private void connected(Connection connection, Throwable failed, Object context) {
        lock();
        try {
            if (state != State.CONNECTING) {
                if (connection != null) {
                    connection.disconnect();
                }
                return;
            }
            if (failed != null) {
                closeContext = context;
                failure = new ExsException(this + ": connecting to " + peer + " failed: " + failed.getMessage(),
                        failed);
                queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, context, 0, failure));
                release();
                return;
            }
            ExsHello peerHello;
            try {
                peerHello = ExsHello.decode(connection.parameters().remotePrivateData());
            } catch (ExsProtocolException e) {
                failure = new ExsException(this + ": the peer at " + peer + " is not an EXS listener: "
                        + e.getMessage(), e);
                queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, context, 0, failure));
                abortQueuePair();
                release();
                return;
            }
            int own = options.get(ExsOption.CREDITS);
            established(new ExsHello(own, options.get(ExsOption.SMALL_PACKET_MAX_SIZE)), peerHello,
                    connection.parameters().ord());
            queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, context, 0, null));
        } finally {
            queue.lock.unlock();
        }
    }

    /** A connection request at the listener, on the transport's thread. */
    private void requested(ConnectionRequest request) {
        lock();
        try {
            if (state != State.LISTENING || requests.size() >= backlog) {
                request.reject(PrivateData.EMPTY);
                return;
            }
            requests.add(request);
            acceptWaiting();
        } finally {
            queue.lock.unlock();
        }
    }

    /** Pairs waiting requests with waiting accepts. Under the lock. */
    private void acceptWaiting() {
        while (!requests.isEmpty() && !accepts.isEmpty()) {
            ConnectionRequest request = requests.poll();
            ExsHello peerHello;
            try {
                peerHello = ExsHello.decode(request.privateData());
            } catch (ExsProtocolException e) {
                request.reject(PrivateData.EMPTY); // not an EXS initiator: the accept waits for the next one
                continue;
            }
            Object context = accepts.poll();
            ExsSocket child = new ExsSocket(exs, queue);
            child.options.putAll(options);
            child.local = local;
            child.peer = request.remoteAddress();
            child.state = State.CONNECTING;
            ExsHello own = new ExsHello(options.get(ExsOption.CREDITS), options.get(ExsOption.SMALL_PACKET_MAX_SIZE));
            int agreed = Math.min(own.slots(), peerHello.slots());
            child.prepare(agreed, own.immediate());
            request.accept(child.qp, new AcceptOptions(own.encode(), agreed, agreed))
                    .whenComplete((connection, failed) -> child.accepted(connection, failed, own, peerHello,
                            context, this));
        }
    }

    private void accepted(Connection connection, Throwable failed, ExsHello own, ExsHello peerHello, Object context,
            ExsSocket listening) {
        lock();
        try {
            if (failed != null) {
                state = State.CLOSED;
                release();
                // the accept waits for the next connection
                listening.accepts.addFirst(context);
                listening.acceptWaiting();
                return;
            }
            established(own, peerHello, connection.parameters().ord());
            queue.post(new ExsEvent(ExsEvent.Type.ACCEPT, this, context, 0, null));
        } finally {
            queue.lock.unlock();
        }
    }

    /** A queue pair event, on the transport's thread. */
    private void event(QueuePair from, QpEvent event, TerminateHeader terminate, String detail) {
        if (event == QpEvent.ESTABLISHED) {
            return;
        }
        lock();
        try {
            if (state == State.CLOSED || from != qp) {
                return;
            }
            if (event == QpEvent.DISCONNECTED && state == State.CLOSING) {
                end(null, new ExsException(this + ": closed before it finished"));
            } else if (event == QpEvent.DISCONNECTED) {
                end(null, new ExsException(this + ": the peer closed the connection before it finished"));
            } else {
                ExsException why = new ExsException(this + ": the connection failed: " + event
                        + (detail == null ? "" : " (" + detail + ")"));
                end(why, why);
            }
        } finally {
            queue.lock.unlock();
        }
    }

    // ---- the protocol ----

    /** A completion of this socket's queue pair. Under the lock, on the dequeuing thread. */
    void completed(WorkCompletion completion) {
        long kind = completion.wrId() & KIND;
        int index = (int) completion.wrId();
        if (completion.status() != WcStatus.SUCCESS) {
            if (kind == ADVERTISE || kind == ACKNOWLEDGE) {
                freeHeaders.push(index);
            }
            if (state != State.CLOSED && completion.status() != WcStatus.WR_FLUSH_ERR) {
                fail(new ExsException(this + ": " + describe(kind) + " failed: " + completion.status()));
            }
            return;
        }
        if (kind == RECEIVE) {
            received(index, (int) completion.byteLength());
        } else if (kind == ADVERTISE || kind == ACKNOWLEDGE) {
            freeHeaders.push(index);
            pumpAcks();
            pumpSends();
        } else if (kind == READ) {
            RecvOp done = reading.poll();
            if (done != null) {
                readsInFlight--;
                taken(done);
            }
            while (!reading.isEmpty() && reading.peek().copied) { // immediate data behind the read, in order
                taken(reading.poll());
            }
            match();
        }
    }

    private void received(int buffer, int length) {
        if (state != State.CONNECTED && state != State.CLOSING) {
            return;
        }
        long at = (long) buffer * bufferSize;
        ExsMessage message;
        try {
            message = ExsMessage.decode(receiveBuffers.memory(), at, length);
            switch (message) {
                case Advertisement advert -> {
                    if (advert.sequence() != expectedSequence) {
                        throw new ExsProtocolException("advertisement " + advert.sequence() + " where "
                                + expectedSequence + " was next");
                    }
                    if (held == slots) {
                        throw new ExsProtocolException("an advertisement beyond the " + slots
                                + " credits of the connection");
                    }
                    expectedSequence++;
                    held++;
                    adverts.add(new Advert(advert, buffer));
                    match();
                }
                case Acknowledgement ack -> {
                    repost(buffer);
                    acknowledged(ack);
                }
            }
        } catch (ExsProtocolException e) {
            fail(new ExsException(this + ": the peer broke the EXS protocol: " + e.getMessage(), e));
        }
    }

    private void acknowledged(Acknowledgement ack) throws ExsProtocolException {
        SendOp op = unacknowledged.remove(ack.sequence());
        if (op == null) {
            throw new ExsProtocolException("an acknowledgement of advertisement " + ack.sequence()
                    + ", which is not outstanding");
        }
        if (ack.status() == Acknowledgement.OK && ack.length() != op.length) {
            throw new ExsProtocolException("an acknowledgement of " + ack.length() + " octets for advertisement "
                    + ack.sequence() + " of " + op.length);
        }
        sendCredits++;
        if (op.window >= 0) {
            MemoryWindow window = windows[op.window];
            if (window.bound()) { // the peer did not invalidate it with its acknowledgement
                post(sendRequest.wrId(UNSIGNALED).opcode(WorkOpcode.LOCAL_INVALIDATE).signaled(false).noSge()
                        .localInvalidate(op.stag));
            }
            freeWindows.push(op.window);
        }
        ExsException error = ack.status() == Acknowledgement.OK ? null
                : new ExsException(this + ": the peer could not read the data (status " + ack.status() + ")");
        queue.post(new ExsEvent(ExsEvent.Type.SEND, this, op.context, ack.length(), error));
        pumpSends();
    }

    /** Advertises waiting sends while credits, header slots and windows last. */
    private void pumpSends() {
        while (state == State.CONNECTED && !waitingSends.isEmpty() && sendCredits > 0 && !freeHeaders.isEmpty()) {
            SendOp op = waitingSends.peek();
            boolean immediate = op.length <= immediateOut;
            if (!immediate && freeWindows.isEmpty()) {
                return;
            }
            waitingSends.poll();
            int header = freeHeaders.pop();
            int sequence = nextSequence++;
            long at = (long) header * HEADER;
            if (immediate) {
                new Advertisement(ExsMessage.IMMEDIATE, sequence, op.length, 0, 0).encode(headers.memory(), at);
                sendRequest.wrId(ADVERTISE | header).opcode(WorkOpcode.SEND).signaled(true).noSge()
                        .sge(0, headers, at, ExsMessage.ADVERTISEMENT_LENGTH);
                if (op.length > 0) {
                    sendRequest.sge(1, op.memory.region, op.offset, op.length);
                }
            } else {
                op.window = freeWindows.pop();
                MemoryWindow window = windows[op.window];
                int key = ThreadLocalRandom.current().nextInt(1, 256);
                if (key == (window.stag() & 0xFF)) {
                    key = (key % 255) + 1;
                }
                op.stag = window.stagWithKey(key);
                post(sendRequest.wrId(UNSIGNALED).signaled(false).noSge().bind(window, op.memory.region, op.offset,
                        op.length, 0, EnumSet.of(Access.REMOTE_READ), key));
                new Advertisement(0, sequence, op.length, op.stag, 0).encode(headers.memory(), at);
                sendRequest.wrId(ADVERTISE | header).opcode(WorkOpcode.SEND).signaled(true).noSge()
                        .sge(0, headers, at, ExsMessage.ADVERTISEMENT_LENGTH);
            }
            sendCredits--;
            unacknowledged.put(sequence, op);
            post(sendRequest);
        }
    }

    /** Pairs received advertisements with receives: copies immediate data, starts reads. */
    private void match() {
        while (state == State.CONNECTED && !recvs.isEmpty() && !adverts.isEmpty()) {
            Advert advert = adverts.peek();
            RecvOp op = recvs.peek();
            int length = (int) Math.min(op.length, advert.message.length() - advert.claimed);
            if (advert.message.immediate() || length == 0) {
                recvs.poll();
                MemorySegment.copy(receiveBuffers.memory(), (long) advert.buffer * bufferSize
                        + ExsMessage.ADVERTISEMENT_LENGTH + advert.claimed, op.memory.segment(), op.offset, length);
                advert.claimed += length;
                op.advert = advert;
                op.taken = length;
                if (advert.claimed == advert.message.length()) {
                    adverts.poll();
                }
                if (reading.isEmpty()) {
                    taken(op);
                } else {
                    op.copied = true; // its event comes after those of the reads before it
                    reading.add(op);
                }
                continue;
            }
            if (readsInFlight >= ord) {
                return;
            }
            recvs.poll();
            sendRequest.wrId(READ).opcode(WorkOpcode.RDMA_READ).signaled(true).noSge()
                    .sge(0, op.memory.region, op.offset, length)
                    .remote(advert.message.stag(), advert.message.taggedOffset() + advert.claimed);
            advert.claimed += length;
            op.advert = advert;
            op.taken = length;
            if (advert.claimed == advert.message.length()) {
                adverts.poll();
            }
            reading.add(op);
            readsInFlight++;
            reads++;
            post(sendRequest);
        }
    }

    /** A receive has its octets: its event, and the acknowledgement once its message is all taken. */
    private void taken(RecvOp op) {
        Advert advert = op.advert;
        advert.consumed += op.taken;
        queue.post(new ExsEvent(ExsEvent.Type.RECV, this, op.context, op.taken, null));
        if (advert.consumed == advert.message.length()) {
            repost(advert.buffer);
            held--;
            waitingAcks.add(new AckOut(new Acknowledgement(advert.message.sequence(), advert.message.length(),
                    Acknowledgement.OK), advert.message.immediate() ? 0 : advert.message.stag()));
            pumpAcks();
        }
    }

    /**
     * Sends waiting acknowledgements while header slots last; one for a block that was read is a Send with
     * Invalidate of the block's window (RFC 5040 §5.2), so the window is gone when the sender learns of it.
     */
    private void pumpAcks() {
        while (state == State.CONNECTED && !waitingAcks.isEmpty() && !freeHeaders.isEmpty()) {
            AckOut out = waitingAcks.poll();
            int header = freeHeaders.pop();
            long at = (long) header * HEADER;
            out.ack.encode(headers.memory(), at);
            sendRequest.wrId(ACKNOWLEDGE | header).signaled(true).noSge()
                    .sge(0, headers, at, ExsMessage.ACKNOWLEDGEMENT_LENGTH);
            if (out.stag != 0) {
                sendRequest.opcode(WorkOpcode.SEND_WITH_INVALIDATE).invalidate(out.stag);
            } else {
                sendRequest.opcode(WorkOpcode.SEND);
            }
            post(sendRequest);
        }
    }

    private void repost(int buffer) {
        int status = qp.postReceive(receiveRequest.wrId(RECEIVE | buffer).sge(0, receiveBuffers,
                (long) buffer * bufferSize, bufferSize));
        if (status != PostStatus.OK && state != State.CLOSED && state != State.CLOSING) {
            fail(new ExsException(this + ": a receive buffer could not be posted: " + PostStatus.name(status)));
        }
    }

    private void post(SendWorkRequest request) {
        int status = qp.postSend(request);
        if (status != PostStatus.OK && state != State.CLOSED) {
            fail(new ExsException(this + ": a work request could not be posted: " + PostStatus.name(status)));
        }
    }

    // ---- the end ----

    /** The connection failed here: tears it down and ends every operation. Under the lock. */
    private void fail(ExsException why) {
        if (state == State.CLOSED) {
            return;
        }
        abortQueuePair();
        end(why, why);
    }

    /**
     * Ends every outstanding operation with {@code cancelled}, then the CLOSE event, with {@code why} (null: the
     * connection closed gracefully, at either side's request).
     */
    private void end(ExsException why, ExsException cancelled) {
        if (state == State.CLOSED) {
            return;
        }
        boolean asked = state == State.CLOSING;
        state = State.CLOSED;
        failure = why != null ? why : cancelled;
        for (SendOp op : unacknowledged.values()) {
            queue.post(new ExsEvent(ExsEvent.Type.SEND, this, op.context, 0, cancelled));
        }
        unacknowledged.clear();
        for (SendOp op : waitingSends) {
            queue.post(new ExsEvent(ExsEvent.Type.SEND, this, op.context, 0, cancelled));
        }
        waitingSends.clear();
        for (RecvOp op : reading) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, this, op.context, 0, cancelled));
        }
        reading.clear();
        for (RecvOp op : recvs) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, this, op.context, 0, cancelled));
        }
        recvs.clear();
        adverts.clear();
        waitingAcks.clear();
        queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, asked ? closeContext : null, 0, why));
        release();
    }

    /** Moves the queue pair to ERROR, which ends its stream; a no-op once it is there. */
    private void abortQueuePair() {
        if (qp == null) {
            return;
        }
        try {
            if (qp.state() != QpState.ERROR) {
                qp.modify(QpState.ERROR);
            }
        } catch (IllegalStateException e) {
            // it went to ERROR on its own meanwhile
        }
    }

    /** Gives back the windows and stops taking the queue pair's completions (the flushed ones). */
    private void release() {
        state = State.CLOSED;
        if (qp != null) {
            queue.detach(qp.number());
        }
        if (windows != null) {
            for (MemoryWindow window : windows) {
                window.deallocate();
            }
            windows = null;
        }
        freeWindows.clear();
    }

    private void closeListener() {
        Listener made = listener;
        listener = null;
        while (!requests.isEmpty()) {
            requests.poll().reject(PrivateData.EMPTY);
        }
        while (!accepts.isEmpty()) {
            queue.post(new ExsEvent(ExsEvent.Type.ACCEPT, this, accepts.poll(), 0,
                    new ExsException(this + ": closed before a connection came")));
        }
        if (made != null) {
            made.close();
        }
    }

    // ---- helpers ----

    private void lock() {
        queue.lock.lock();
    }

    private void requireState(String what, State... allowed) {
        for (State candidate : allowed) {
            if (state == candidate) {
                return;
            }
        }
        String why = failure != null ? " (" + failure.getMessage() + ")" : "";
        throw new IllegalStateException("cannot " + what + ": " + this + " is " + state.name().toLowerCase() + why);
    }

    private void checkRange(ExsMemory memory, long offset, int length) {
        if (memory == null || !memory.registered()) {
            throw new IllegalArgumentException(this + ": the memory is not registered");
        }
        if (memory.region.pd() != exs.pd()) {
            throw new IllegalArgumentException(this + ": the memory was registered with another EXS instance");
        }
        if (offset < 0 || length < 0 || offset > memory.length() - length) {
            throw new IllegalArgumentException(this + ": " + length + " octets at " + offset + " are outside the "
                    + memory.length() + " octets registered");
        }
    }

    private static String describe(long kind) {
        if (kind == RECEIVE) {
            return "a receive";
        } else if (kind == ADVERTISE) {
            return "an advertisement";
        } else if (kind == ACKNOWLEDGE) {
            return "an acknowledgement";
        } else if (kind == READ) {
            return "a read of the peer's data";
        }
        return "a window bind or invalidation";
    }

    /** An acknowledgement to send, and the window it invalidates (0: none, the data was immediate). */
    private record AckOut(Acknowledgement ack, int stag) {
    }

    /** A send not yet acknowledged. */
    private static final class SendOp {
        final ExsMemory memory;
        final long offset;
        final int length;
        final Object context;
        int window = -1;
        int stag;

        SendOp(ExsMemory memory, long offset, int length, Object context) {
            this.memory = memory;
            this.offset = offset;
            this.length = length;
            this.context = context;
        }
    }

    /** A receive not yet finished. */
    private static final class RecvOp {
        final ExsMemory memory;
        final long offset;
        final int length;
        final Object context;
        Advert advert;
        int taken;
        boolean copied;

        RecvOp(ExsMemory memory, long offset, int length, Object context) {
            this.memory = memory;
            this.offset = offset;
            this.length = length;
            this.context = context;
        }
    }

    /** A received advertisement, held in its receive buffer until all of it is taken. */
    private static final class Advert {
        final Advertisement message;
        final int buffer;
        long claimed;
        long consumed;

        Advert(Advertisement message, int buffer) {
            this.message = message;
            this.buffer = buffer;
        }
    }
}
