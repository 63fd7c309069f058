package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * TCP/MPA interop with Linux soft-iWARP in the project's VM: {@code rddp ping} against rdma-core's {@code rping}
 * both ways, across MPA revisions, CRC settings, peer-to-peer RTR types and siw's refusals
 * ({@link SiwInteropGuestSuite}). Fails, never skips, when the VM cannot start.
 */
@Execution(ExecutionMode.CONCURRENT)
class SiwInteropVmTest {

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void rddpPingAndRpingOnSiwInterworkBothWays() throws Exception {
        List<String> command = new ArrayList<>(List.of(Vm.script("siw-host.sh").toString()));
        command.addAll(Vm.junit(List.of(), SiwInteropGuestSuite.class.getName()));
        Vm.Outcome outcome = Vm.run("siw-interop", List.of("--smp", "2", "--load", "rdma_ucm,siw"), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        Vm.assertAllPassed(outcome, SiwInteropGuestSuite.class.getName());
    }
}
