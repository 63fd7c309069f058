package org.rddp.exs;

import org.rddp.verbs.testing.TransportFixture;

/** The EXS suite over TCP/MPA on loopback. */
class ExsMpaTest extends ExsSuite {
    @Override
    TransportFixture transport() {
        return Transports.mpa();
    }
}
