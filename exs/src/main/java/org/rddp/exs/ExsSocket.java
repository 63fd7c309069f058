package org.rddp.exs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.exs.ExsReceiver.RecvOp;
import org.rddp.exs.ExsSender.SendOp;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.work.QpEvent;
import org.rddp.verbs.QueuePair;
import org.rddp.wire.PrivateData;

/**
 * An EXS socket ({@code exs_socket}): bound and listening, or connected to one peer over one queue pair. Every
 * operation returns at once and finishes with an event on the socket's {@link ExsQueue}, carrying the handle its
 * caller gave.
 *
 * <p>The protocol (UNH-EXS, sections 3 and 4 of the paper; the package documentation draws the messages): a
 * {@link #send} advertises its block to the peer in an RDMA Send, through a memory window bound to exactly that
 * block; the peer's {@link #recv} that matches it reads the block with an RDMA Read into its own memory and
 * acknowledges, and only then does the send's event come. A send no larger than
 * {@link ExsOption#SMALL_PACKET_MAX_SIZE} carries its data in the advertisement (immediate data), which the receiver
 * copies out. A sender holds at most as many unacknowledged advertisements as the connection's credits (the smaller
 * of both sides' {@link ExsOption#CREDITS}); more sends wait, in order, for acknowledgements.
 *
 * <p>Receives take the stream of messages in order: a receive takes the first octets not yet taken, up to its
 * length, from one message ({@link ExsFlag#WAITALL}: from as many as fill it); what a shorter receive leaves of a
 * message goes to the next receive. A send's event comes once all of its message was taken. Persistent sends and
 * receives, and offsets into persistent memory, are as {@link ExsFlag#PERSISTENT} says.
 */
public final class ExsSocket {
    private static final AtomicInteger NUMBERS = new AtomicInteger();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

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
    private Object connectContext;
    private Object closeContext;
    /** When a graceful close gives up waiting for the peer ({@link System#nanoTime()}); while CLOSING. */
    private long closeDeadline;

    // listening
    private Listener listener;
    private int backlog;
    private final ArrayDeque<ConnectionRequest> requests = new ArrayDeque<>();
    private final ArrayDeque<Object> accepts = new ArrayDeque<>();

    // connecting and connected
    private ExsConnection connection;

    ExsSocket(Exs exs, ExsQueue queue) {
        this.exs = exs;
        this.queue = queue;
        this.number = NUMBERS.incrementAndGet();
        for (ExsOption option : ExsOption.values()) {
            options.put(option, option.defaultValue());
        }
    }

    /**
     * Sets an option ({@code exs_fcntl}): one agreed with the peer before the socket connects or listens, the
     * others before it closes.
     */
    public void setOption(ExsOption option, int value) {
        if (value < option.min() || value > option.max()) {
            throw new IllegalArgumentException(option + " is " + option.min() + " to " + option.max() + ", not "
                    + value);
        }
        queue.lock.lock();
        try {
            if (option.negotiated()) {
                requireState("set " + option, State.NEW, State.BOUND);
            } else {
                requireState("set " + option, State.NEW, State.BOUND, State.LISTENING, State.CONNECTING,
                        State.CONNECTED);
            }
            options.put(option, value);
        } finally {
            queue.unlock();
        }
    }

    /** An option's value ({@code exs_fcntl}). */
    public int option(ExsOption option) {
        queue.lock.lock();
        try {
            return options.get(option);
        } finally {
            queue.unlock();
        }
    }

    /** Binds to {@code address}, where {@link #listen} will take connections ({@code exs_bind}). */
    public void bind(SocketAddress address) {
        queue.lock.lock();
        try {
            requireState("bind", State.NEW);
            local = address;
            state = State.BOUND;
        } finally {
            queue.unlock();
        }
    }

    /** Binds to the address a URI names ({@code sctp://0.0.0.0:7000}); its scheme must be the transport's. */
    public void bind(URI address) {
        bind(exs.address(address));
    }

    /**
     * Takes connections at the bound address ({@code exs_listen}); up to {@code backlog} wait for an
     * {@link #accept}, more are refused.
     */
    public void listen(int backlog) throws IOException {
        if (backlog < 1) {
            throw new IllegalArgumentException("a backlog of at least 1, not " + backlog);
        }
        queue.lock.lock();
        try {
            requireState("listen", State.BOUND);
            this.backlog = backlog;
            state = State.LISTENING;
        } finally {
            queue.unlock();
        }
        Listener made = null;
        try {
            made = exs.manager().listen(local, request -> queue.underLock(() -> requested(request)));
        } finally {
            queue.lock.lock();
            try {
                if (made == null) { // the transport refused the address: still bound, not listening
                    state = State.BOUND;
                } else if (state != State.LISTENING) {
                    made.close(); // closed meanwhile
                } else {
                    listener = made;
                    local = made.address(); // as bound: the port the system chose for port 0
                }
            } finally {
                queue.unlock();
            }
        }
    }

    /**
     * Takes the next connection ({@code exs_accept}): an {@link ExsEvent.Type#ACCEPT} event with the new socket,
     * whose events go to this socket's queue, once it is connected.
     */
    public void accept(Object context) {
        queue.lock.lock();
        try {
            requireState("accept", State.LISTENING);
            accepts.add(context);
            acceptWaiting();
        } finally {
            queue.unlock();
        }
    }

    /** Connects to the EXS listener at {@code remote}: a {@link ExsEvent.Type#CONNECT} event ({@code exs_connect}). */
    public void connect(SocketAddress remote, Object context) {
        queue.lock.lock();
        try {
            requireState("connect", State.NEW, State.BOUND);
            if (!queue.hasRoom(ExsConnection.completions(options.get(ExsOption.CREDITS)))) {
                throw new IllegalStateException("cannot connect: " + this + "'s queue has no room for another "
                        + "connection of " + options.get(ExsOption.CREDITS) + " credits (" + queue.capacity()
                        + " completions in all); give it another queue or a larger one (Exs.createQueue(driver, "
                        + "completions))");
            }
            state = State.CONNECTING;
            peer = remote;
            connectContext = context;
            ExsHello own = hello();
            connection = new ExsConnection(this, exs, queue, own.slots(), own.immediate(), this::handOver);
            // peer-to-peer (RFC 6581): either side may send first, the accepting one too, which MPA's client-server
            // model forbids until the initiator has sent (a zero-length RDMA Write or Read as the RTR frees it)
            ConnectOptions connect = new ConnectOptions(own.encode(), true, own.slots(), own.slots(), true,
                    Set.of(RtrType.WRITE, RtrType.READ), CONNECT_TIMEOUT);
            exs.manager().connect(connection.qp, remote, connect)
                    .whenComplete((made, failed) -> queue.underLock(() -> connected(made, failed, own)));
        } finally {
            queue.unlock();
        }
    }

    /** Connects to the EXS listener a URI names ({@code sctp://host:port}); its scheme must be the transport's. */
    public void connect(URI remote, Object context) {
        connect(exs.address(remote), context);
    }

    /** As {@link #connect(URI, Object)}, completing the future returned. */
    public CompletableFuture<ExsEvent> connectAsync(URI remote) {
        return connectAsync(exs.address(remote));
    }

    /**
     * Sends {@code length} octets at {@code offset} of {@code memory} ({@code exs_send}): a
     * {@link ExsEvent.Type#SEND} event once the peer took them all; until then the memory is the peer's to read.
     */
    public void send(ExsMemory memory, long offset, int length, Object context) {
        send(memory, offset, length, context, EnumSet.noneOf(ExsFlag.class));
    }

    /** As {@link #send(ExsMemory, long, int, Object)}, with {@link ExsFlag#PERSISTENT} and {@link ExsFlag#NOTIFY}. */
    public void send(ExsMemory memory, long offset, int length, Object context, Set<ExsFlag> flags) {
        sendOffset(memory, offset, length, 0, context, flags);
    }

    /**
     * Sends into the peer's persistent receive at {@code remoteOffset} of its memory ({@code exs_send_offset}); a
     * message that does not fit there fails its send. Without a persistent receive at the peer, the offset is
     * not used.
     */
    public void sendOffset(ExsMemory memory, long offset, int length, long remoteOffset, Object context,
            Set<ExsFlag> flags) {
        checkRange(memory, offset, length);
        if (remoteOffset < 0) {
            throw new IllegalArgumentException(this + ": a remote offset of " + remoteOffset);
        }
        if (flags.contains(ExsFlag.WAITALL) || flags.contains(ExsFlag.NOTIFY) && !flags.contains(ExsFlag.PERSISTENT)) {
            throw new IllegalArgumentException(this + ": a send takes PERSISTENT, with or without NOTIFY, not "
                    + flags);
        }
        queue.lock.lock();
        try {
            requireState("send", State.CONNECTED);
            connection.send(new SendOp(memory, offset, length, remoteOffset, flags, context));
        } finally {
            queue.unlock();
        }
    }

    /**
     * Sends {@code count} octets of {@code file} from {@code position} ({@code exs_sendfile}): the region is mapped
     * and registered for this send alone, read by the peer straight from the mapping, and deregistered when the
     * {@link ExsEvent.Type#SEND} event comes. The file must not shrink meanwhile.
     */
    public void sendFile(FileChannel file, long position, int count, Object context) throws IOException {
        if (position < 0 || count < 0 || position > file.size() - count) {
            throw new IllegalArgumentException(this + ": " + count + " octets at " + position + " are outside the "
                    + file.size() + "-octet file");
        }
        MemorySegment mapped = file.map(FileChannel.MapMode.READ_ONLY, position, Math.max(1, count), Arena.ofAuto());
        ExsMemory memory = exs.register(mapped);
        SendOp op = new SendOp(memory, 0, count, 0, EnumSet.noneOf(ExsFlag.class), context);
        op.done = memory::deregister;
        boolean posted = false;
        queue.lock.lock();
        try {
            requireState("send a file", State.CONNECTED);
            connection.send(op);
            posted = true;
        } finally {
            queue.unlock();
            if (!posted) {
                memory.deregister();
            }
        }
    }

    /**
     * Receives up to {@code length} octets into {@code memory} at {@code offset} ({@code exs_recv}): a
     * {@link ExsEvent.Type#RECV} event with the octets taken, from the next message the peer sent.
     */
    public void recv(ExsMemory memory, long offset, int length, Object context) {
        recv(memory, offset, length, context, EnumSet.noneOf(ExsFlag.class));
    }

    /** As {@link #recv(ExsMemory, long, int, Object)}, with {@link ExsFlag#WAITALL} or {@link ExsFlag#PERSISTENT}. */
    public void recv(ExsMemory memory, long offset, int length, Object context, Set<ExsFlag> flags) {
        recvOffset(memory, offset, length, 0, context, flags);
    }

    /**
     * Receives from the peer's persistent block, starting {@code remoteOffset} octets into it
     * ({@code exs_recv_offset}); for other messages the offset is not used.
     */
    public void recvOffset(ExsMemory memory, long offset, int length, long remoteOffset, Object context,
            Set<ExsFlag> flags) {
        checkRange(memory, offset, length);
        if (remoteOffset < 0) {
            throw new IllegalArgumentException(this + ": a remote offset of " + remoteOffset);
        }
        if (flags.contains(ExsFlag.NOTIFY) || flags.contains(ExsFlag.PERSISTENT) && flags.contains(ExsFlag.WAITALL)) {
            throw new IllegalArgumentException(this + ": a receive takes WAITALL or PERSISTENT, not " + flags);
        }
        queue.lock.lock();
        try {
            requireState("recv", State.CONNECTED);
            connection.recv(new RecvOp(memory, offset, length, remoteOffset, flags, context));
        } finally {
            queue.unlock();
        }
    }

    /**
     * Closes ({@code exs_close}): a listening socket stops taking connections; a connected one goes down
     * gracefully, or is aborted if the peer has not finished its side within {@link ExsOption#CLOSE_TIMEOUT} (at
     * once if that is 0). Operations not finished end with an error event; then a {@link ExsEvent.Type#CLOSE}
     * event, with an error if the close had to abort a connection the peer kept open.
     */
    public void close(Object context) {
        queue.lock.lock();
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
                    int timeout = options.get(ExsOption.CLOSE_TIMEOUT);
                    if (timeout == 0) {
                        connection.abort();
                        ended(null, new ExsException(this + ": aborted by its close before it finished"), false);
                    } else {
                        closeDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
                        queue.closing(this);
                        connection.close();
                    }
                }
                case CONNECTING -> {
                    failure = new ExsException(this + ": closed while connecting");
                    state = State.CLOSED;
                    queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, connectContext, 0, failure));
                    connection.abort();
                    connection.end(failure, false);
                    queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, context, 0, null));
                }
                case NEW, BOUND -> {
                    state = State.CLOSED;
                    queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, context, 0, null));
                }
                default -> throw new IllegalStateException("cannot close: " + this + " is "
                        + state.name().toLowerCase());
            }
        } finally {
            queue.unlock();
        }
    }

    /** As {@link #connect}, completing the future returned instead of queuing the event. */
    public CompletableFuture<ExsEvent> connectAsync(SocketAddress remote) {
        ExsQueue.Completion completion = new ExsQueue.Completion();
        connect(remote, completion);
        return completion;
    }

    /** As {@link #accept}, completing the future returned (its event's socket is the new one). */
    public CompletableFuture<ExsEvent> acceptAsync() {
        ExsQueue.Completion completion = new ExsQueue.Completion();
        accept(completion);
        return completion;
    }

    /** As {@link #send(ExsMemory, long, int, Object)}, completing the future returned. */
    public CompletableFuture<ExsEvent> sendAsync(ExsMemory memory, long offset, int length) {
        ExsQueue.Completion completion = new ExsQueue.Completion();
        send(memory, offset, length, completion);
        return completion;
    }

    /** As {@link #recv(ExsMemory, long, int, Object)}, completing the future returned. */
    public CompletableFuture<ExsEvent> recvAsync(ExsMemory memory, long offset, int length) {
        ExsQueue.Completion completion = new ExsQueue.Completion();
        recv(memory, offset, length, completion);
        return completion;
    }

    /** As {@link #close}, completing the future returned. */
    public CompletableFuture<ExsEvent> closeAsync() {
        ExsQueue.Completion completion = new ExsQueue.Completion();
        close(completion);
        return completion;
    }

    /** Where the socket is in its life. */
    public State state() {
        queue.lock.lock();
        try {
            return state;
        } finally {
            queue.unlock();
        }
    }

    /**
     * The local address it is bound to, or null ({@code exs_getsockname}); once it listens, the address the transport
     * bound, with the port the system chose if it was bound to port 0.
     */
    public SocketAddress localAddress() {
        queue.lock.lock();
        try {
            return local;
        } finally {
            queue.unlock();
        }
    }

    /** The peer's address, or null when not connected ({@code exs_getpeername}). */
    public SocketAddress peerAddress() {
        queue.lock.lock();
        try {
            return peer;
        } finally {
            queue.unlock();
        }
    }

    @Override
    public String toString() {
        return "EXS socket " + number;
    }

    /** The connection's protocol state, for tests; null unless connecting or connected. */
    ExsConnection connection() {
        return connection;
    }

    // ---- connection setup ----

    private ExsHello hello() {
        return new ExsHello(options.get(ExsOption.CREDITS), options.get(ExsOption.SMALL_PACKET_MAX_SIZE));
    }

    /** The connect finished: handed over by the transport's thread ({@link ExsQueue#underLock}). Under the lock. */
    private void connected(Connection made, Throwable failed, ExsHello own) {
        if (state != State.CONNECTING) {
            if (made != null) {
                made.disconnect(); // closed meanwhile
            }
            return;
        }
        ExsHello peerHello = null;
        if (failed != null) {
            Throwable cause = failed instanceof CompletionException && failed.getCause() != null
                    ? failed.getCause() : failed;
            failure = new ExsException(this + ": connecting to " + peer + " failed: " + (cause.getMessage() != null
                    ? cause.getMessage() : cause.toString()), cause);
        } else {
            try {
                peerHello = ExsHello.decode(made.parameters().remotePrivateData());
            } catch (ExsProtocolException e) {
                failure = new ExsException(this + ": the peer at " + peer + " is not an EXS listener: "
                        + e.getMessage(), e);
            }
        }
        if (peerHello == null) {
            state = State.CLOSED;
            queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, connectContext, 0, failure));
            connection.abort();
            connection.end(failure, false);
            return;
        }
        connection.established(Math.min(own.slots(), peerHello.slots()),
                Math.min(own.immediate(), peerHello.immediate()), made.parameters().ord());
        state = State.CONNECTED;
        queue.post(new ExsEvent(ExsEvent.Type.CONNECT, this, connectContext, 0, null));
    }

    /** A connection request at the listener, handed over by the transport's thread. Under the lock. */
    private void requested(ConnectionRequest request) {
        if (state != State.LISTENING || requests.size() >= backlog) {
            request.reject(PrivateData.EMPTY);
            return;
        }
        requests.add(request);
        acceptWaiting();
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
            ExsHello own = hello();
            int agreed = Math.min(own.slots(), peerHello.slots());
            if (!queue.hasRoom(ExsConnection.completions(agreed))) {
                request.reject(PrivateData.EMPTY);
                queue.post(new ExsEvent(ExsEvent.Type.ACCEPT, this, context, 0, new ExsException(this + ": a "
                        + "connection came, but this socket's queue has no room for another; it was refused")));
                continue;
            }
            child.connection = new ExsConnection(child, exs, queue, agreed, own.immediate(), child::handOver);
            request.accept(child.connection.qp, new AcceptOptions(own.encode(), agreed, agreed))
                    .whenComplete((made, failed) -> queue.underLock(
                            () -> child.accepted(made, failed, own, peerHello, context, this)));
        }
    }

    /** The child's accept finished, handed over by the transport's thread. Under the lock. */
    private void accepted(Connection made, Throwable failed, ExsHello own, ExsHello peerHello, Object context,
            ExsSocket listening) {
        if (failed != null) {
            state = State.CLOSED;
            connection.abort();
            connection.end(new ExsException(this + ": the connection failed while it was set up"), false);
            if (listening.state == State.LISTENING) {
                listening.accepts.addFirst(context); // the accept waits for the next connection
                listening.acceptWaiting();
            }
            return;
        }
        connection.established(Math.min(own.slots(), peerHello.slots()),
                Math.min(own.immediate(), peerHello.immediate()), made.parameters().ord());
        state = State.CONNECTED;
        queue.post(new ExsEvent(ExsEvent.Type.ACCEPT, this, context, 0, null));
    }

    // ---- the end ----

    /** A queue pair event, on the transport's thread: handed over to run under the lock ({@link #event}). */
    private void handOver(QueuePair from, QpEvent event, TerminateHeader terminate, String detail) {
        if (event != QpEvent.ESTABLISHED && event != QpEvent.PATH_MIGRATED) { // a path change: the connection goes on
            queue.underLock(() -> event(from, event, terminate, detail));
        }
    }

    /** A queue pair event, handed over by the transport's thread. Under the lock. */
    private void event(QueuePair from, QpEvent event, TerminateHeader terminate, String detail) {
        if (event == QpEvent.ESTABLISHED || event == QpEvent.PATH_MIGRATED) {
            return;
        }
        if (connection == null || from != connection.qp || (state != State.CONNECTED
                && state != State.CLOSING)) {
            return;
        }
        if (event == QpEvent.DISCONNECTED) {
            // what the peer sent before it closed is in the completion queue, handled first: its last
            // acknowledgement completes a send rather than the close failing it
            queue.afterCompletions(() -> disconnected(from));
        } else {
            ExsException why = new ExsException(this + ": the connection failed: " + event
                    + (detail == null ? "" : " (" + detail + ")"));
            ended(why, why);
        }
    }

    /** The connection ended gracefully, what came before the end handled. Under the lock. */
    private void disconnected(QueuePair from) {
        if (connection == null || from != connection.qp || (state != State.CONNECTED && state != State.CLOSING)) {
            return; // ended meanwhile
        }
        ended(null, new ExsException(this + (state == State.CLOSING ? ": closed before it finished"
                : ": the peer closed the connection before it finished")));
    }

    /** The connection failed here (a broken protocol, a failed work request): tears it down. Under the lock. */
    void failed(ExsException why) {
        if (state != State.CONNECTED && state != State.CLOSING) {
            return;
        }
        connection.abort();
        ended(why, why);
    }

    /**
     * Ends every outstanding operation with {@code cancelled}, then the CLOSE event, with {@code why} (null: the
     * connection closed gracefully, at either side's request).
     */
    private void ended(ExsException why, ExsException cancelled) {
        ended(why, cancelled, why == null);
    }

    /** As above; {@code graceful}: a persistent send not read again ends without error. */
    private void ended(ExsException why, ExsException cancelled, boolean graceful) {
        boolean asked = state == State.CLOSING;
        if (asked) {
            queue.closed(this);
        }
        state = State.CLOSED;
        failure = why != null ? why : cancelled;
        connection.end(cancelled, graceful);
        queue.post(new ExsEvent(ExsEvent.Type.CLOSE, this, asked ? closeContext : null, 0, why));
    }

    /** When this closing socket gives up on the peer ({@link System#nanoTime()}). Under the lock. */
    long closeDeadline() {
        return closeDeadline;
    }

    /**
     * The peer has not finished closing by the deadline: aborts the connection. Under the lock, on the thread moving
     * the queue's protocol.
     */
    void closeExpired() {
        if (state == State.CLOSING) {
            connection.abort();
            ExsException why = new ExsException(this + ": the peer did not finish closing within "
                    + options.get(ExsOption.CLOSE_TIMEOUT) + " ms: aborted");
            ended(why, why);
        }
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

    /** As below, for the one state a send or a receive needs: no array per call. */
    private void requireState(String what, State allowed) {
        if (state != allowed) {
            refuse(what);
        }
    }

    private void requireState(String what, State... allowed) {
        for (State candidate : allowed) {
            if (state == candidate) {
                return;
            }
        }
        refuse(what);
    }

    private void refuse(String what) {
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
}
