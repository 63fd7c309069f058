package org.rddp.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * The SCTP checks against this stack's own DDP over SCTP, on usrsctp (and over the kernel's SCTP in the VM:
 * {@code KernelSctpChecksGuestSuite}).
 */
class SctpChecksTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** The stack both sides run on. */
    SctpStack stack() throws java.io.IOException {
        return UsrsctpStack.udp();
    }

    @Test
    void ourActiveSidePassesEveryResponderCheck() throws Exception {
        SctpResponderChecks checks = new SctpResponderChecks(stack(), new InetSocketAddress(LOOPBACK, 0),
                Duration.ofSeconds(10), Duration.ofSeconds(3));
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<List<Verdict>> verdicts = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                verdicts.complete(checks.run(bound::complete, System.out::println));
            } catch (java.io.IOException | InterruptedException e) {
                verdicts.completeExceptionally(e);
            }
        });
        ProtectionDomain pd = new RdmaDevice("initiator").allocateProtectionDomain();
        CompletionQueue cq = pd.device().createCompletionQueue(64);
        try (SctpConnectionManager manager = new SctpConnectionManager(stack(), LOOPBACK)) {
            InetSocketAddress address = bound.get(10, TimeUnit.SECONDS);
            List<String> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < SctpResponderChecks.CASES; i++) {
                QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
                try {
                    manager.connect(qp, address, new ConnectOptions(PrivateData.EMPTY, true, 16, 16, false, Set.of(),
                            Duration.ofSeconds(10))).get(20, TimeUnit.SECONDS);
                    outcomes.add("connected");
                } catch (ExecutionException e) {
                    outcomes.add(e.getCause().getMessage());
                }
            }
            assertThat(verdicts.get(60, TimeUnit.SECONDS)).as(outcomes.toString()).hasSize(SctpResponderChecks.CASES)
                    .allSatisfy(verdict -> assertThat(verdict.outcome()).as(verdict.toString())
                            .isEqualTo(Verdict.Outcome.PASS));
        }
    }

    @Test
    void ourPassiveSidePassesEveryInitiatorCheck() throws Exception {
        try (SctpConnectionManager manager = new SctpConnectionManager(stack(), LOOPBACK);
                AcceptingResponder responder = new AcceptingResponder(manager, new InetSocketAddress(LOOPBACK, 0),
                        new AcceptOptions(PrivateData.EMPTY, 16, 16), line -> { })) {
            List<Verdict> verdicts = new SctpInitiatorChecks(stack(), new InetSocketAddress(LOOPBACK, 0),
                    (InetSocketAddress) responder.address(), Duration.ofSeconds(3)).run(System.out::println);
            assertThat(verdicts).hasSize(19).allSatisfy(verdict -> assertThat(verdict.outcome())
                    .as(verdict.toString()).isEqualTo(Verdict.Outcome.PASS));
        }
    }
}
