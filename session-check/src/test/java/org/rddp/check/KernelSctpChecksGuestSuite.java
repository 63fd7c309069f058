package org.rddp.check;

import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.kernel.KernelSctpStack;

/**
 * The SCTP checks against this stack over the Linux kernel's SCTP, both sides: runs inside the VM (interop-tests'
 * {@code KernelSctpVmTest}); named so that no build machine without kernel SCTP runs it.
 */
class KernelSctpChecksGuestSuite extends SctpChecksTest {
    @Override
    SctpStack stack() throws java.io.IOException {
        return KernelSctpStack.open();
    }
}
