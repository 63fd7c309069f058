package org.rddp.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.Transports;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;

/**
 * RDMA Write 4,096 octets into a peer's memory, then RDMA Read them back, over the transport named on the command
 * line: {@code mpa} (TCP/MPA) or {@code sctp}. Both sides run in this process, on loopback: the passive side only
 * lends memory (a Write and a Read need none of its CPU), the active side does the work and polls its completions.
 * The README's first program is the part between the {@code readme:verbs} comments.
 */
public final class WriteAndRead {
    /** Octets written and read back. */
    public static final int SIZE = 4096;

    private WriteAndRead() {
    }

    /**
     * What a run did.
     *
     * @param transport   the transport it ran over
     * @param written     octets the RDMA Write's completion counted
     * @param read        octets the RDMA Read's completion counted
     * @param completions work completions polled: one per work request, the first two checked to be the Write's
     *                    and the Read's, each a success
     * @param verified    whether the peer's memory, and what came back from it, hold every octet written
     */
    public record Result(String transport, long written, long read, int completions, boolean verified) {
    }

    /** {@code WriteAndRead [mpa|sctp]}: runs it and prints what it did. */
    public static void main(String[] args) throws Exception {
        System.out.println(run(args.length > 0 ? args[0] : "mpa"));
    }

    /** Writes {@link #SIZE} octets to the peer over {@code transport} and reads them back. */
    @SuppressWarnings("checkstyle:LeftCurly") // poll loops on one line, as the README has them
    public static Result run(String transport) throws Exception {
        InetAddress local = InetAddress.getLoopbackAddress();
        // memory outlives its registration and the connections that reach it: the arena is closed last
        try (Arena arena = Arena.ofShared();
                ConnectionManager passive = Transports.open(transport, local)) { // a loop thread of its own
            // The passive side: memory the peer may write and read, and a queue pair for the peer's request.
            ProtectionDomain serverPd = new RdmaDevice("server").allocateProtectionDomain();
            MemoryRegion lent = serverPd.register(arena.allocate(SIZE),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            QueuePair serverQp = serverPd.createQueuePair(
                    QpAttributes.of(serverPd.device().createCompletionQueue(16), 16, 1));
            // port 0: the system picks one; the listener stops when its manager closes
            InetSocketAddress server = (InetSocketAddress) passive.listen(new InetSocketAddress(local, 0),
                    request -> request.accept(serverQp, new AcceptOptions(PrivateData.EMPTY, 4, 4))).address();
            // what a real server tells its client, in the private data or a Send: the STag and the first TO
            int rkey = lent.rkey();
            long to = 0; // registered regions are zero-based: TO 0 is the region's first octet
            MemorySegment segment = arena.allocate(SIZE);
            for (int i = 0; i < SIZE; i++) {
                segment.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7)); // a pattern: a misplaced octet shows
            }
            MemorySegment expected = arena.allocate(SIZE).copyFrom(segment);

            // The active side: the README's first program.
            // readme:verbs:begin
            RdmaDevice device = new RdmaDevice("rddp0");
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue cq = device.createCompletionQueue(256);
            QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 64, 4));
            MemoryRegion mr = pd.register(segment, EnumSet.of(Access.LOCAL_WRITE)); // an RDMA Read may land here
            // this thread drives the manager's loop (Progress.automatic() would give it a thread of its own)
            ConnectionManager cm = Transports.open(transport, local, Progress.manual()); // "mpa" or "sctp"
            Loop.joinOwned(cm.connect(qp, server, ConnectOptions.of(4, 4)), Duration.ofSeconds(10));
            qp.postSend(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).sge(0, mr, 0, 4096).remote(rkey, to));
            WorkCompletion wc = new WorkCompletion();
            while (!cq.poll(wc)) { Thread.onSpinWait(); } // each empty poll runs the loop: this thread reads its socket
            // readme:verbs:end
            try {
                long written = expect(wc, WcOpcode.RDMA_WRITE);
                // Clear our buffer, then read the peer's region back into it: behind the Write on the same stream,
                // the Read gets what the Write placed (RFC 5040 §5.5, rule 12: data written can be read back).
                segment.fill((byte) 0);
                qp.postSend(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).sge(0, mr, 0, SIZE).remote(rkey, to));
                while (!cq.poll(wc)) { Thread.onSpinWait(); }
                long read = expect(wc, WcOpcode.RDMA_READ);
                int completions = 2;
                while (cq.poll(wc)) { completions++; } // none more: one completion per work request
                boolean verified = segment.mismatch(expected) == -1 && lent.memory().mismatch(expected) == -1;
                return new Result(transport, written, read, completions, verified);
            } finally {
                cm.close(); // ends its connection; the passive manager closes as the try ends
                mr.deregister();
                lent.deregister();
            }
        }
    }

    /** The completion's octets, after checking it is a success of {@code opcode}. */
    private static long expect(WorkCompletion wc, WcOpcode opcode) {
        if (wc.status() != WcStatus.SUCCESS || wc.opcode() != opcode) {
            throw new IllegalStateException("expected a successful " + opcode + ", got " + wc);
        }
        return wc.byteLength();
    }
}
