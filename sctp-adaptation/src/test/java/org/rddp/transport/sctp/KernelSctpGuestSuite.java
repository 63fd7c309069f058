package org.rddp.transport.sctp;

import java.net.InetAddress;
import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The scenario suite over the Linux kernel's SCTP, both ends in this process on loopback. Runs inside the VM
 * (interop-tests' {@code KernelSctpVmTest}); named so that no build machine without kernel SCTP runs it.
 */
class KernelSctpGuestSuite extends ScenarioSuite {
    private static int maxMessage;

    @Override
    protected TransportFixture createTransport() throws Exception {
        KernelSctpStack stack = KernelSctpStack.open();
        synchronized (KernelSctpGuestSuite.class) {
            if (maxMessage == 0) {
                maxMessage = SctpTransport.probeMaxMessage(stack, InetAddress.getLoopbackAddress());
            }
        }
        return SctpTransport.loopback(stack, maxMessage);
    }

    /** Issue 34: each manager's protocol parameters, read back from the kernel on both ends of an association. */
    @org.junit.jupiter.api.Test
    void eachManagerAppliesItsOwnProtocolParametersToBothEnds() throws Exception {
        ProtocolParametersTest.appliedOnBothEnds(KernelSctpStack.open(), InetAddress.getLoopbackAddress());
    }

    /** Issue 34: a multi-homed association's paths, and the primary one chosen by the user. */
    @org.junit.jupiter.api.Test
    void aMultiHomedAssociationShowsItsPathsAndTakesTheChosenPrimary() throws Exception {
        MultihomingTest.twoPathsAndAChosenPrimary(KernelSctpStack.open());
    }
}
