package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;
import org.rddp.wire.PrivateData;

/**
 * Small messages posted in one turn of the application leave bundled: usrsctp puts many DATA chunks in one packet
 * (one per message and per packet before, whatever the application posted), and every message still arrives, whole
 * and in order. A message posted alone leaves at once.
 */
class BundlingTest {
    private static final Duration BOUND = Duration.ofSeconds(20);
    private static final int MESSAGES = 64;
    private static final int SIZE = 64;

    @Test
    void sendsPostedInOneTurnShareFewPacketsAndAllArriveInOrder() throws Exception {
        try (Pair pair = new Pair(SIZE * 2L * MESSAGES, EnumSet.of(Access.LOCAL_WRITE))) {
            for (int i = 0; i < 2 * MESSAGES; i++) {
                assertThat(pair.receiver.postReceive(new ReceiveWorkRequest(1).wrId(i)
                        .sge(0, pair.sink, (long) i * SIZE, SIZE))).isEqualTo(PostStatus.OK);
            }
            pair.connect();
            long before = UsrsctpStack.packetsSent();
            for (int i = 0; i < MESSAGES; i++) { // one turn: no poll in between
                assertThat(pair.sender.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkOpcode.SEND)
                        .signaled(true).sge(0, pair.source, (long) i * SIZE, SIZE))).isEqualTo(PostStatus.OK);
            }
            pair.expectSent(0, MESSAGES);
            expectReceived(pair.receivedCq, pair.sink, 0, MESSAGES);
            long packets = UsrsctpStack.packetsSent() - before;
            // each message in a packet of its own would be 64 packets, and about half as many SACKs
            assertThat(packets).as("packets sent, SACKs included, for %d messages", MESSAGES)
                    .isLessThanOrEqualTo(MESSAGES / 4);

            // a Send posted alone leaves at once: the burst left nothing held, nor the stack bundling
            assertThat(pair.sender.postSend(new SendWorkRequest(1).wrId(MESSAGES).opcode(WorkOpcode.SEND)
                    .signaled(true).sge(0, pair.source, (long) MESSAGES * SIZE, SIZE))).isEqualTo(PostStatus.OK);
            pair.expectSent(MESSAGES, 1);
            expectReceived(pair.receivedCq, pair.sink, MESSAGES, 1);
        }
    }

    /**
     * 64 KiB RDMA Writes take two DDP segments each on a 64 KiB path (the message and its headers are more than one
     * packet holds). Posted in one turn, each Write's first segment is cut to fill the packet behind the previous
     * Write's short last one: about one packet per Write, where full first segments took two (and twice the SACKs).
     * The data lands whole, and a Write posted alone still leaves at once.
     */
    @Test
    void longWritesPostedInOneTurnFillTheirPackets() throws Exception {
        int size = 65_536;
        int writes = 16;
        try (Pair pair = new Pair((long) size * (writes + 1), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
            pair.connect();
            long before = UsrsctpStack.packetsSent();
            for (int i = 0; i < writes; i++) { // one turn: no poll in between
                assertThat(pair.sender.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkOpcode.RDMA_WRITE)
                        .signaled(true).sge(0, pair.source, (long) i * size, size)
                        .remote(pair.sink.rkey(), pair.sink.iova() + (long) i * size))).isEqualTo(PostStatus.OK);
            }
            pair.expectSent(0, writes);
            pair.ping(); // the Writes before it are placed (RFC 5040 §5.5: in order)
            long packets = UsrsctpStack.packetsSent() - before;
            // two segments in packets of their own: 2 per Write and a SACK for every second packet, 48 in all
            assertThat(packets).as("packets sent, SACKs and the ping included, for %d Writes of %d octets", writes,
                    size).isLessThanOrEqualTo(2L * writes);
            assertThat(pair.sink.memory().asSlice(0, (long) size * writes).mismatch(
                    pair.source.memory().asSlice(0, (long) size * writes))).isEqualTo(-1);

            assertThat(pair.sender.postSend(new SendWorkRequest(1).wrId(writes).opcode(WorkOpcode.RDMA_WRITE)
                    .signaled(true).sge(0, pair.source, (long) writes * size, size)
                    .remote(pair.sink.rkey(), pair.sink.iova() + (long) writes * size))).isEqualTo(PostStatus.OK);
            pair.expectSent(writes, 1);
            pair.ping();
            assertThat(pair.sink.memory().asSlice((long) writes * size, size).mismatch(
                    pair.source.memory().asSlice((long) writes * size, size))).isEqualTo(-1);
        }
    }

    /** Receive completions {@code from} to {@code from + count - 1}, in order, each holding its message. */
    private static void expectReceived(CompletionQueue cq, MemoryRegion sink, int from, int count) {
        for (int i = from; i < from + count; i++) {
            WorkCompletion received = poll(cq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(received.wrId()).as("in order").isEqualTo(i);
            assertThat(received.byteLength()).isEqualTo(SIZE);
            assertThat(sink.memory().asSlice((long) i * SIZE, SIZE).toArray(ValueLayout.JAVA_BYTE))
                    .containsOnly((byte) i);
        }
    }

    /** The next completion of {@code cq}, polling (which drives the calling thread's manual loops). */
    private static WorkCompletion poll(CompletionQueue cq) {
        return CompletionPolling.next(cq, BOUND);
    }
    /**
     * A sender with a manual loop (driven by this thread's polls) connected to a receiver with its own thread, over
     * usrsctp over UDP on loopback: a source region of patterned octets and a sink region as large.
     */
    private static final class Pair implements AutoCloseable {
        final RdmaDevice device = new RdmaDevice("bundling");
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), TestPorts.next());
        final SctpConnectionManager responder;
        final SctpConnectionManager initiator;
        final CompletionQueue receivedCq = device.createCompletionQueue(4 * MESSAGES);
        final CompletionQueue sentCq = device.createCompletionQueue(4 * MESSAGES);
        final QueuePair receiver = pd.createQueuePair(QpAttributes.of(receivedCq, 2 * MESSAGES, 1));
        final QueuePair sender = pd.createQueuePair(QpAttributes.of(sentCq, 2 * MESSAGES, 1));
        final MemoryRegion sink;
        final MemoryRegion source;
        private Listener listener;
        private long pings;

        Pair(long bytes, EnumSet<Access> sinkAccess) throws java.io.IOException {
            sink = pd.register(Arena.ofAuto().allocate(bytes), sinkAccess);
            MemorySegment octets = Arena.ofAuto().allocate(bytes);
            for (long i = 0; i < bytes; i += SIZE) {
                octets.asSlice(i, Math.min(SIZE, bytes - i)).fill((byte) (i / SIZE));
            }
            source = pd.register(octets, EnumSet.noneOf(Access.class));
            responder = new SctpConnectionManager(UsrsctpStack.udp(), address.getAddress(), ChunkTap.NONE,
                    Progress.automatic());
            initiator = new SctpConnectionManager(UsrsctpStack.udp(), address.getAddress(), ChunkTap.NONE,
                    Progress.manual());
        }

        void connect() throws Exception {
            CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
            listener = responder.listen(address, requested::complete);
            CompletableFuture<?> connected = initiator.connect(sender, address,
                    new ConnectOptions(PrivateData.EMPTY, false, 1, 1, false, java.util.Set.of(), BOUND));
            ConnectionRequest request = Loop.joinOwned(requested, BOUND);
            request.accept(receiver, new AcceptOptions(PrivateData.EMPTY, 1, 1));
            Loop.joinOwned(connected, BOUND);
        }

        /** Send completions {@code from} to {@code from + count - 1}, in order, each a success. */
        void expectSent(int from, int count) {
            for (int i = from; i < from + count; i++) {
                WorkCompletion sent = poll(sentCq);
                assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
                assertThat(sent.wrId()).isEqualTo(i);
            }
        }

        /** A zero-length Send, received: everything sent before it is placed (RFC 5040 §5.5). */
        void ping() {
            long id = -1 - pings++;
            assertThat(receiver.postReceive(new ReceiveWorkRequest(1).wrId(id).noSge())).isEqualTo(PostStatus.OK);
            assertThat(sender.postSend(new SendWorkRequest(1).wrId(id).opcode(WorkOpcode.SEND).signaled(true).noSge()))
                    .isEqualTo(PostStatus.OK);
            assertThat(poll(sentCq).wrId()).isEqualTo(id);
            WorkCompletion received = poll(receivedCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.wrId()).isEqualTo(id);
        }

        @Override
        public void close() {
            if (listener != null) {
                listener.close();
            }
            initiator.close();
            responder.close();
        }
    }
}
