package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.lang.foreign.MemorySegment;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.MpaError;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RtrType;
import org.rddp.loop.Deadline;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QpStatistics;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.spi.ManagedQueuePairs;
import org.rddp.wire.PrivateData;

/**
 * Connection management over SCTP (RFC 5043 §6, RFC 6581 §7, §9): queue pairs to the same peer share one
 * association, each on its own pair of like-numbered streams, set up with DDP Stream Session Initiate and
 * Accept (or their enhanced forms carrying IRD/ORD), refused with Reject at the ULP's direction or with
 * Terminate when too many Initiates await the ULP.
 *
 * <p>An association, and every session on it, lives on one of the manager's loops ({@link Progress}): the loop whose
 * socket it came through (the connecting loop's, or the listening loop's for an accepted one). Queue pairs to the
 * same peer on the same loop share an association.
 */
public final class SctpConnectionManager implements ConnectionManager {
    private final SctpStack stack;
    private final SctpLimits limits;
    private volatile String lastRefusal;
    private final ChunkTap tap;
    /** Its counters, its queue pairs and its MBean. */
    private final ManagedQueuePairs managed;
    private final InetAddress localAddress;
    /** Further local addresses every association binds (multi-homing); empty by default (RFC 5043 §7.2). */
    private final java.util.List<InetAddress> moreLocal;
    /** How its sockets detect failed paths and dead peers. */
    private final ProtocolParameters parameters;
    private final Loop[] loops;
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final Map<Route, CompletableFuture<DdpAssociation>> outbound = new ConcurrentHashMap<>();
    private final Set<DdpAssociation> associations = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Set<SctpStack.Listening> listenings = ConcurrentHashMap.newKeySet();
    /** Octets the sessions of every association of this manager hold ahead of their turn (RFC 5043 §10). */
    private final java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();
    /** Their share of {@link SctpLimits#memory}: what the associations' own buffers leave. */
    private final AssociationBudget.Shared heldShare = new AssociationBudget.Shared() {
        @Override
        public String take(long octets) {
            long room = limits.memory() - (long) associations.size() * limits.octetsPerAssociation(stack);
            if (held.addAndGet(octets) > room) {
                held.addAndGet(-octets);
                return "the connection manager's associations and the chunks they hold would take more than its "
                        + limits.memory() + " octets (SctpLimits.withMemory)";
            }
            return null;
        }

        @Override
        public void give(long octets) {
            held.addAndGet(-octets);
        }
    };

    /** An outbound association's identity: the loop it lives on and the peer. */
    private record Route(Loop loop, InetSocketAddress remote) {
    }

    /** A manager on {@code stack}, binding every association to {@code localAddress} only, on one loop of its own. */
    public SctpConnectionManager(SctpStack stack, InetAddress localAddress) {
        this(stack, localAddress, ChunkTap.NONE);
    }

    /** As above, with a tap that sees every chunk sent and received (tests, capture, diagnostics). */
    public SctpConnectionManager(SctpStack stack, InetAddress localAddress, ChunkTap tap) {
        this(stack, localAddress, tap, Progress.automatic());
    }

    /** As above, with its associations on loops driven as {@code progress} says (a manual one by this thread). */
    public SctpConnectionManager(SctpStack stack, InetAddress localAddress, ChunkTap tap, Progress progress) {
        this(stack, localAddress, tap, progress, SctpLimits.defaults());
    }

    /** As above, taking on at most what {@code limits} allow. */
    public SctpConnectionManager(SctpStack stack, InetAddress localAddress, ChunkTap tap, Progress progress,
            SctpLimits limits) {
        this(stack, localAddress, tap, progress, limits, ProtocolParameters.defaults());
    }

    /**
     * As above, its sockets detecting failed paths and dead peers with {@code parameters} (RTO bounds, retransmission
     * limits, the potentially-failed threshold, heartbeats) rather than {@link ProtocolParameters#defaults()}.
     */
    public SctpConnectionManager(SctpStack stack, InetAddress localAddress, ChunkTap tap, Progress progress,
            SctpLimits limits, ProtocolParameters parameters) {
        this(stack, localAddress, java.util.List.of(), tap, progress, limits, parameters);
    }

    /**
     * A multi-homed manager (RFC 9260 §6.4): every association it makes or accepts binds all of
     * {@code localAddresses} (the first is the one connects start from), which the peer learns from the INIT or
     * INIT ACK, so that the association outlives the failure of a path. Kernel SCTP only: usrsctp here carries one
     * path per association, and refuses more. RFC 5043 §7.2: multi-homing is for fault tolerance, not load balancing.
     */
    public SctpConnectionManager(SctpStack stack, java.util.List<InetAddress> localAddresses, ChunkTap tap,
            Progress progress, SctpLimits limits, ProtocolParameters parameters) {
        this(stack, localAddresses.getFirst(), localAddresses.subList(1, localAddresses.size()), tap, progress,
                limits, parameters);
    }

    private SctpConnectionManager(SctpStack stack, InetAddress localAddress, java.util.List<InetAddress> moreLocal,
            ChunkTap tap, Progress progress, SctpLimits limits, ProtocolParameters parameters) {
        this.moreLocal = java.util.List.copyOf(moreLocal);
        this.parameters = java.util.Objects.requireNonNull(parameters, "parameters");
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
        this.stack = java.util.Objects.requireNonNull(stack, "stack");
        this.localAddress = localAddress;
        this.managed = new ManagedQueuePairs("sctp", localAddress);
        // null would fail on the first data chunk, on the loop, where nobody hears of it: the connection would hang
        java.util.Objects.requireNonNull(tap, "tap (ChunkTap.NONE for none)");
        this.tap = tap == ChunkTap.NONE ? tap : guarded(tap, managed.counters());
        this.loops = progress.open("sctp-loop", stack::newPoller);
    }

    /** {@code tap}, whose exceptions are the application's: counted and reported, never the association's end. */
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever the application's tap throws is its bug
    private static ChunkTap guarded(ChunkTap tap, Counters counters) {
        return (association, outbound, streamId, ppid, unordered, chunk, length) -> {
            try {
                tap.chunk(association, outbound, streamId, ppid, unordered, chunk, length);
            } catch (RuntimeException e) {
                counters.callbackFailed(e);
            }
        };
    }

    @Override
    public java.util.List<Loop> loops() {
        return java.util.List.of(loops);
    }

    private Loop nextLoop() {
        return loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    }

    /** Associations up right now (queue pairs to one peer share one). */
    public int associationCount() {
        return associations.size();
    }

    /** The stack underneath. */
    public SctpStack stack() {
        return stack;
    }

    @Override
    public Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException {
        InetSocketAddress local = (InetSocketAddress) address;
        SctpStack.Listening listening = stack.listen(nextLoop(), local, moreLocal, limits.streams(),
                DdpSctp.ADAPTATION_INDICATION, parameters);
        listenings.add(listening);
        listening.start(socket -> {
            String full = overLimit();
            if (full != null) {
                refused("an association from " + socket.remoteAddress() + " was aborted: " + full);
                socket.abort();
                return;
            }
            DdpAssociation association = newAssociation(socket, listening.loop());
            association.start((session, initiate) -> onInitiate(association, session, initiate, handler));
            association.requireValidationWithin(limits.setupTimeout());
        });
        return new Listener() {
            @Override
            public SocketAddress address() {
                return listening.address();
            }

            @Override
            public void close() {
                listenings.remove(listening);
                listening.close();
            }
        };
    }

    private DdpAssociation newAssociation(SctpSocket socket, Loop loop) {
        DdpAssociation association = new DdpAssociation(socket, loop, gone -> {
            associations.remove(gone);
            outbound.values().removeIf(future -> future.isDone() && !future.isCompletedExceptionally()
                    && future.join() == gone);
        }, tap, new AssociationBudget(limits.heldPerAssociation(), limits.memory() == Long.MAX_VALUE
                ? AssociationBudget.Shared.NONE : heldShare), managed.counters());
        associations.add(association);
        return association;
    }

    /**
     * Why one more association would exceed the limits, or null. Associations count from the moment they are made
     * (accepted, or connected and not yet validated).
     */
    private String overLimit() {
        long allowed = limits.associationsOn(stack, held.get());
        int now = associations.size();
        if (now < allowed) {
            return null;
        }
        return now + " associations are up, and the limits allow " + allowed + " (" + limits.associations()
                + " associations, " + limits.memory() + " octets at " + limits.octetsPerAssociation(stack)
                + " each: SctpLimits)";
    }

    /** A refusal before the ULP heard of it: counted, kept as the last one, logged at DEBUG. */
    private void refused(String why) {
        managed.counters().increment(Counter.CONNECTIONS_REFUSED);
        lastRefusal = why;
        DdpAssociation.LOG.log(System.Logger.Level.DEBUG, why);
    }

    /** How its sockets detect failed paths and dead peers. */
    public ProtocolParameters parameters() {
        return parameters;
    }

    /** Why the last association or Initiate was refused before it reached the ULP, or null. */
    public String lastRefusal() {
        return lastRefusal;
    }

    @SuppressWarnings("checkstyle:IllegalCatch") // the application's handler: whatever it throws is its bug
    private void onInitiate(DdpAssociation association, DdpStreamSession session, SessionControl initiate,
            Consumer<ConnectionRequest> handler) {
        session.ulpAnswered = false; // this one waits for the ULP
        if (association.pendingUlp() > limits.pendingPerAssociation()) {
            // the association stopped reading at the limit and read on after limits.ulpWait(): refused below the ULP
            session.ulpAnswered = true;
            refused("an Initiate on " + session + " got a Session Terminate: " + limits.pendingPerAssociation()
                    + " Initiates waited for the ULP on its association for over " + limits.ulpWait().toMillis()
                    + " ms (SctpLimits)");
            session.answer(new SessionControl.Terminate()); // too many wait for the ULP: non-ULP reject (§5.2.3)
            return;
        }
        Request request = new Request(association, session, initiate);
        try {
            handler.accept(request);
        } catch (RuntimeException e) {
            managed.counters().callbackFailed(e);
            if (request.refuseUnanswered()) {
                refused("an Initiate on " + session + " got a Session Terminate: the listener's handler threw " + e);
            }
        }
        association.ulpChanged(limits.pendingPerAssociation(), limits.ulpWait()); // at the limit: stops reading
    }

    /**
     * Connects on one of the manager's loops: the association's handshake, the check of the peer's Adaptation Layer
     * Indication and the session's Initiate all run there, none of it blocking, within {@code options.timeout()}, a
     * deadline the loop keeps.
     */
    @Override
    public CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        Route route = new Route(nextLoop(), (InetSocketAddress) remote);
        Loop loop = route.loop();
        loop.execute(() -> {
            Deadline late = loop.schedule(System.nanoTime() + options.timeout().toNanos(), () -> result
                    .completeExceptionally(new TimeoutException("no connection to " + remote + " within "
                            + options.timeout().toMillis() + " ms")));
            result.whenComplete((connection, failure) -> loop.runNowOrLater(late::cancel));
            connectVia(route, qp, options, result);
        });
        return result;
    }

    /**
     * Starts a session on the association to the route's peer, or on a new one: when the association is shutting
     * down (its last session ended meanwhile), and when all its streams are taken (it stays for the sessions on it;
     * queue pairs from then on go to the new one).
     */
    private void connectVia(Route route, QueuePair qp, ConnectOptions options, CompletableFuture<Connection> result) {
        CompletableFuture<DdpAssociation> pending = associationTo(route, options.timeout());
        pending.whenComplete((association, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure instanceof java.util.concurrent.CompletionException
                        ? failure.getCause() : failure);
                return;
            }
            association.loop().execute(() -> {
                if (result.isDone()) {
                    return; // timed out meanwhile
                }
                if (!association.usable()) {
                    connectVia(route, qp, options, result);
                    return;
                }
                DdpStreamSession session = association.idleSession();
                if (session == null) {
                    outbound.remove(route, pending);
                    connectVia(route, qp, options, result);
                    return;
                }
                initiate(session, qp, options, result);
            });
        });
    }

    /**
     * The association to the route's peer: the one being made or made, or a new one. A new one's handshake and the
     * check of the peer's Adaptation Layer Indication (RFC 5043 §5) must end within {@code timeout}, else it is
     * abandoned. On the route's loop.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // whatever the stack throws must fail the future, not vanish
    private CompletableFuture<DdpAssociation> associationTo(Route route, java.time.Duration timeout) {
        CompletableFuture<DdpAssociation> existing = outbound.get(route);
        if (existing != null && !existing.isCompletedExceptionally()
                && !(existing.isDone() && !existing.join().usable())) {
            return existing;
        }
        CompletableFuture<DdpAssociation> created = new CompletableFuture<>();
        String full = overLimit();
        if (full != null) {
            created.completeExceptionally(new IOException("cannot connect to " + route.remote() + ": " + full));
            return created;
        }
        outbound.put(route, created);
        Loop loop = route.loop();
        DdpAssociation[] made = new DdpAssociation[1];
        SctpStack.Connecting connecting;
        try {
            connecting = stack.connect(loop, new InetSocketAddress(localAddress, 0), moreLocal, route.remote(),
                    limits.streams(), DdpSctp.ADAPTATION_INDICATION, parameters, (socket, failure) -> {
                        if (socket == null) {
                            outbound.remove(route, created);
                            created.completeExceptionally(failure);
                            return;
                        }
                        DdpAssociation association = newAssociation(socket, loop);
                        made[0] = association;
                        association.closeWhenIdle(); // made for queue pairs: gone with the last one
                        association.start(null); // the peer may not open sessions towards an initiator
                        association.validated().whenComplete((valid, invalid) -> {
                            if (invalid != null) {
                                outbound.remove(route, created);
                                created.completeExceptionally(invalid);
                            } else {
                                created.complete(valid);
                            }
                        });
                    });
        } catch (IOException | RuntimeException e) {
            outbound.remove(route, created);
            created.completeExceptionally(e);
            return created;
        }
        Deadline late = loop.schedule(System.nanoTime() + timeout.toNanos(), () -> {
            if (created.isDone()) {
                return;
            }
            connecting.abandon();
            if (made[0] != null) {
                made[0].abort(); // up, but the peer never showed it speaks DDP (RFC 5043 §5)
            }
            outbound.remove(route, created);
            created.completeExceptionally(new TimeoutException("no SCTP association with " + route.remote()
                    + " within " + timeout.toMillis() + " ms (" + (made[0] == null ? "the handshake"
                            : "the peer's Adaptation Layer Indication, RFC 5043 §5") + ")"));
        });
        created.whenComplete((association, failure) -> loop.runNowOrLater(late::cancel));
        return created;
    }

    /** Sends the Initiate on an idle session. Owner thread of the association. */
    private void initiate(DdpStreamSession session, QueuePair qp, ConnectOptions options,
            CompletableFuture<Connection> result) {
        EnhancedConnectionData offer = null;
        SessionControl initiate;
        if (options.enhanced()) {
            offer = EnhancedConnectionData.of(options.peerToPeer(), options.rtrTypes(), options.ird(),
                    options.ord());
            initiate = new SessionControl.EnhancedInitiate(offer, options.privateData());
        } else {
            initiate = new SessionControl.Initiate(options.privateData());
        }
        session.initiate(initiate, response -> onResponse(session, qp, options, response, result));
    }

    private void onResponse(DdpStreamSession session, QueuePair qp, ConnectOptions options,
            SessionControl response, CompletableFuture<Connection> result) {
        if (response == null) {
            result.completeExceptionally(new IOException("the association or the session failed during setup"));
            return;
        }
        if (result.isDone()) {
            if (session.state() == SessionStateMachine.State.OPEN) {
                session.close(); // timed out meanwhile: end the session the peer accepted
            }
            return;
        }
        EnhancedConnectionData answer = response.enhancedData().orElse(null);
        switch (response) {
            case SessionControl.Reject reject -> result.completeExceptionally(new ConnectionRejectedException(
                    "rejected by the peer's ULP", true, -1, -1, reject.privateData()));
            case SessionControl.EnhancedReject reject -> result.completeExceptionally(new ConnectionRejectedException(
                    "rejected by the peer's ULP (enhanced)", true, -1, -1, reject.privateData()));
            case SessionControl.Terminate terminate -> result.completeExceptionally(new ConnectionRejectedException(
                    "refused by the peer's provider (Session Terminate, RFC 5043 §6.4)", false, -1, -1,
                    PrivateData.EMPTY));
            default -> accepted(session, qp, options, response, answer, result);
        }
    }

    private void accepted(DdpStreamSession session, QueuePair qp, ConnectOptions options,
            SessionControl accept, EnhancedConnectionData answer, CompletableFuture<Connection> result) {
        int ird = options.ird();
        int ord = options.ord();
        RtrType rtr = RtrType.NONE;
        if (answer != null) {
            int[] settled = IrdOrdNegotiation.settle(options.ird(), options.ord(), answer.ird(), answer.ord());
            if (settled[0] < 0) {
                // RFC 6581 §9.1: the initiator cannot give the IRD the responder's ORD needs; it MUST send a
                // Terminate with Layer 2, EType 0, code 6 and end the connection
                byte[] terminate = TerminateHeader.bareMessage(MpaError.INSUFFICIENT_IRD);
                MemorySegment octets = MemorySegment.ofArray(terminate);
                session.send(octets, 0, terminate.length, octets, 0, 0);
                session.close();
                result.completeExceptionally(new ConnectionRejectedException("insufficient IRD: the responder's ORD "
                        + answer.ord() + " exceeds this side's IRD " + options.ird(), false, answer.ird(),
                        answer.ord(), accept.privateData()));
                return;
            }
            ird = settled[0];
            ord = settled[1];
            if (options.peerToPeer()) {
                rtr = RtrType.preferred(answer.rtrTypes());
                if (rtr == RtrType.NONE || !options.rtrTypes().contains(rtr)) {
                    session.close();
                    result.completeExceptionally(new ConnectionRejectedException("no matching RTR type", false,
                            answer.ird(), answer.ord(), accept.privateData()));
                    return;
                }
            }
        }
        LlpParameters parameters = new LlpParameters(ird, ord, rtr, RtrType.NONE, false, DdpSegment.DDP_VERSION,
                RdmapControl.RDMAP_VERSION, options.privateData(), accept.privateData());
        session.bind(parameters);
        managed.attach(qp, session, session.loop());
        ManagedQueuePairs.establish(qp, parameters, result);
    }


    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (SctpStack.Listening listening : listenings) {
            listening.close();
        }
        for (DdpAssociation association : associations) {
            association.abort(); // a graceful shutdown would need the loops, which stop now
        }
        for (Loop loop : loops) {
            loop.close(); // runs the closes queued above first
        }
        managed.close();
    }

    @Override
    public Map<Counter, Long> counters() {
        return managed.counters().snapshot();
    }

    @Override
    public java.util.List<QpStatistics> statistics() {
        return managed.statistics();
    }

    /** An Initiate waiting for the ULP. */
    private final class Request implements ConnectionRequest {
        private final DdpAssociation association;
        private final DdpStreamSession session;
        private final SessionControl initiate;
        private final EnhancedConnectionData offer;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(DdpAssociation association, DdpStreamSession session, SessionControl initiate) {
            this.association = association;
            this.session = session;
            this.initiate = initiate;
            this.offer = initiate.enhancedData().orElse(null);
        }

        @Override
        public SocketAddress remoteAddress() {
            return association.remoteAddress();
        }

        @Override
        public PrivateData privateData() {
            return initiate.privateData();
        }

        @Override
        public EnhancedConnectionData enhancedData() {
            return offer;
        }

        @Override
        public CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions options) {
            once();
            CompletableFuture<Connection> result = new CompletableFuture<>();
            association.loop().execute(() -> {
                if (session.state() != SessionStateMachine.State.PENDING_ULP) {
                    result.completeExceptionally(new IOException("the initiator gave up or the association failed"));
                    return;
                }
                int ird = options.ird();
                int ord = options.ord();
                RtrType rtr = RtrType.NONE;
                SessionControl reply;
                if (offer != null) {
                    rtr = offer.peerToPeer() ? chooseRtr(offer) : RtrType.NONE;
                    IrdOrdNegotiation.Answer answer = IrdOrdNegotiation.respond(offer.ird(), offer.ord(), options.ird(),
                            options.ord(), rtr == RtrType.READ);
                    ird = answer.ird();
                    ord = answer.ord();
                    // one RTR flag: the responder then knows the first message to consume (a deviation from the
                    // SHOULD of RFC 6581 §9.2 to set every supported requested type, which it still satisfies
                    // with "at least one")
                    reply = new SessionControl.EnhancedAccept(new EnhancedConnectionData(offer.peerToPeer(),
                            rtr == RtrType.SEND, rtr == RtrType.WRITE, rtr == RtrType.READ, answer.replyIrd(),
                            answer.replyOrd()), options.privateData());
                } else {
                    reply = new SessionControl.Accept(options.privateData());
                }
                LlpParameters parameters = new LlpParameters(ird, ord, RtrType.NONE, rtr, false,
                        DdpSegment.DDP_VERSION, RdmapControl.RDMAP_VERSION, options.privateData(),
                        initiate.privateData());
                session.answer(reply);
                session.bind(parameters);
                managed.attach(qp, session, association.loop());
                ManagedQueuePairs.establish(qp, parameters, result);
            });
            return result;
        }

        private static RtrType chooseRtr(EnhancedConnectionData offer) {
            RtrType chosen = RtrType.preferred(offer.rtrTypes());
            return chosen == RtrType.NONE ? RtrType.WRITE : chosen; // none requested: propose one (§9.2)
        }

        @Override
        public void reject(PrivateData privateData) {
            once();
            association.loop().execute(() -> {
                if (session.state() == SessionStateMachine.State.PENDING_ULP) {
                    // an enhanced Initiate is answered in kind (RFC 6581 §10), the ULP's private data whole
                    session.answer(offer != null ? new SessionControl.EnhancedReject(privateData)
                            : new SessionControl.Reject(privateData));
                }
            });
        }

        /**
         * The handler threw: unless it answered first, the Initiate gets a Session Terminate (a non-ULP reject,
         * RFC 5043 §5.2.3). On the association's loop. Returns whether it was refused here.
         */
        boolean refuseUnanswered() {
            if (!answered.compareAndSet(false, true)) {
                return false;
            }
            session.ulpAnswered = true;
            session.answer(new SessionControl.Terminate());
            return true;
        }

        private void once() {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("the request was already answered");
            }
            session.ulpAnswered = true; // no longer counts against SctpLimits.pendingPerAssociation
            association.loop().execute(association::ulpChanged); // it reads again if it stopped at the limit
        }
    }
}
