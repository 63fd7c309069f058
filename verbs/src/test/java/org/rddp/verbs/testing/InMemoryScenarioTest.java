package org.rddp.verbs.testing;


/** The scenario suite over the in-memory LLP: MULPDU 1024, 64 segments in flight per direction. */
class InMemoryScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() {
        return new InMemoryTransport(1024, 64);
    }
}
