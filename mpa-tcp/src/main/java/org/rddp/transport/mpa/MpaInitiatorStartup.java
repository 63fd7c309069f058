package org.rddp.transport.mpa;

import static org.rddp.transport.mpa.MpaConnectionManager.closeQuietly;
import static org.rddp.transport.mpa.MpaConnectionManager.describe;
import static org.rddp.transport.mpa.MpaConnectionManager.mulpdu;
import static org.rddp.transport.mpa.MpaConnectionManager.requireIdle;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.MpaError;
import org.rddp.llp.LlpParameters;
import org.rddp.loop.Loop;
import org.rddp.mpa.MpaFramer;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.rdmap.IrdOrdNegotiation;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RtrType;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRejectedException;
import org.rddp.llp.Counter;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.spi.ManagedQueuePairs;
import org.rddp.wire.MalformedFrameException;

/**
 * The initiator's MPA startup (RFC 5044 §7.1.1, RFC 6581 §9–§10), for every connect of the manager's: on the loop
 * the connection was given, connects from the manager's local address, sends the Request, awaits the Reply within
 * the options' timeout, checks it against the Request (a reject, the enhanced form answered in kind, IRD/ORD, the
 * RTR) and enters Full Operation, or sends the Terminate the failed negotiation calls for; an enhanced Request that
 * an RFC 5044 responder closed on is retried with revision 1 when the options say so. Its connections' loops.
 */
final class MpaInitiatorStartup {
    private final MpaConnectionManager manager;
    private final MpaOptions mpa;
    private final InetAddress localAddress;
    private final Set<MpaStartup> startups;
    private final AtomicBoolean closed;

    /** The initiator's startups of {@code manager}'s connections. */
    MpaInitiatorStartup(MpaConnectionManager manager) {
        this.manager = manager;
        this.mpa = manager.options();
        this.localAddress = manager.localAddress;
        this.startups = manager.startups;
        this.closed = manager.closed;
    }

    /** Initiator: connect, Request, Reply, negotiation, Full Operation; within the options' timeout. Its loop. */
    @SuppressWarnings("checkstyle:IllegalCatch") // any failure must end in the future, never vanish
    void initiate(QueuePair qp, Loop loop, InetSocketAddress remote, ConnectOptions options,
            boolean revision1, CompletableFuture<Connection> result) {
        if (options.peerToPeer() && mpa.revision() < 2) {
            result.completeExceptionally(new IOException("peer-to-peer needs the enhanced setup of MPA revision 2 "
                    + "(RFC 6581 §9.2); this connection manager speaks revision 1 only"));
            return;
        }
        if (closed.get()) {
            result.completeExceptionally(new IOException("the connection manager is closed"));
            return;
        }
        String full = manager.overMemory();
        if (full != null) {
            result.completeExceptionally(new IOException("cannot connect to " + remote + ": " + full));
            return;
        }
        boolean enhanced = options.enhanced() && mpa.revision() >= 2 && !revision1;
        boolean peerToPeer = enhanced && (options.peerToPeer() || mpa.peerToPeer());
        Set<RtrType> rtrTypes = mpa.peerToPeer() ? mpa.rtrTypes() : options.rtrTypes();
        SocketChannel channel = null;
        try {
            requireIdle(qp); // before anything goes on the wire: attach would refuse it only after the Reply
            EnhancedConnectionData offer = enhanced
                    ? EnhancedConnectionData.of(peerToPeer, rtrTypes, options.ird(), options.ord()) : null;
            MpaStartupFrame request = new MpaStartupFrame(MpaStartupFrame.Kind.REQUEST, mpa.markers(), mpa.crc(),
                    false, enhanced ? MpaStartupFrame.REVISION_2 : MpaStartupFrame.REVISION_1, offer,
                    options.privateData());
            channel = SocketChannel.open();
            InetSocketAddress from = new InetSocketAddress(localAddress, 0);
            if (mpa.mptcp()) {
                Mptcp.bind(channel, from); // the socket is replaced: its options are set after
            } else {
                channel.bind(from);
            }
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            boolean connected = channel.connect(remote);
            MpaStartup startup = new MpaStartup(channel, loop, !connected, startups,
                    failure -> {
                if (failure instanceof EOFException && enhanced && mpa.retryRevision1()) {
                    initiate(qp, loop, remote, options, true, result); // RFC 6581 §10: an RFC 5044 responder closed
                } else {
                    if (failure instanceof MalformedFrameException || failure instanceof SocketTimeoutException) {
                        manager.counting().increment(Counter.MALFORMED_SETUPS);
                    }
                    result.completeExceptionally(initiatorFailure(failure, enhanced));
                }
            });
            startup.send(request.toByteArray(), null);
            startup.expect(MpaStartupFrame.Kind.REPLY, options.timeout(), reply -> {
                negotiate(qp, startup, loop, options, request, reply, peerToPeer ? rtrTypes : Set.of(), result);
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            result.completeExceptionally(initiatorFailure(e, enhanced));
        }
    }

    /** What an initiator whose startup failed with {@code e} is told. */
    private static Exception initiatorFailure(Exception e, boolean enhanced) {
        if (e instanceof ConnectionRejectedException) {
            return e;
        }
        if (e instanceof EOFException) {
            return new IOException("the responder closed the connection without an MPA Reply" + (enhanced
                    ? " (an RFC 5044 responder does so on an enhanced request; MpaOptions.withRetryRevision1 "
                            + "retries with revision 1)" : ""), e);
        }
        return e instanceof IOException ? e : new IOException(describe(e, "Reply"), e);
    }

    /** Initiator: checks the Reply against the Request and enters Full Operation (RFC 6581 §9, §10). */
    @SuppressWarnings("checkstyle:IllegalCatch") // any local failure after the Reply is answered with a Terminate
    private void negotiate(QueuePair qp, MpaStartup startup, Loop loop, ConnectOptions options,
            MpaStartupFrame request, MpaStartupFrame reply, Set<RtrType> rtrTypes,
            CompletableFuture<Connection> result) throws IOException {
        SocketChannel channel = startup.channel();
        EnhancedConnectionData answer = reply.enhancedData();
        if (reply.reject()) {
            throw new ConnectionRejectedException("rejected by the peer's ULP", true,
                    answer == null ? -1 : answer.ird(), answer == null ? -1 : answer.ord(), reply.privateData());
        }
        if (request.enhanced() != reply.enhanced()) {
            throw new IOException(request.enhanced()
                    ? "the responder answered an enhanced Request without the enhanced data (RFC 6581 §10 makes "
                            + "an enhanced responder answer in kind)"
                    : "the responder answered a revision 1 Request with enhanced data (RFC 6581 §10 forbids it)");
        }
        boolean crc = mpa.crc() || reply.crc();
        boolean markersOut = reply.markers();
        int ird = options.ird();
        int ord = options.ord();
        RtrType rtr = RtrType.NONE;
        if (answer != null) {
            int[] settled = IrdOrdNegotiation.settle(options.ird(), options.ord(), answer.ird(), answer.ord());
            if (settled[0] < 0) {
                terminate(startup, MpaError.INSUFFICIENT_IRD, markersOut, crc); // RFC 6581 §9.1
                throw new ConnectionRejectedException("insufficient IRD: the responder's ORD " + answer.ord()
                        + " exceeds this side's IRD " + options.ird(), false, answer.ird(), answer.ord(),
                        reply.privateData());
            }
            ird = settled[0];
            ord = settled[1];
            if (!rtrTypes.isEmpty()) {
                Set<RtrType> common = EnumSet.noneOf(RtrType.class);
                common.addAll(answer.rtrTypes());
                common.retainAll(rtrTypes);
                rtr = answer.peerToPeer() ? RtrType.preferred(common) : RtrType.NONE;
                if (rtr == RtrType.NONE) {
                    terminate(startup, MpaError.NO_MATCHING_RTR, markersOut, crc); // RFC 6581 §9.2
                    throw new ConnectionRejectedException("no matching RTR: this side sends " + rtrTypes
                            + ", the responder accepts " + answer.rtrTypes(), false, answer.ird(), answer.ord(),
                            reply.privateData());
                }
            }
        }
        LlpParameters parameters = new LlpParameters(ird, ord, rtr, RtrType.NONE, false, DdpSegment.DDP_VERSION,
                RdmapControl.RDMAP_VERSION, options.privateData(), reply.privateData());
        try {
            InetAddress local = ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            manager.attach(qp, startup, loop, parameters, mulpdu(local, markersOut, mpa.mtu(), mpa.mptcp()),
                    markersOut, mpa.markers(), crc);
        } catch (IOException | RuntimeException e) {
            // any other local failure once the Reply is in: Terminate 0x2/0x0/0x05, then reset (RFC 6581 §9.3)
            terminate(startup, MpaError.LOCAL_CATASTROPHIC, markersOut, crc);
            throw new IOException("could not set up the stream after the Reply: " + e.getMessage(), e);
        }
        ManagedQueuePairs.establish(qp, parameters, result);
    }

    /**
     * Sends a Terminate FPDU with no headers, as Full Operation frames it, then closes the connection (a fresh
     * connection's send buffer takes the few octets at once: whatever it does not take is lost with the connection).
     */
    private static void terminate(MpaStartup startup, MpaError cause, boolean markers, boolean crc) {
        byte[] message = TerminateHeader.bareMessage(cause);
        MpaFramer framer = new MpaFramer(markers, crc);
        ByteBuffer fpdu = ByteBuffer.allocate(framer.wireLength(message.length));
        framer.frame(ByteBuffer.wrap(message), fpdu);
        try {
            startup.channel().write(fpdu.flip());
            startup.channel().shutdownOutput();
        } catch (IOException e) {
            // the connection is being given up anyway
        }
        startup.close(false);
    }
}
