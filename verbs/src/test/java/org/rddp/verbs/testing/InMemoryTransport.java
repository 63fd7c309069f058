package org.rddp.verbs.testing;

import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.loop.Progress;


/** The in-memory LLP as a {@link TransportFixture}. */
public final class InMemoryTransport implements TransportFixture {
    private static final AtomicInteger ADDRESSES = new AtomicInteger();

    private final InMemoryConnectionManager initiator;
    private final InMemoryConnectionManager responder;
    private final int mulpdu;

    /** Two managers on two owner threads, streams of {@code mulpdu} with {@code capacity} segments in flight. */
    public InMemoryTransport(int mulpdu, int capacity) {
        this(mulpdu, capacity, Progress.automatic());
    }

    /** As above, both managers' loops driven as {@code progress} says (manual: by the calling thread). */
    public InMemoryTransport(int mulpdu, int capacity, Progress progress) {
        this.mulpdu = mulpdu;
        this.initiator = new InMemoryConnectionManager("initiator-loop", mulpdu, capacity, progress);
        this.responder = new InMemoryConnectionManager("responder-loop", mulpdu, capacity, progress);
    }

    @Override
    public InMemoryConnectionManager initiator() {
        return initiator;
    }

    @Override
    public InMemoryConnectionManager responder() {
        return responder;
    }

    @Override
    public SocketAddress nextAddress() {
        return new InMemoryConnectionManager.Address("listener-" + ADDRESSES.incrementAndGet());
    }

    @Override
    public int mulpdu() {
        return mulpdu;
    }

    @Override
    public void close() {
        Throwable failure = initiator.loop().failure() != null ? initiator.loop().failure()
                : responder.loop().failure();
        initiator.close();
        responder.close();
        if (failure != null) {
            throw new AssertionError("a task on an owner thread threw", failure);
        }
    }

    /** An in-memory pair has no network path. */
    @Override
    public boolean tellsPaths() {
        return false;
    }
}
