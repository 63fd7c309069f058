package org.rddp.exs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * A peer that speaks verbs, not EXS: it connects to an EXS listener with a hello of its choosing, then sends
 * whatever octets a test gives it, and exposes a readable block for advertisements to name.
 */
final class RawPeer {
    static final int RECEIVES = 16;
    static final int BUFFER = 4096;

    final QueuePair qp;
    final CompletionQueue cq;
    final MemoryRegion block;
    final MemoryRegion sink;
    private final MemoryRegion out;
    private final MemoryRegion in;
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private int sent;

    private RawPeer(QueuePair qp, CompletionQueue cq, ProtectionDomain pd) {
        this.qp = qp;
        this.cq = cq;
        this.out = pd.register(Arena.ofAuto().allocate((long) RECEIVES * BUFFER), EnumSet.noneOf(Access.class));
        this.in = pd.register(Arena.ofAuto().allocate((long) RECEIVES * BUFFER), EnumSet.of(Access.LOCAL_WRITE));
        this.block = pd.register(ExsSuite.pattern(BUFFER, 99), EnumSet.of(Access.REMOTE_READ));
        this.sink = pd.register(Arena.ofAuto().allocate(BUFFER), EnumSet.of(Access.LOCAL_WRITE));
        for (int i = 0; i < RECEIVES; i++) {
            repost(i);
        }
    }

    /** Connects to the EXS listener at {@code address} over {@code manager}, saying {@code hello}. */
    static RawPeer connect(ConnectionManager manager, SocketAddress address, byte[] hello) throws Exception {
        RdmaDevice device = new RdmaDevice("raw-peer");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(256);
        QueuePair qp = pd.createQueuePair(new QpAttributes(cq, cq, null, 64, RECEIVES, 1, true, null));
        RawPeer peer = new RawPeer(qp, cq, pd);
        // a thread that drives manual loops runs them while it waits
        org.rddp.loop.Loop.joinOwned(manager.connect(qp, address, new ConnectOptions(
                org.rddp.wire.PrivateData.of(hello), true, 4, 4, false, Set.of(), Duration.ofSeconds(10))),
                Duration.ofSeconds(10));
        return peer;
    }

    /** A valid hello: {@code credits} slots, {@code immediate} octets. */
    static byte[] hello(int credits, int immediate) {
        return new ExsHello(credits, immediate).encode().toByteArray();
    }

    /** Sends {@code octets} as one message, from the next of {@value #RECEIVES} buffers; returns the post's status. */
    int send(byte[] octets) {
        long at = (long) (sent++ % RECEIVES) * BUFFER;
        MemorySegment.copy(MemorySegment.ofArray(octets), 0, out.memory(), at, octets.length);
        return qp.postSend(send.wrId(1).opcode(WorkOpcode.SEND).signaled(true).sge(0, out, at, octets.length));
    }

    /** Reads {@code length} octets at {@code stag}/{@code to} of the EXS side into {@link #sink}. */
    int read(int stag, long to, int length) {
        return qp.postSend(send.wrId(2).opcode(WorkOpcode.RDMA_READ).signaled(true).sge(0, sink, 0, length)
                .remote(stag, to));
    }

    /** An advertisement of {@code length} octets of {@code stag}, as an EXS sender would write it. */
    static byte[] advertisement(int flags, int sequence, int length, int stag, long to, long placement) {
        byte[] octets = new byte[ExsMessage.ADVERTISEMENT_LENGTH];
        new ExsMessage.Advertisement(flags, sequence, length, stag, to, placement)
                .encode(MemorySegment.ofArray(octets), 0);
        return octets;
    }

    /** The next completion there is now, or null. */
    WorkCompletion poll() {
        WorkCompletion completion = new WorkCompletion();
        if (!cq.poll(completion)) {
            return null;
        }
        if (completion.opcode() == WcOpcode.RECV && completion.status() == org.rddp.work.WcStatus.SUCCESS) {
            repost((int) completion.wrId());
        }
        return completion;
    }

    /** The next completion within {@code bound}, or null. */
    WorkCompletion next(Duration bound) throws InterruptedException {
        WorkCompletion completion = new WorkCompletion();
        long deadline = System.nanoTime() + bound.toNanos();
        while (!cq.poll(completion)) {
            cq.requestNotification(false);
            if (cq.poll(completion)) {
                break;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            cq.awaitNotification(Duration.ofNanos(left));
        }
        if (completion.opcode() == WcOpcode.RECV && completion.status() == org.rddp.work.WcStatus.SUCCESS) {
            repost((int) completion.wrId());
        }
        return completion;
    }

    /** The octets of the last received message in receive buffer {@code index}. */
    MemorySegment received(WorkCompletion completion) {
        return in.memory().asSlice(completion.wrId() * BUFFER, completion.byteLength());
    }

    private void repost(int index) {
        int status = qp.postReceive(receive.wrId(index).sge(0, in, (long) index * BUFFER, BUFFER));
        if (status != PostStatus.OK && status != PostStatus.NOT_RTS) {
            throw new AssertionError("a receive could not be posted: " + PostStatus.name(status));
        }
    }
}
