package org.rddp.check;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.function.Consumer;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.WorkCompletion;

/**
 * This stack as the responder the initiator checks run against: it accepts every connection request, each on a
 * queue pair of its own with a few small receives posted (a zero-length Send RTR takes one), and keeps it until
 * the peer goes. What {@code rddp interop --serve} runs.
 */
public final class AcceptingResponder implements AutoCloseable {
    private static final int RECEIVES = 4;
    private static final int RECEIVE_SIZE = 256;

    private final ProtectionDomain pd = new RdmaDevice("rddp-interop").allocateProtectionDomain();
    private final CompletionQueue cq = pd.device().createCompletionQueue(1024);
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion receives = pd.register(arena.allocate((long) RECEIVES * RECEIVE_SIZE),
            EnumSet.of(Access.LOCAL_WRITE));
    private final AcceptOptions options;
    private final Consumer<String> log;
    private final Listener listener;

    /**
     * Listens at {@code local} through {@code manager}, accepting with {@code options}; says what it did through
     * {@code log}.
     */
    public AcceptingResponder(ConnectionManager manager, SocketAddress local, AcceptOptions options,
            Consumer<String> log) throws IOException {
        this.options = options;
        this.log = log;
        this.listener = manager.listen(local, this::accept);
    }

    /** Where it listens. */
    public SocketAddress address() {
        return listener.address();
    }

    private void accept(ConnectionRequest request) {
        WorkCompletion drained = new WorkCompletion();
        while (cq.poll(drained)) {
            continue; // nothing is done with what arrived; the CQ only must not overflow
        }
        QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, RECEIVES, 1));
        for (int i = 0; i < RECEIVES; i++) {
            qp.postReceive(new ReceiveWorkRequest(1).wrId(i).sge(0, receives, (long) i * RECEIVE_SIZE,
                    RECEIVE_SIZE));
        }
        String from = request.remoteAddress() + (request.enhanced() ? ", enhanced: "
                + Ulpdus.enhanced(request.enhancedData().encode()) : ", unenhanced");
        request.accept(qp, options).whenComplete((connection, failure) -> log.accept(failure == null
                ? "accepted " + from : "accepting " + from + " failed: " + failure.getMessage()));
    }

    @Override
    public void close() {
        listener.close();
    }
}
