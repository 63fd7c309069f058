package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.RdmaDevice;

/**
 * Issue 34: multi-homing where this machine can show it. usrsctp runs here over AF_CONN, whose addresses cannot be put
 * in an INIT (RFC 9260 §3.3.2 carries IPv4 and IPv6 ones), so its associations have one path: a manager asked to
 * bind more is refused saying so, when it listens and when it connects. Kernel SCTP's failover runs in the VM
 * ({@code MultihomingVmTest}).
 */
class MultihomingTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void usrsctpCarriesOnePathAndSaysSoWhenAskedForMore() throws Exception {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        RdmaDevice device = new RdmaDevice("multihoming");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(16);
        try (SctpConnectionManager manager = new SctpConnectionManager(UsrsctpStack.udp(), List.of(LOOPBACK, other),
                ChunkTap.NONE, Progress.automatic(), SctpLimits.defaults(), ProtocolParameters.defaults())) {
            assertThatThrownBy(() -> manager.listen(new InetSocketAddress(LOOPBACK, TestPorts.next()), request -> { }))
                    .hasMessageContaining("one path per association").hasMessageContaining("kernel SCTP");
            Throwable failure = null;
            try {
                manager.connect(pd.createQueuePair(QpAttributes.of(cq, 4, 1)),
                        new InetSocketAddress(LOOPBACK, TestPorts.next()), ConnectOptions.of(1, 1))
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            assertThat(failure).as("the connect failed").isNotNull();
            assertThat(failure).hasMessageContaining("one path per association");
        }
    }

    /**
     * On {@code stack} (kernel SCTP, in the VM: {@code KernelSctpGuestSuite}): both ends bind 127.0.0.1 and 127.0.0.2;
     * the initiator's queue pair sees two active paths to the responder, the primary the one it connected to; it makes
     * the other primary, the stack says so, and a Send still crosses; a path it does not have is refused.
     */
    static void twoPathsAndAChosenPrimary(SctpStack stack) throws Exception {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        RdmaDevice device = new RdmaDevice("multihoming");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(16);
        org.rddp.verbs.MemoryRegion buffer = pd.register(java.lang.foreign.Arena.ofAuto().allocate(128),
                java.util.EnumSet.of(org.rddp.verbs.Access.LOCAL_WRITE));
        java.util.concurrent.CompletableFuture<org.rddp.verbs.QueuePair> accepted =
                new java.util.concurrent.CompletableFuture<>();
        try (SctpConnectionManager initiator = new SctpConnectionManager(stack, List.of(LOOPBACK, other),
                ChunkTap.NONE, Progress.automatic(), SctpLimits.defaults(), ProtocolParameters.defaults());
                SctpConnectionManager responder = new SctpConnectionManager(stack, List.of(LOOPBACK, other),
                        ChunkTap.NONE, Progress.automatic(), SctpLimits.defaults(), ProtocolParameters.defaults());
                org.rddp.verbs.Listener listener = responder.listen(new InetSocketAddress(LOOPBACK,
                        TestPorts.next()), request -> {
                            org.rddp.verbs.QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
                            org.rddp.verbs.ReceiveWorkRequest receive = new org.rddp.verbs.ReceiveWorkRequest(1);
                            qp.postReceive(receive.wrId(1).sge(0, buffer, 64, 64));
                            request.accept(qp, new org.rddp.verbs.AcceptOptions(org.rddp.wire.PrivateData.EMPTY, 1, 1))
                                    .thenRun(() -> accepted.complete(qp));
                        })) {
            org.rddp.verbs.QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
            initiator.connect(qp, listener.address(), ConnectOptions.of(1, 1)).get(30, TimeUnit.SECONDS);
            accepted.get(30, TimeUnit.SECONDS);
            int port = ((InetSocketAddress) listener.address()).getPort();
            InetSocketAddress first = new InetSocketAddress(LOOPBACK, port);
            InetSocketAddress second = new InetSocketAddress(other, port);
            List<org.rddp.llp.LlpPath> paths = qp.paths().get(10, TimeUnit.SECONDS);
            assertThat(paths).extracting(org.rddp.llp.LlpPath::address).containsExactlyInAnyOrder(first, second);
            assertThat(paths).filteredOn(org.rddp.llp.LlpPath::primary).extracting(org.rddp.llp.LlpPath::address)
                    .as("the address connected to is the primary path").containsExactly(first);

            qp.choosePrimaryPath(second).get(10, TimeUnit.SECONDS);
            paths = qp.paths().get(10, TimeUnit.SECONDS);
            assertThat(paths).filteredOn(org.rddp.llp.LlpPath::primary).extracting(org.rddp.llp.LlpPath::address)
                    .as("the stack's primary path now").containsExactly(second);
            Throwable refused = null;
            try {
                qp.choosePrimaryPath(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), port))
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                refused = e.getCause();
            }
            assertThat(refused).as("a path the association lacks").isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("no path to");

            org.rddp.verbs.SendWorkRequest send = new org.rddp.verbs.SendWorkRequest(1)
                    .opcode(org.rddp.work.WorkOpcode.SEND).signaled(true).wrId(2).sge(0, buffer, 0, 64);
            assertThat(qp.postSend(send)).isEqualTo(org.rddp.verbs.PostStatus.OK);
            java.util.Set<Long> done = new java.util.HashSet<>();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            org.rddp.verbs.WorkCompletion completion = new org.rddp.verbs.WorkCompletion();
            while (done.size() < 2 && System.nanoTime() < until) {
                if (!cq.poll(completion)) {
                    Thread.onSpinWait();
                    continue;
                }
                assertThat(completion.status()).isEqualTo(org.rddp.work.WcStatus.SUCCESS);
                done.add(completion.wrId());
            }
            assertThat(done).as("the Send and its receive, over the chosen path").containsExactlyInAnyOrder(1L, 2L);
        }
    }
}
