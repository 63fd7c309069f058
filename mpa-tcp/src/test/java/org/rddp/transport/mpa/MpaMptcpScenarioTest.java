package org.rddp.transport.mpa;

import org.rddp.loop.Progress;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Issue 51: the engine's scenario suite over MPA over Multipath TCP on loopback (one path, one subflow): every verb,
 * error and teardown as over TCP, with FPDUs cut to leave room for MPTCP's DSS option.
 */
class MpaMptcpScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() {
        MpaOptions mptcp = MpaOptions.defaults().withMptcp(true);
        return new MpaTransport(mptcp, mptcp, Progress.automatic());
    }
}
