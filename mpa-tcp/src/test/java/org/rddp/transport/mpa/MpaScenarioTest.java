package org.rddp.transport.mpa;

import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/** The engine's scenario suite, unchanged, over TCP/MPA on loopback with the default options. */
class MpaScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() {
        return new MpaTransport(MpaOptions.defaults());
    }
}
