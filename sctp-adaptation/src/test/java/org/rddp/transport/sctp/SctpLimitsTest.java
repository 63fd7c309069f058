package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.work.QpEvent;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * Issue 16, limits a user can set over SCTP ({@link SctpLimits}): associations beyond the limit are aborted at
 * once by a server, which keeps serving and takes the next one when one has gone; a connect that would need one
 * association more fails at once, saying why; a memory limit lowers the association limit.
 */
class SctpLimitsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final RdmaDevice device = new RdmaDevice("sctp-limits");
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(64);

    private SctpConnectionManager manager(SctpLimits limits) throws java.io.IOException {
        return new SctpConnectionManager(UsrsctpStack.udp(), LOOPBACK, ChunkTap.NONE, Progress.automatic(), limits);
    }

    private CompletableFuture<Connection> connect(SctpConnectionManager client, Listener listener) {
        return client.connect(pd.createQueuePair(QpAttributes.of(cq, 4, 1)), listener.address(),
                ConnectOptions.of(1, 1));
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the connection was set up");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anAssociationBeyondTheLimitIsAbortedAndTheNextIsTakenWhenOneHasGone() throws Exception {
        CompletableFuture<QpEvent> firstEnded = new CompletableFuture<>();
        try (SctpConnectionManager server = manager(SctpLimits.defaults().withAssociations(1));
                SctpConnectionManager second = manager(SctpLimits.defaults());
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, TestPorts.next()),
                        request -> request.accept(pd.createQueuePair(new QpAttributes(cq, cq, null, 4, 4, 1, true,
                                (pair, event, terminate, detail) -> {
                                    if (event != QpEvent.ESTABLISHED) {
                                        firstEnded.complete(event);
                                    }
                                })), new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            try (SctpConnectionManager first = manager(SctpLimits.defaults())) {
                connect(first, listener).get(30, TimeUnit.SECONDS);
                assertThat(failure(connect(second, listener))).as("the server aborted the second association")
                        .isNotNull();
                assertThat(server.lastRefusal()).contains("was aborted").contains("the limits allow 1")
                        .contains("SctpLimits");
                assertThat(server.associationCount()).isEqualTo(1);
            } // the first client goes, and its association with it
            assertThat(firstEnded.get(30, TimeUnit.SECONDS)).isEqualTo(QpEvent.CONNECTION_LOST);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.associationCount() > 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait(); // the association goes on the server's loop right after its sessions heard it
            }
            assertThat(server.associationCount()).isZero();
            assertThat(connect(second, listener).get(30, TimeUnit.SECONDS)).as("served once there is room")
                    .isNotNull();
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aConnectNeedingOneAssociationTooManyFailsAtOnceAndSaysWhy() throws Exception {
        SctpLimits oneInMemory = SctpLimits.defaults()
                .withMemory(SctpLimits.defaults().octetsPerAssociation(UsrsctpStack.udp()) + 1);
        try (SctpConnectionManager one = manager(SctpLimits.defaults());
                SctpConnectionManager other = manager(SctpLimits.defaults());
                SctpConnectionManager client = manager(oneInMemory);
                Listener first = one.listen(new InetSocketAddress(LOOPBACK, TestPorts.next()),
                        request -> request.accept(pd.createQueuePair(QpAttributes.of(cq, 4, 1)),
                                new AcceptOptions(PrivateData.EMPTY, 1, 1)));
                Listener second = other.listen(new InetSocketAddress(LOOPBACK, TestPorts.next()),
                        request -> request.accept(pd.createQueuePair(QpAttributes.of(cq, 4, 1)),
                                new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            assertThat(oneInMemory.associationsOn(UsrsctpStack.udp())).isEqualTo(1);
            connect(client, first).get(30, TimeUnit.SECONDS);
            assertThat(connect(client, first).get(30, TimeUnit.SECONDS)).as("the same association takes more")
                    .isNotNull();
            assertThat(failure(connect(client, second))).hasMessageContaining("cannot connect to")
                    .hasMessageContaining("the limits allow 1").hasMessageContaining("SctpLimits");
            assertThat(other.associationCount()).as("nothing reached the other server").isZero();
        }
    }
}
