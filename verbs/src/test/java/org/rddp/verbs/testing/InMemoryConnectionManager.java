package org.rddp.verbs.testing;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.rddp.ddp.DdpSegment;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.loop.Progress;
import org.rddp.testing.InMemoryLlp;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.wire.PrivateData;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.QpStatistics;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.spi.ManagedQueuePairs;

/**
 * A connection manager over {@link InMemoryLlp} pairs, for tests of the verbs and the engine: listeners are
 * names in one JVM, setup negotiates IRD/ORD and RTR as RFC 6581 §9 says, and every end gets this manager's
 * owner thread. The last pair it made is kept so tests can inject faults.
 */
public final class InMemoryConnectionManager implements ConnectionManager {
    private static final Map<SocketAddress, Registration> LISTENERS = new ConcurrentHashMap<>();

    private final Loop loop;
    private final ManagedQueuePairs managed = new ManagedQueuePairs("memory", null);
    private final int mulpdu;
    private final int capacity;
    private volatile InMemoryLlp lastInitiatorEnd;
    private volatile InMemoryLlp lastResponderEnd;

    /** An in-memory address: a name. */
    public static final class Address extends SocketAddress {
        private static final long serialVersionUID = 1L;
        private final String name;

        /** The address called {@code name}. */
        public Address(String name) {
            this.name = name;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Address that && name.equals(that.name);
        }

        @Override
        public int hashCode() {
            return name.hashCode();
        }

        @Override
        public String toString() {
            return "mem:" + name;
        }
    }

    private record Registration(InMemoryConnectionManager manager, Consumer<ConnectionRequest> handler) {
    }

    /**
     * @param name     names this manager's owner thread
     * @param mulpdu   MULPDU of the streams it makes
     * @param capacity segments in flight per direction before back-pressure
     */
    public InMemoryConnectionManager(String name, int mulpdu, int capacity) {
        this(name, mulpdu, capacity, Progress.automatic());
    }

    /** As above, its loop driven as {@code progress} says: manual, by the thread that makes it. */
    public InMemoryConnectionManager(String name, int mulpdu, int capacity, Progress progress) {
        this.loop = progress.open(name, Poller::parking)[0];
        this.mulpdu = mulpdu;
        this.capacity = capacity;
    }

    /** The owner thread of every stream end this manager made. */
    public Loop loop() {
        return loop;
    }

    /** The initiator's end of the last connection this manager initiated. */
    public InMemoryLlp lastInitiatorEnd() {
        return lastInitiatorEnd;
    }

    /** The responder's end of the last connection this manager initiated. */
    public InMemoryLlp lastResponderEnd() {
        return lastResponderEnd;
    }

    @Override
    public Listener listen(SocketAddress address, Consumer<ConnectionRequest> handler) throws IOException {
        if (LISTENERS.putIfAbsent(address, new Registration(this, handler)) != null) {
            throw new IOException("address in use: " + address);
        }
        return new Listener() {
            @Override
            public SocketAddress address() {
                return address;
            }

            @Override
            public void close() {
                LISTENERS.remove(address);
            }
        };
    }

    @Override
    @SuppressWarnings("checkstyle:IllegalCatch") // the listener's handler: whatever it throws is its bug
    public CompletableFuture<Connection> connect(QueuePair qp, SocketAddress remote, ConnectOptions options) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        Registration registration = LISTENERS.get(remote);
        if (registration == null) {
            result.completeExceptionally(new IOException("connection refused: nothing listens at " + remote));
            return result;
        }
        Request request = new Request(this, registration.manager(), qp, options, result);
        registration.manager().loop.execute(() -> {
            try {
                registration.handler().accept(request);
            } catch (RuntimeException e) { // as the transports do: counted, reported, and the request refused
                managed.counters().callbackFailed(e);
                request.refuseUnanswered();
            }
        });
        return result;
    }

    @Override
    public java.util.List<QpStatistics> statistics() {
        return managed.statistics();
    }

    @Override
    public Map<org.rddp.llp.Counter, Long> counters() {
        return managed.counters().snapshot();
    }

    @Override
    public void close() {
        LISTENERS.values().removeIf(registration -> registration.manager() == this);
        managed.close();
        loop.close();
    }

    /** A request on its way from an initiator to a responder. */
    private static final class Request implements ConnectionRequest {
        private final InMemoryConnectionManager initiator;
        private final InMemoryConnectionManager responder;
        private final QueuePair initiatorQp;
        private final ConnectOptions options;
        private final CompletableFuture<Connection> initiatorResult;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(InMemoryConnectionManager initiator, InMemoryConnectionManager responder, QueuePair initiatorQp,
                ConnectOptions options, CompletableFuture<Connection> initiatorResult) {
            this.initiator = initiator;
            this.responder = responder;
            this.initiatorQp = initiatorQp;
            this.options = options;
            this.initiatorResult = initiatorResult;
        }

        @Override
        public SocketAddress remoteAddress() {
            return new Address("initiator-" + initiatorQp.number());
        }

        @Override
        public PrivateData privateData() {
            return options.privateData();
        }

        @Override
        public EnhancedConnectionData enhancedData() {
            return options.enhanced() ? EnhancedConnectionData.of(options.peerToPeer(), options.rtrTypes(),
                    options.ird(), options.ord()) : null;
        }

        @Override
        public CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions accept) {
            once();
            RtrType rtr = RtrType.NONE;
            if (options.peerToPeer()) {
                // the responder here supports every RTR type; the initiator picks as siw does: Write, Read, Send
                for (RtrType preferred : new RtrType[] {RtrType.WRITE, RtrType.READ, RtrType.SEND}) {
                    if (options.rtrTypes().contains(preferred)) {
                        rtr = preferred;
                        break;
                    }
                }
                if (rtr == RtrType.NONE) {
                    rtr = RtrType.WRITE; // none requested: the responder proposes one it supports (§9.2)
                }
            }
            int responderIrd = accept.ird();
            int responderOrd = accept.ord();
            int initiatorIrd = options.ird();
            int initiatorOrd = options.ord();
            int replyIrd = -1;
            int replyOrd = -1;
            if (options.enhanced()) {
                IrdOrdNegotiation.Answer answer = IrdOrdNegotiation.respond(options.ird(), options.ord(), accept.ird(),
                        accept.ord(), rtr == RtrType.READ);
                responderIrd = answer.ird();
                responderOrd = answer.ord();
                replyIrd = answer.replyIrd();
                replyOrd = answer.replyOrd();
                int[] settled = IrdOrdNegotiation.settle(options.ird(), options.ord(), replyIrd, replyOrd);
                if (settled[0] < 0) {
                    ConnectionRejectedException failure = new ConnectionRejectedException(
                            "insufficient IRD: the responder's ORD " + replyOrd + " exceeds this side's IRD "
                                    + options.ird() + " (Terminate 0x2/0x0/0x06, RFC 6581 §9.1)",
                            false, replyIrd, replyOrd, accept.privateData());
                    initiatorResult.completeExceptionally(failure);
                    return CompletableFuture.failedFuture(failure);
                }
                initiatorIrd = settled[0];
                initiatorOrd = settled[1];
            }
            LlpParameters initiatorSide = new LlpParameters(initiatorIrd, initiatorOrd, rtr, RtrType.NONE, false,
                    DdpSegment.DDP_VERSION, RdmapControl.RDMAP_VERSION, options.privateData(), accept.privateData());
            LlpParameters responderSide = new LlpParameters(responderIrd, responderOrd, RtrType.NONE, rtr,
                    rtr != RtrType.NONE, DdpSegment.DDP_VERSION, RdmapControl.RDMAP_VERSION, accept.privateData(),
                    options.privateData());
            InMemoryLlp[] ends = InMemoryLlp.pair(initiator.loop, initiatorSide, responder.loop, responderSide,
                    initiator.mulpdu, initiator.capacity);
            initiator.lastInitiatorEnd = ends[0];
            initiator.lastResponderEnd = ends[1];
            CompletableFuture<Connection> responderResult = new CompletableFuture<>();
            responder.managed.attach(qp, ends[1], responder.loop);
            initiator.managed.attach(initiatorQp, ends[0], initiator.loop);
            ManagedQueuePairs.establish(qp, responderSide, responderResult);
            ManagedQueuePairs.establish(initiatorQp, initiatorSide, initiatorResult);
            return responderResult;
        }


        @Override
        public void reject(PrivateData privateData) {
            once();
            initiatorResult.completeExceptionally(new ConnectionRejectedException("rejected by the peer's ULP",
                    true, -1, -1, privateData));
        }

        /** The listener's handler threw before it answered: the initiator hears a non-ULP refusal. */
        void refuseUnanswered() {
            if (answered.compareAndSet(false, true)) {
                initiatorResult.completeExceptionally(new ConnectionRejectedException("refused: the peer's listener "
                        + "failed", false, -1, -1, PrivateData.EMPTY));
            }
        }

        private void once() {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("the request was already answered");
            }
        }
    }
}
