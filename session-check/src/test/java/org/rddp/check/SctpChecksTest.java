package org.rddp.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.wire.PrivateData;

/** The SCTP checks against this stack's own DDP over SCTP, on usrsctp. */
class SctpChecksTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void ourPassiveSidePassesEveryInitiatorCheck() throws Exception {
        try (SctpConnectionManager manager = new SctpConnectionManager(UsrsctpStack.udp(), LOOPBACK);
                AcceptingResponder responder = new AcceptingResponder(manager, new InetSocketAddress(LOOPBACK, 0),
                        new AcceptOptions(PrivateData.EMPTY, 16, 16), line -> { })) {
            List<Verdict> verdicts = new SctpInitiatorChecks(UsrsctpStack.udp(), new InetSocketAddress(LOOPBACK, 0),
                    (InetSocketAddress) responder.address(), Duration.ofSeconds(3)).run(System.out::println);
            assertThat(verdicts).hasSize(15).allSatisfy(verdict -> assertThat(verdict.outcome())
                    .as(verdict.toString()).isEqualTo(Verdict.Outcome.PASS));
        }
    }
}
