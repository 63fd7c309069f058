package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.work.QpState;
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
 * A responder that sends the moment it has accepted: its Accept and its first DDP segment reach an initiator that
 * is not looking, so that one read of the initiator's socket takes both. The Accept starts the queue pair's engine on
 * the initiator's loop, after the read; the segment behind it must wait for it, not end the session as "a DDP
 * segment before its queue pair took it" (seen as an EXS connection lost right after it was made, about one run in
 * twenty of {@code rddp exs-lat -t sctp}).
 */
class FirstSegmentBehindAcceptTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    @RepeatedTest(5)
    void theSegmentRightBehindTheAcceptReachesTheQueuePair() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, TestPorts.next());
        RdmaDevice device = new RdmaDevice("behind-accept");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Void> requestArrived = new CompletableFuture<>();
        CompletableFuture<Void> sent = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        // the responder on a thread of its own, driving its own manual loop: it accepts and sends at once
        Thread responderThread = Thread.ofPlatform().name("responder").start(() -> {
            try (SctpConnectionManager responder = new SctpConnectionManager(UsrsctpStack.udp(), loopback,
                    ChunkTap.NONE, Progress.manual())) {
                CompletionQueue cq = device.createCompletionQueue(16);
                QueuePair sender = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
                MemoryRegion source = pd.register(Arena.ofAuto().allocate(64).fill((byte) 0x5C),
                        EnumSet.noneOf(Access.class));
                CompletableFuture<ConnectionRequest> requested = new CompletableFuture<>();
                try (Listener listener = responder.listen(address, requested::complete)) {
                    listening.complete(null);
                    ConnectionRequest request = Loop.joinOwned(requested, BOUND);
                    requestArrived.complete(null);
                    Loop.joinOwned(request.accept(sender, new AcceptOptions(PrivateData.EMPTY, 1, 1)), BOUND);
                    assertThat(sender.postSend(new SendWorkRequest(1).wrId(1).opcode(WorkOpcode.SEND)
                            .signaled(true).sge(0, source, 0, 64))).isEqualTo(PostStatus.OK);
                    assertThat(poll(cq).status()).isEqualTo(WcStatus.SUCCESS);
                    sent.complete(null);
                    Loop.joinOwned(done, BOUND); // keeps answering until the initiator is done
                }
            } catch (Exception | AssertionError e) {
                listening.completeExceptionally(e);
                requestArrived.completeExceptionally(e);
                sent.completeExceptionally(e);
            }
        });
        try (SctpConnectionManager initiator = new SctpConnectionManager(UsrsctpStack.udp(), loopback,
                ChunkTap.NONE, Progress.manual())) {
            CompletionQueue cq = device.createCompletionQueue(16);
            QueuePair receiver = pd.createQueuePair(QpAttributes.of(cq, 4, 4));
            MemoryRegion sink = pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.LOCAL_WRITE));
            assertThat(receiver.postReceive(new ReceiveWorkRequest(1).wrId(7).sge(0, sink, 0, 64)))
                    .isEqualTo(PostStatus.OK);
            listening.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            CompletableFuture<Connection> connected = initiator.connect(receiver, address,
                    new ConnectOptions(PrivateData.EMPTY, false, 1, 1, false, java.util.Set.of(), BOUND));
            Loop.joinOwned(requestArrived, BOUND); // drives this side until the Initiate is there
            // this side stops looking while the responder accepts and sends: its Accept and Send wait here
            sent.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            Loop.joinOwned(connected, BOUND);
            WorkCompletion received = poll(cq);
            assertThat(received.status()).as("the responder's first Send").isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(received.byteLength()).isEqualTo(64);
            assertThat(sink.memory().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly((byte) 0x5C);
            assertThat(receiver.state()).isEqualTo(QpState.RTS);
        } finally {
            done.complete(null);
            responderThread.join(BOUND.toMillis());
        }
    }

    /** The next completion of {@code cq}, polling (which drives the calling thread's manual loops). */
    private static WorkCompletion poll(CompletionQueue cq) {
        return CompletionPolling.next(cq, BOUND);
    }
}
