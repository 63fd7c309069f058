package org.rddp.transport.sctp;

import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Issue 34: the scenario suite over the Linux kernel's SCTP on IPv6's loopback ({@code ::1}), both ends in this
 * process. Runs inside the VM (interop-tests' {@code KernelSctpVmTest}); named so that no build machine without
 * kernel SCTP runs it.
 */
class KernelSctpIpv6GuestSuite extends ScenarioSuite {
    @Override
    protected TransportFixture createTransport() throws Exception {
        return SctpTransport.at(KernelSctpStack.open(), UsrsctpIpv6ScenarioTest.IPV6_LOOPBACK);
    }
}
