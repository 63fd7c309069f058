package org.rddp.transport.sctp;

import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite, unchanged, over the SCTP adaptation on usrsctp with manual progress: both managers'
 * loops, each with its own UDP socket, are driven by the test thread alone, whenever it polls or waits.
 */
class UsrsctpManualProgressScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() throws Exception {
        return SctpTransport.usrsctpManual();
    }
}
