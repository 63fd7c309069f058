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
}
