package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.engine.WcStatus;
import org.rddp.engine.WorkOpcode;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * A consumer polling a completion queue reads the association itself, and the association's owner thread is not
 * woken for each message meanwhile. The reading goes back to the owner thread at once when the consumer sleeps on
 * the queue, and after a grace period when it just stops polling: what arrives is still delivered, and a Read
 * Request still answered, with nobody polling.
 */
class PollingConsumerTest {
    private static final long WAIT_SECONDS = 20;

    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final RdmaDevice device = new RdmaDevice("polling");
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue initiatorCq = device.createCompletionQueue(64);
    private final CompletionQueue responderCq = device.createCompletionQueue(64);
    private final QueuePair initiator = pd.createQueuePair(QpAttributes.of(initiatorCq, 16, 1));
    private final QueuePair responder = pd.createQueuePair(QpAttributes.of(responderCq, 16, 1));
    private final WorkCompletion completion = new WorkCompletion();
    private SctpConnectionManager server;
    private SctpConnectionManager client;
    private Listener listener;

    @BeforeEach
    void connect() throws Exception {
        server = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
        client = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
        InetSocketAddress address = new InetSocketAddress(loopback, TestPorts.next());
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        listener = server.listen(address, request -> request.accept(responder,
                new AcceptOptions(PrivateData.EMPTY, 1, 1)).whenComplete((connection, failure) -> {
                    if (failure == null) {
                        accepted.complete(null);
                    } else {
                        accepted.completeExceptionally(failure);
                    }
                }));
        client.connect(initiator, address, ConnectOptions.of(1, 1)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        accepted.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        listener.close();
        client.close();
        server.close();
    }

    @Test
    void aConsumerThatSleepsOnTheQueueHandsTheReadingBackToTheOwnerThread() throws Exception {
        MemoryRegion sink = region(64, Access.LOCAL_WRITE);
        assertThat(responder.postReceive(new ReceiveWorkRequest(1).wrId(7).sge(0, sink, 0, 64)))
                .isEqualTo(PostStatus.OK);
        assertThat(responderCq.poll(completion)).isFalse(); // an empty poll: the consumer reads for now
        assertThat(association(responder).dormant()).as("the consumer reads while it polls").isTrue();
        responderCq.requestNotification(false);
        assertThat(responderCq.awaitNotification(Duration.ZERO)).isFalse();
        assertThat(association(responder).dormant()).as("the owner thread reads once the consumer sleeps")
                .isFalse();
        MemoryRegion source = region(64, Access.LOCAL_WRITE);
        source.memory().fill((byte) 0x5A);
        assertThat(initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(1).sge(0, source, 0, 64)))
                .isEqualTo(PostStatus.OK);
        assertThat(responderCq.awaitNotification(Duration.ofSeconds(WAIT_SECONDS)))
                .as("the Send, read by the owner thread while nobody polls").isTrue();
        assertThat(responderCq.poll(completion)).isTrue();
        assertThat(completion.wrId()).isEqualTo(7);
        assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(sink.memory().mismatch(source.memory())).isEqualTo(-1);
    }

    @Test
    void aConsumerThatStopsPollingWithoutSayingSoStillHasItsReadRequestsAnswered() throws Exception {
        MemoryRegion readable = region(4096, Access.REMOTE_READ);
        for (int i = 0; i < 4096; i++) {
            readable.memory().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
        assertThat(responderCq.poll(completion)).isFalse(); // the responder's consumer looks once, then goes
        assertThat(association(responder).dormant()).isTrue();
        MemoryRegion sink = region(4096, Access.LOCAL_WRITE);
        for (int round = 0; round < 3; round++) {
            sink.memory().fill((byte) 0);
            assertThat(initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).wrId(round)
                    .remote(readable.rkey(), 0).sge(0, sink, 0, 4096))).isEqualTo(PostStatus.OK);
            awaitCompletion(initiatorCq);
            assertThat(completion.status()).as("round %d", round).isEqualTo(WcStatus.SUCCESS);
            assertThat(completion.wrId()).isEqualTo(round);
            assertThat(sink.memory().mismatch(readable.memory())).isEqualTo(-1);
        }
    }

    private MemoryRegion region(long size, Access... access) {
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        set.addAll(java.util.List.of(access));
        return pd.register(Arena.ofAuto().allocate(size, 8), set);
    }

    private static DdpAssociation association(QueuePair qp) {
        return ((DdpAssociation.Session) qp.stream()).association();
    }

    private void awaitCompletion(CompletionQueue cq) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!cq.poll(completion)) {
            cq.requestNotification(false);
            if (cq.poll(completion)) {
                return;
            }
            assertThat(System.nanoTime()).as("a completion within %d s", WAIT_SECONDS).isLessThan(deadline);
            cq.awaitNotification(Duration.ofMillis(100));
        }
    }
}
