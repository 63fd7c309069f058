package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The scenario suite over usrsctp sending SCTP straight over IP (protocol 132), no UDP: usrsctp needs raw
 * sockets for that, so this runs as root, as CI and these machines do.
 */
class UsrsctpNativeScenarioTest extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() throws Exception {
        assertThat(java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid"))
                .as("native SCTP over raw IP needs root (usrsctp opens raw sockets)").isEqualTo(0);
        return SctpTransport.usrsctp(UsrsctpStack.nativeIp());
    }
}
