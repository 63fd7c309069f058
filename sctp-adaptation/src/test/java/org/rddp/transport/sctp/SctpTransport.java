package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rddp.sctp.DdpSctp;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.TransportFixture;

/** The SCTP adaptation as a scenario-suite transport: an initiator and a responder, each on its own stack. */
final class SctpTransport implements TransportFixture {
    private final SctpConnectionManager initiator;
    private final SctpConnectionManager responder;
    private final InetAddress responderAddress;
    private final int mulpdu;
    private final boolean tellsPaths;

    /**
     * @param mulpdu the largest DDP segment on the path: the stack's largest unfragmented message less the
     *               2-octet DDP-SCTP adaptation header
     */
    SctpTransport(SctpStack initiatorStack, InetAddress initiatorAddress, SctpStack responderStack,
            InetAddress responderAddress, int mulpdu) {
        this(initiatorStack, initiatorAddress, responderStack, responderAddress, mulpdu, Progress.automatic());
    }

    /** As above, the managers' loops driven as {@code progress} says (manual: by this thread). */
    SctpTransport(SctpStack initiatorStack, InetAddress initiatorAddress, SctpStack responderStack,
            InetAddress responderAddress, int mulpdu, Progress progress) {
        this.initiator = new SctpConnectionManager(initiatorStack, initiatorAddress, ChunkTap.NONE, progress);
        this.responder = new SctpConnectionManager(responderStack, responderAddress, ChunkTap.NONE, progress);
        this.responderAddress = responderAddress;
        this.mulpdu = mulpdu;
        this.tellsPaths = !(responderStack instanceof RemoteSctpStack); // its sockets proxy data, not paths
    }

    @Override
    public boolean tellsPaths() {
        return tellsPaths;
    }

    /** Both ends on one stack, on loopback. */
    static SctpTransport loopback(SctpStack stack, int maxMessage) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new SctpTransport(stack, loopback, stack, loopback, maxMessage - 2);
    }

    /** Both ends on this process's usrsctp stack over UDP, on loopback. */
    static SctpTransport usrsctp() throws IOException {
        return usrsctp(UsrsctpStack.udp());
    }

    /** Both ends on {@code stack}, on loopback. */
    static SctpTransport usrsctp(UsrsctpStack stack) {
        return loopback(stack, stack.maxMessage());
    }

    /** Both ends on this process's usrsctp stack over UDP, on loopback, their loops driven by the calling thread. */
    static SctpTransport usrsctpManual() throws IOException {
        UsrsctpStack stack = UsrsctpStack.udp();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new SctpTransport(stack, loopback, stack, loopback, stack.maxMessage() - 2, Progress.manual());
    }

    /** The fragmentation point of an association on {@code address}: known only once one is up. */
    static int probeMaxMessage(SctpStack stack, InetAddress address) throws Exception {
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(address, 0), 1,
                DdpSctp.ADAPTATION_INDICATION)) {
            CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
            listening.start(accepted::complete);
            try (SctpSocket client = stack.connect(new InetSocketAddress(address, 0), listening.address(), 1,
                    DdpSctp.ADAPTATION_INDICATION);
                    SctpSocket server = accepted.get(30, TimeUnit.SECONDS)) {
                return Math.min(client.maxMessage(), server.maxMessage());
            }
        }
    }

    /** Both ends on {@code stack} at {@code address} (IPv6's loopback, say), sized by a probe association. */
    static SctpTransport at(SctpStack stack, InetAddress address) throws Exception {
        return new SctpTransport(stack, address, stack, address, probeMaxMessage(stack, address) - 2);
    }

    @Override
    public SctpConnectionManager initiator() {
        return initiator;
    }

    @Override
    public SctpConnectionManager responder() {
        return responder;
    }

    @Override
    public SocketAddress nextAddress() {
        return new InetSocketAddress(responderAddress, TestPorts.next());
    }

    @Override
    public int mulpdu() {
        return mulpdu;
    }

    @Override
    public void close() {
        initiator.close();
        responder.close();
    }
}
