package org.rddp.transport.sctp;

import org.junit.jupiter.api.AfterAll;
import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Two independent SCTP implementations agreeing on RFC 5043 on the wire: the scenario suite with its initiator
 * on the Linux kernel's SCTP (this process, host A) and its responder on usrsctp over raw IP (another process,
 * host B, see {@link GuestHosts}). Runs inside the VM, in host A's namespace.
 */
class KernelToUsrsctpGuestSuite extends ScenarioSuite {
    private static RemoteSctpStack usrsctp;

    @Override
    protected TransportFixture createTransport() throws Exception {
        synchronized (KernelToUsrsctpGuestSuite.class) {
            if (usrsctp == null) {
                usrsctp = RemoteSctpStack.start(GuestHosts.in(GuestHosts.USRSCTP_NAMESPACE), "usrsctp-native",
                        GuestHosts.address(GuestHosts.USRSCTP_ADDRESS));
            }
        }
        return new SctpTransport(KernelSctpStack.open(), GuestHosts.address(GuestHosts.KERNEL_ADDRESS), usrsctp,
                GuestHosts.address(GuestHosts.USRSCTP_ADDRESS),
                GuestHosts.mulpdu(GuestHosts.address(GuestHosts.KERNEL_ADDRESS)));
    }

    @AfterAll
    static void stopHostB() {
        if (usrsctp != null) {
            usrsctp.close();
            usrsctp = null;
        }
    }
}
