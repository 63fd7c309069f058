package org.rddp.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.rdmap.RtrType;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/** The MPA checks against this stack's own MPA. */
class MpaChecksTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void ourInitiatorPassesEveryResponderCheck() throws Exception {
        MpaResponderChecks checks = new MpaResponderChecks(new InetSocketAddress(LOOPBACK, 0), Duration.ofSeconds(10),
                Duration.ofSeconds(3));
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        CompletableFuture<List<Verdict>> verdicts = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                verdicts.complete(checks.run(bound::complete, verdict -> System.out.println(verdict)));
            } catch (java.io.IOException e) {
                verdicts.completeExceptionally(e);
            }
        });
        ProtectionDomain pd = new RdmaDevice("initiator").allocateProtectionDomain();
        CompletionQueue cq = pd.device().createCompletionQueue(64);
        // peer-to-peer with the Write RTR only, so that the no-RTR case applies
        try (MpaConnectionManager manager = new MpaConnectionManager(MpaOptions.defaults()
                .withPeerToPeer(RtrType.WRITE), LOOPBACK)) {
            InetSocketAddress address = bound.get(10, TimeUnit.SECONDS);
            List<String> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < MpaResponderChecks.CASES; i++) {
                QueuePair qp = pd.createQueuePair(QpAttributes.of(cq, 4, 1));
                try {
                    manager.connect(qp, address, ConnectOptions.of(16, 16)).get(20, TimeUnit.SECONDS);
                    outcomes.add("connected");
                } catch (ExecutionException e) {
                    outcomes.add(e.getCause().getMessage());
                }
            }
            assertThat(verdicts.get(60, TimeUnit.SECONDS)).as(outcomes.toString()).hasSize(MpaResponderChecks.CASES)
                    .allSatisfy(verdict -> assertThat(verdict.outcome()).as(verdict.toString())
                            .isEqualTo(Verdict.Outcome.PASS));
        }
    }

    @Test
    void ourResponderPassesEveryInitiatorCheck() throws Exception {
        try (MpaConnectionManager manager = new MpaConnectionManager(MpaOptions.defaults(), LOOPBACK);
                AcceptingResponder responder = new AcceptingResponder(manager, new InetSocketAddress(LOOPBACK, 0),
                        new AcceptOptions(PrivateData.EMPTY, 16, 16), line -> { })) {
            List<Verdict> verdicts = new MpaInitiatorChecks((InetSocketAddress) responder.address(),
                    Duration.ofSeconds(3)).run(verdict -> System.out.println(verdict));
            assertThat(verdicts).hasSize(16).allSatisfy(verdict -> assertThat(verdict.outcome())
                    .as(verdict.toString()).isEqualTo(Verdict.Outcome.PASS));
        }
    }
}
