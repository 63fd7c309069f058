package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;

/**
 * Issue 34: the protocol parameters each connection manager applies to its sockets (RTO bounds, retransmission
 * limits, the potentially-failed threshold, heartbeats), read back from the stack on both ends of an association;
 * and the defaults' promises: a path is left after its first timeout, and a 30 s stall is ridden out (a dead peer's
 * time is measured by {@code TwoProcessTest}).
 */
class ProtocolParametersTest {
    /** Other than the defaults in every value. */
    static final ProtocolParameters CUSTOM = new ProtocolParameters(Duration.ofMillis(700), Duration.ofMillis(300),
            Duration.ofSeconds(3), 7, 3, 1, 5, Duration.ofSeconds(2), Duration.ofMillis(40));

    @Test
    void theDefaultsLeaveAPathAfterItsFirstTimeoutAndRideOutAThirtySecondStall() {
        ProtocolParameters defaults = ProtocolParameters.defaults();
        assertThat(defaults.potentiallyFailedOn()).isTrue();
        assertThat(defaults.pfThreshold()).as("a path is left after its first timeout (RFC 7829)").isZero();
        assertThat(defaults.pathMaxRetrans()).isLessThan(defaults.associationMaxRetrans());
        assertThat(defaults.stallRiddenOut()).as("the last probe comes after a 30 s stall, heartbeats counted")
                .isGreaterThan(Duration.ofSeconds(30));
    }

    /**
     * Issue 51: the named profiles. fast-failover leaves a path one 20 ms RTO after it failed, holds SACKs well inside
     * that, and still rides out a 30 s stall; rfc9260 is RFC 9260 §16's.
     */
    @Test
    void theProfilesAreNamedAndFastFailoverStillRidesOutAThirtySecondStall() {
        ProtocolParameters fast = ProtocolParameters.named("fast-failover");
        assertThat(fast).isEqualTo(ProtocolParameters.fastFailover());
        assertThat(fast.rtoMin()).isEqualTo(Duration.ofMillis(20));
        assertThat(fast.pfThreshold()).isZero();
        assertThat(fast.sackDelay()).isLessThan(fast.rtoMin());
        assertThat(fast.stallRiddenOut()).isGreaterThan(Duration.ofSeconds(30));
        ProtocolParameters rfc = ProtocolParameters.named("rfc9260");
        assertThat(rfc.rtoMin()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rfc.rtoMax()).isEqualTo(Duration.ofSeconds(60));
        assertThat(rfc.potentiallyFailedOn()).isFalse();
        assertThat(rfc.sackDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(ProtocolParameters.named("default")).isEqualTo(ProtocolParameters.defaults());
        assertThat(ProtocolParameters.defaults().describe()).isEqualTo("RTO 1000/200/5000 ms (initial/min/max), "
                + "retransmissions 20/4/0 (association/path/PF), HB.interval 1000 ms, SACK delay 200 ms");
        assertThatThrownBy(() -> ProtocolParameters.named("quick")).hasMessageContaining("fast-failover");
        assertThatThrownBy(() -> ProtocolParameters.defaults().withSackDelay(Duration.ofMillis(600)))
                .hasMessageContaining("SACK delay of 1 to 500 ms");
    }

    @Test
    void valuesOutOfTheirOrderAreRefused() {
        assertThatThrownBy(() -> ProtocolParameters.defaults().withRto(Duration.ofMillis(100), Duration.ofMillis(200),
                Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RTO.Min");
        assertThatThrownBy(() -> ProtocolParameters.defaults().withRetransmissions(0, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProtocolParameters.defaults().withRetransmissions(10, 4, 70_000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ProtocolParameters.defaults().withRetransmissions(10, 4, 4).potentiallyFailedOn()).isFalse();
    }

    @Test
    void eachManagerAppliesItsOwnToBothEndsOverUsrsctp() throws Exception {
        appliedOnBothEnds(UsrsctpStack.udp(), InetAddress.getLoopbackAddress());
    }

    /**
     * On {@code stack}, a manager with {@link #CUSTOM} parameters connects to one with the defaults, then the other
     * way round: what each end's socket applies, read back from the stack, is its own manager's (an accepted
     * association takes its listener's; Max.Init.Retransmits, which only a connect uses, is not compared there).
     */
    static void appliedOnBothEnds(SctpStack stack, InetAddress address) throws Exception {
        connect(stack, address, CUSTOM, ProtocolParameters.defaults());
        connect(stack, address, ProtocolParameters.defaults(), CUSTOM);
    }

    private static void connect(SctpStack stack, InetAddress address, ProtocolParameters connecting,
            ProtocolParameters listening) throws Exception {
        CompletableFuture<DdpAssociation> client = new CompletableFuture<>();
        CompletableFuture<DdpAssociation> server = new CompletableFuture<>();
        RdmaDevice device = new RdmaDevice("protocol-parameters");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(16);
        try (SctpConnectionManager initiator = new SctpConnectionManager(stack, address,
                (association, outbound, streamId, ppid, unordered, chunk, length) ->
                        client.complete((DdpAssociation) association), Progress.automatic(), SctpLimits.defaults(),
                connecting);
                SctpConnectionManager responder = new SctpConnectionManager(stack, address,
                        (association, outbound, streamId, ppid, unordered, chunk, length) ->
                                server.complete((DdpAssociation) association), Progress.automatic(),
                        SctpLimits.defaults(), listening);
                Listener listener = responder.listen(new InetSocketAddress(address, TestPorts.next()),
                        request -> request.accept(pd.createQueuePair(QpAttributes.of(cq, 4, 1)),
                                new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
            assertThat(initiator.parameters()).isEqualTo(connecting);
            initiator.connect(pd.createQueuePair(QpAttributes.of(cq, 4, 1)), listener.address(),
                    ConnectOptions.of(1, 1)).get(30, TimeUnit.SECONDS);
            assertThat(applied(client.get(10, TimeUnit.SECONDS))).as("the connecting end's").isEqualTo(connecting);
            // Max.Init.Retransmits counts for the connecting side only: an accepted socket keeps the stack's own
            assertThat(applied(server.get(10, TimeUnit.SECONDS))).as("the accepting end's").usingRecursiveComparison()
                    .ignoringFields("maxInitRetransmits").isEqualTo(listening);
        }
    }

    /** What the stack applies to {@code association}, read on its loop. */
    private static ProtocolParameters applied(DdpAssociation association) throws Exception {
        CompletableFuture<ProtocolParameters> read = new CompletableFuture<>();
        association.loop().execute(() -> {
            try {
                read.complete(association.protocolParameters());
            } catch (IOException e) {
                read.completeExceptionally(e);
            }
        });
        return read.get(10, TimeUnit.SECONDS);
    }
}
