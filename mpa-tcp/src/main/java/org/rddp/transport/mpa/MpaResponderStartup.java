package org.rddp.transport.mpa;

import static org.rddp.transport.mpa.MpaConnectionManager.closeQuietly;
import static org.rddp.transport.mpa.MpaConnectionManager.mulpdu;
import static org.rddp.transport.mpa.MpaConnectionManager.requireIdle;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rddp.ddp.DdpSegment;
import org.rddp.llp.LlpParameters;
import org.rddp.loop.Loop;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RtrType;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.spi.ManagedQueuePairs;
import org.rddp.wire.DecodeStatus;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;

/**
 * The responder's MPA startup (RFC 5044 §7.1.2, RFC 6581 §9–§10), for every connection a {@link MpaAcceptor} of the
 * manager's admitted: on the loop the connection was given, reads and checks the Request within the startup timeout
 * and hands it to the ULP as a {@link ConnectionRequest}; the ULP's accept is answered with the Reply (Markers, CRCs,
 * IRD/ORD and the RTR settled) and the connection enters Full Operation, its reject with a rejecting Reply and FIN. A
 * Request over {@link MpaOptions#maxConnections} is rejected before the ULP hears of it. Its connections' loops.
 */
final class MpaResponderStartup {
    private final MpaConnectionManager manager;
    private final MpaOptions mpa;
    private final Set<MpaStartup> startups;
    private final AtomicInteger accepting;
    private final Map<MpaStream, Loop> streams;
    private final StartupAdmission admission;

    /** The responder's startups of {@code manager}'s connections. */
    MpaResponderStartup(MpaConnectionManager manager) {
        this.manager = manager;
        this.mpa = manager.options();
        this.startups = manager.startups;
        this.accepting = manager.accepting;
        this.streams = manager.streams;
        this.admission = manager.admission;
    }

    /** Responder: reads and checks the Request within the startup timeout, then gives it to the ULP. Its loop. */
    @SuppressWarnings("checkstyle:IllegalCatch") // a handler's bug or a bad frame loses this connection only
    void receiveRequest(SocketChannel channel, Loop loop, Consumer<ConnectionRequest> handler,
            SocketAddress from, InetAddress source) {
        accepting.decrementAndGet(); // in startups from here on, or refused
        MpaStartup startup = null;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            startup = new MpaStartup(channel, loop, false, startups, failure -> manager.refuse(from, failure));
            MpaStartup admitted = startup;
            startup.onEnd(() -> {
                admission.spoke(source, admitted);
                admission.left(source);
            });
            admission.waiting(source, startup);
            startup.expect(MpaStartupFrame.Kind.REQUEST, mpa.startupTimeout(), request -> {
                admission.spoke(source, admitted); // no longer one to make room
                if (request.revision() > mpa.revision()) {
                    // an RFC 5044 responder cannot interoperate with revision 2: it closes (§7.1.2 rule 9)
                    throw new MalformedFrameException(DecodeStatus.MPA_BAD_REVISION, "revision " + request.revision()
                            + " but this side speaks revision " + mpa.revision() + " only");
                }
                if (streams.size() >= mpa.maxConnections()) {
                    IOException full = new IOException("too many connections: " + mpa.maxConnections()
                            + " in Full Operation (MpaOptions.withLimits); the Request was rejected");
                    manager.refuse(from, full); // told before the peer can read the rejection
                    admitted.onFailure(failure -> { });
                    rejectReply(admitted, request, PrivateData.EMPTY);
                    throw full;
                }
                admitted.onFailure(failure -> { }); // the ULP answers: a later failure is its answer's
                try {
                    handler.accept(new Request(admitted, loop, from, request));
                } catch (RuntimeException e) {
                    // counted, seen; rethrown, it ends the startup: the connection closes
                    manager.counting().callbackFailed(e);
                    throw e;
                }
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            if (startup == null) {
                admission.left(source);
            } else {
                startup.close(false);
            }
            manager.refuse(from, e);
        }
    }

    /**
     * Answers {@code request} with a rejecting Reply, then FIN: a fresh connection's send buffer takes the few octets
     * at once. An enhanced Request is answered in kind (RFC 6581 §10), with no IRD/ORD to quote.
     */
    private void rejectReply(MpaStartup startup, MpaStartupFrame request, PrivateData privateData) {
        EnhancedConnectionData offer = request.enhancedData();
        EnhancedConnectionData answer = offer == null ? null : EnhancedConnectionData.of(offer.peerToPeer(),
                Set.of(), EnhancedConnectionData.NO_NEGOTIATION, EnhancedConnectionData.NO_NEGOTIATION);
        try {
            startup.channel().write(ByteBuffer.wrap(new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, mpa.markers(),
                    mpa.crc(), true, Math.min(request.revision(), mpa.revision()), answer, privateData)
                    .toByteArray()));
            startup.channel().shutdownOutput(); // this ULP has no use for the TCP connection
        } catch (IOException | IllegalArgumentException e) {
            // the initiator sees the connection close instead
        }
    }

    /** A Request waiting for the ULP; its connection waits on its loop, read no further. */
    private final class Request implements ConnectionRequest {
        private final MpaStartup startup;
        private final Loop loop;
        private final SocketAddress peer;
        private final MpaStartupFrame request;
        private final EnhancedConnectionData offer;
        private final AtomicBoolean answered = new AtomicBoolean();

        Request(MpaStartup startup, Loop loop, SocketAddress peer, MpaStartupFrame request) {
            this.startup = startup;
            this.loop = loop;
            this.peer = peer;
            this.request = request;
            this.offer = request.enhancedData();
        }

        @Override
        public SocketAddress remoteAddress() {
            return peer;
        }

        @Override
        public PrivateData privateData() {
            return request.privateData();
        }

        @Override
        public EnhancedConnectionData enhancedData() {
            return offer;
        }

        @Override
        @SuppressWarnings("checkstyle:IllegalCatch") // any failure must end in the future, never vanish
        public CompletableFuture<Connection> accept(QueuePair qp, AcceptOptions options) {
            once();
            CompletableFuture<Connection> result = new CompletableFuture<>();
            loop.execute(() -> {
                startup.onFailure(result::completeExceptionally);
                try {
                    accepted(qp, options, result);
                } catch (IOException | RuntimeException e) {
                    startup.fail(e);
                }
            });
            if (!loop.running()) {
                result.completeExceptionally(new IOException("the connection manager is closed"));
            }
            return result;
        }

        private void accepted(QueuePair qp, AcceptOptions options, CompletableFuture<Connection> result)
                throws IOException {
            if (!startup.channel().isOpen()) {
                throw new IOException("the connection closed before it was accepted");
            }
            requireIdle(qp); // no accepting Reply for a queue pair that cannot take the connection
            int ird = options.ird();
            int ord = options.ord();
            RtrType rtr = RtrType.NONE;
            EnhancedConnectionData answer = null;
            if (offer != null) {
                if (offer.peerToPeer()) {
                    Set<RtrType> common = EnumSet.noneOf(RtrType.class);
                    common.addAll(offer.rtrTypes());
                    common.retainAll(mpa.rtrTypes());
                    rtr = RtrType.preferred(common);
                    if (rtr == RtrType.NONE) {
                        rtr = RtrType.preferred(mpa.rtrTypes()); // none requested fits: propose one (§9.2)
                    }
                }
                IrdOrdNegotiation.Answer settled = IrdOrdNegotiation.respond(offer.ird(), offer.ord(), options.ird(),
                        options.ord(), rtr == RtrType.READ);
                ird = settled.ird();
                ord = settled.ord();
                // one RTR flag, so that the first FPDU to expect is known (the SHOULD of RFC 6581 §9.2 to set every
                // supported requested type is not followed; "at least one" is)
                answer = EnhancedConnectionData.of(offer.peerToPeer(), rtr == RtrType.NONE ? Set.of() : Set.of(rtr),
                        settled.replyIrd(), settled.replyOrd());
            }
            // C: this side's preference, or the initiator's when it asked (RFC 5044 §7.1.1: CRCs are then used
            // anyway); saying so keeps initiators that insist on seeing C in the Reply (siw's mpa_crc_required)
            MpaStartupFrame reply = new MpaStartupFrame(MpaStartupFrame.Kind.REPLY, mpa.markers(),
                    mpa.crc() || request.crc(), false, Math.min(request.revision(), mpa.revision()), answer,
                    options.privateData());
            LlpParameters parameters = new LlpParameters(ird, ord, RtrType.NONE, rtr, true, DdpSegment.DDP_VERSION,
                    RdmapControl.RDMAP_VERSION, options.privateData(), request.privateData());
            InetAddress local = ((InetSocketAddress) startup.channel().getLocalAddress()).getAddress();
            int mulpdu = mulpdu(local, request.markers(), mpa.mtu(), mpa.mptcp());
            startup.send(reply.toByteArray(), () -> {
                try {
                    manager.attach(qp, startup, loop, parameters, mulpdu, request.markers(), mpa.markers(),
                            mpa.crc() || request.crc());
                } catch (IOException e) {
                    startup.fail(e);
                    return;
                }
                ManagedQueuePairs.establish(qp, parameters, result);
            });
        }

        @Override
        public void reject(PrivateData privateData) {
            once();
            loop.execute(() -> {
                rejectReply(startup, request, privateData);
                startup.close(false);
            });
        }

        private void once() {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("the request was already answered");
            }
        }
    }
}
