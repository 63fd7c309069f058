package org.rddp.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.verbs.AcceptOptions;
import org.rddp.wire.PrivateData;

/** The MPA checks against this stack's own MPA. */
class MpaChecksTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

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
