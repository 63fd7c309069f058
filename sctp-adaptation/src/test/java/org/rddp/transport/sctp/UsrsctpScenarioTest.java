package org.rddp.transport.sctp;

import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/** The engine's scenario suite, unchanged, over the SCTP adaptation on usrsctp in one process. */
class UsrsctpScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() throws Exception {
        return SctpTransport.usrsctp();
    }
}
