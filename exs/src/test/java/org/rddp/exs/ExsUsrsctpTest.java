package org.rddp.exs;

import org.rddp.verbs.testing.TransportFixture;

/** The EXS suite over SCTP (usrsctp over UDP) on loopback. */
class ExsUsrsctpTest extends ExsSuite {
    @Override
    TransportFixture transport() throws Exception {
        return Transports.usrsctp();
    }
}
