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
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.WorkOpcode;
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
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, TestPorts.next());
        RdmaDevice device = new RdmaDevice("bundling");
        ProtectionDomain pd = device.allocateProtectionDomain();
        try (SctpConnectionManager responder = new SctpConnectionManager(UsrsctpStack.udp(), loopback,
                ChunkTap.NONE, Progress.automatic());
                SctpConnectionManager initiator = new SctpConnectionManager(UsrsctpStack.udp(), loopback,
                        ChunkTap.NONE, Progress.manual())) {
            CompletionQueue receivedCq = device.createCompletionQueue(2 * MESSAGES);
            QueuePair receiver = pd.createQueuePair(QpAttributes.of(receivedCq, 2 * MESSAGES, 1));
            MemoryRegion sink = pd.register(Arena.ofAuto().allocate((long) SIZE * 2 * MESSAGES),
                    EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < 2 * MESSAGES; i++) {
                assertThat(receiver.postReceive(new ReceiveWorkRequest(1).wrId(i).sge(0, sink, (long) i * SIZE,
                        SIZE))).isEqualTo(PostStatus.OK);
            }
            CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
            try (Listener listener = responder.listen(address, requested::complete)) {
                CompletionQueue sentCq = device.createCompletionQueue(2 * MESSAGES);
                QueuePair sender = pd.createQueuePair(QpAttributes.of(sentCq, 2 * MESSAGES, 1));
                MemorySegment octets = Arena.ofAuto().allocate((long) SIZE * 2 * MESSAGES);
                for (int i = 0; i < 2 * MESSAGES; i++) {
                    octets.asSlice((long) i * SIZE, SIZE).fill((byte) i);
                }
                MemoryRegion source = pd.register(octets, EnumSet.noneOf(Access.class));
                CompletableFuture<?> connected = initiator.connect(sender, address,
                        new ConnectOptions(PrivateData.EMPTY, false, 1, 1, false, java.util.Set.of(), BOUND));
                ConnectionRequest request = Loop.joinOwned(requested, BOUND);
                request.accept(receiver, new AcceptOptions(PrivateData.EMPTY, 1, 1));
                Loop.joinOwned(connected, BOUND);

                long before = UsrsctpStack.packetsSent();
                for (int i = 0; i < MESSAGES; i++) { // one turn: no poll in between
                    assertThat(sender.postSend(new SendWorkRequest(1).wrId(i).opcode(WorkOpcode.SEND)
                            .signaled(true).sge(0, source, (long) i * SIZE, SIZE))).isEqualTo(PostStatus.OK);
                }
                for (int i = 0; i < MESSAGES; i++) {
                    WorkCompletion sent = poll(sentCq);
                    assertThat(sent.status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(sent.wrId()).isEqualTo(i);
                }
                expectReceived(receivedCq, sink, 0, MESSAGES);
                long packets = UsrsctpStack.packetsSent() - before;
                // each message in a packet of its own would be 64 packets, and about half as many SACKs
                assertThat(packets).as("packets sent, SACKs included, for %d messages", MESSAGES)
                        .isLessThanOrEqualTo(MESSAGES / 4);

                // a Send posted alone leaves at once: the burst left nothing held, nor the stack bundling
                assertThat(sender.postSend(new SendWorkRequest(1).wrId(MESSAGES).opcode(WorkOpcode.SEND)
                        .signaled(true).sge(0, source, (long) MESSAGES * SIZE, SIZE))).isEqualTo(PostStatus.OK);
                assertThat(poll(sentCq).wrId()).isEqualTo(MESSAGES);
                expectReceived(receivedCq, sink, MESSAGES, 1);
            }
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
}
