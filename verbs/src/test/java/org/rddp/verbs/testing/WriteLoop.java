package org.rddp.verbs.testing;

import org.rddp.work.WorkOpcode;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.SendWorkRequest;

/**
 * Two queue pairs connected over the in-memory LLP, with a ready-made RDMA Write request: the post/poll cycle
 * the allocation test and the JMH benchmark measure.
 */
public final class WriteLoop implements AutoCloseable {
    private final InMemoryTransport transport;
    final Peers peers;
    private final SendWorkRequest write;

    private WriteLoop(InMemoryTransport transport, Peers peers, SendWorkRequest write) {
        this.transport = transport;
        this.peers = peers;
        this.write = write;
    }

    /** Connects two queue pairs and prepares a Write of {@code size} octets (at most 4096). */
    public static WriteLoop connect(int size) throws Exception {
        InMemoryTransport transport = new InMemoryTransport(4096, 64);
        Peers peers = new Peers(transport, 64);
        MemoryRegion sink = peers.responder.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        peers.connect(1, 1);
        MemoryRegion source = peers.initiator.region(4096);
        SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(1)
                .remote(sink.rkey(), 0).sge(0, source, 0, size);
        return new WriteLoop(transport, peers, write);
    }

    /** The initiator's queue pair. */
    public QueuePair queuePair() {
        return peers.initiator.qp;
    }

    /** The initiator's completion queue. */
    public CompletionQueue completionQueue() {
        return peers.initiator.cq;
    }

    /** The Write to post. */
    public SendWorkRequest write() {
        return write;
    }

    @Override
    public void close() {
        peers.close();
        transport.close();
    }
}
