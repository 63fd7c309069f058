package org.rddp.examples;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.rddp.llp.LlpPath;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * An SCTP client that lists its connection's paths and chooses the primary one (docs/transports.md, "Several paths
 * (multi-homing)"). It connects to a server of its own on loopback, asks its queue pair for the paths
 * ({@code qp.paths()}: each peer address, its state, whether it is primary, its RTO), then makes one of them the
 * primary ({@code qp.choosePrimaryPath(address)}).
 *
 * <p>What happens depends on the SCTP backend ({@link SctpStacks#preferred()}: the kernel's where it has SCTP, else
 * usrsctp over UDP):
 * <ul>
 * <li>usrsctp: exactly one path, active and primary, with the RTO SCTP_STATUS gives. Choosing a primary fails, even
 *     that one path: the future completes exceptionally with an {@link java.io.IOException} saying that usrsctp
 *     carries one path per association and that choosing needs kernel SCTP (its AF_CONN addresses cannot be put in
 *     an INIT). This is what a machine without kernel SCTP, as this project's build machines, shows.</li>
 * <li>kernel SCTP: a path per peer address (one here: both ends bind 127.0.0.1 only), and choosing one of them
 *     works; an address the association has no path to is refused with the paths listed. With several local
 *     addresses ({@code new SctpConnectionManager(stack, List.of(a, b), ...)}) there are several to choose from.</li>
 * </ul>
 */
public final class SctpPaths {
    private SctpPaths() {
    }

    /**
     * What a run saw.
     *
     * @param stack   the SCTP backend's name ({@code usrsctp-udp}, {@code kernel})
     * @param server  the address the client connected to
     * @param paths   the queue pair's paths, as the stack listed them after connecting
     * @param chosen  the address it asked to make primary
     * @param refused why that was refused, or null when it was done
     */
    public record Result(String stack, InetSocketAddress server, List<LlpPath> paths, InetSocketAddress chosen,
            String refused) {
    }

    /** {@code SctpPaths}: runs it and prints the paths and the outcome of the choice. */
    public static void main(String[] args) throws Exception {
        Result result = run();
        System.out.println("SctpPaths: over " + result.stack() + ", " + result.paths().size() + " path(s)");
        for (LlpPath path : result.paths()) {
            System.out.println("  to " + path.address() + ": " + path.state() + (path.primary() ? ", primary" : "")
                    + ", RTO " + (path.rto() == null ? "not told" : path.rto().toMillis() + " ms"));
        }
        System.out.println("SctpPaths: primary path to " + result.chosen() + ": "
                + (result.refused() == null ? "chosen" : "refused: " + result.refused()));
    }

    /** Connects to a server of its own over SCTP, lists the paths and chooses one as the primary. */
    public static Result run() throws Exception {
        InetAddress local = InetAddress.getLoopbackAddress();
        SctpStack stack = SctpStacks.preferred(); // or SctpStacks.byName("kernel"), ("usrsctp"), ...
        ProtectionDomain pd = new RdmaDevice("paths").allocateProtectionDomain();
        CompletionQueue cq = pd.device().createCompletionQueue(16);
        try (SctpConnectionManager serverSide = new SctpConnectionManager(stack, local);
                SctpConnectionManager clientSide = new SctpConnectionManager(stack, local);
                // the server accepts every request, each on a queue pair of its own
                Listener listener = serverSide.listen(new InetSocketAddress(local, 0), request -> request.accept(
                        pd.createQueuePair(QpAttributes.of(cq, 4, 1)), new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            InetSocketAddress server = (InetSocketAddress) listener.address();
            QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
            clientSide.connect(qp, server, ConnectOptions.of(1, 1)).get(10, TimeUnit.SECONDS);

            // any thread may ask; the answer comes from the connection's loop
            List<LlpPath> paths = qp.paths().get(10, TimeUnit.SECONDS);
            // a multi-homed association would offer others than the primary; with one path, choose that one
            InetSocketAddress chosen = paths.stream().filter(path -> !path.primary()).findFirst()
                    .orElse(paths.getFirst()).address();
            String refused = null;
            try {
                qp.choosePrimaryPath(chosen).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                refused = e.getCause().getMessage(); // the transport's IOException: why it cannot choose
            }
            return new Result(stack.name(), server, paths, chosen, refused);
        }
    }
}
