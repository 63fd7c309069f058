package org.rddp.transport.sctp;

import org.rddp.verbs.testing.SoakSuite;
import org.rddp.verbs.testing.TransportFixture;

/** Connect, transfer, disconnect cycles over the SCTP adaptation on usrsctp: nothing left behind. */
class UsrsctpSoakTest extends SoakSuite {
    @Override
    protected TransportFixture createTransport() throws Exception {
        return SctpTransport.usrsctp();
    }
}
