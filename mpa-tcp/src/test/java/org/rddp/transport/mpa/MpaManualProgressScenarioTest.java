package org.rddp.transport.mpa;

import org.rddp.loop.Progress;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite, unchanged, over TCP/MPA with manual progress: both managers' loops are driven by the
 * test thread alone, whenever it polls or waits (nothing moves otherwise), as a polling application drives its own.
 */
class MpaManualProgressScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() {
        return new MpaTransport(MpaOptions.defaults(), MpaOptions.defaults(), Progress.manual());
    }
}
