package org.rddp.exs;

import org.rddp.verbs.testing.InMemoryTransport;
import org.rddp.verbs.testing.TransportFixture;

/** The EXS suite over the in-memory LLP. */
class ExsInMemoryTest extends ExsSuite {
    @Override
    TransportFixture transport() {
        return new InMemoryTransport(4096, 64);
    }
}
