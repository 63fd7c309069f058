package org.rddp.transport.sctp;

import org.junit.jupiter.api.AfterAll;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * {@link KernelToUsrsctpGuestSuite} the other way round: the initiator on usrsctp over raw IP (this process,
 * host B), the responder on the Linux kernel's SCTP (another process, host A). Runs inside the VM, in host B's
 * namespace.
 */
class UsrsctpToKernelGuestSuite extends ScenarioSuite {
    private static RemoteSctpStack kernel;

    @Override
    protected TransportFixture createTransport() throws Exception {
        synchronized (UsrsctpToKernelGuestSuite.class) {
            if (kernel == null) {
                kernel = RemoteSctpStack.start(GuestHosts.in(GuestHosts.KERNEL_NAMESPACE), "kernel",
                        GuestHosts.address(GuestHosts.KERNEL_ADDRESS));
            }
        }
        return new SctpTransport(UsrsctpStack.nativeIp(), GuestHosts.address(GuestHosts.USRSCTP_ADDRESS), kernel,
                GuestHosts.address(GuestHosts.KERNEL_ADDRESS),
                GuestHosts.mulpdu(GuestHosts.address(GuestHosts.USRSCTP_ADDRESS)));
    }

    @AfterAll
    static void stopHostA() {
        if (kernel != null) {
            kernel.close();
            kernel = null;
        }
    }
}
