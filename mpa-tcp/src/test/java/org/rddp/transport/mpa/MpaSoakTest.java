package org.rddp.transport.mpa;

import org.rddp.verbs.testing.SoakSuite;
import org.rddp.verbs.testing.TransportFixture;

/** Connect, transfer, disconnect cycles over TCP/MPA on loopback: nothing left behind. */
class MpaSoakTest extends SoakSuite {
    @Override
    protected TransportFixture createTransport() {
        return new MpaTransport(MpaOptions.defaults());
    }
}
