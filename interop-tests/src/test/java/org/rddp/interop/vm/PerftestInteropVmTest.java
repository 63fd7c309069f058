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
 * TCP/MPA interop with Linux soft-iWARP in the project's VM: rddp's perftest commands against perftest's
 * {@code ib_*_bw -R} and {@code ib_*_lat -R}, both ways ({@link PerftestInteropGuestSuite}). In a VM of its own: in
 * one shared with the rping suite, whose refusal cases leave siw's connection manager unable to complete another
 * connection (see {@link SiwInteropGuestSuite}), no perftest connection got through. Fails, never skips, when the
 * VM cannot start.
 */
@Execution(ExecutionMode.CONCURRENT)
class PerftestInteropVmTest {

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void rddpsPerftestCommandsAndPerftestOnSiwInterworkBothWays() throws Exception {
        List<String> command = new ArrayList<>(List.of(Vm.script("siw-host.sh").toString()));
        command.addAll(Vm.junit(List.of(), PerftestInteropGuestSuite.class.getName()));
        Vm.Outcome outcome = Vm.run("perftest-interop", List.of("--smp", "2", "--load", "rdma_ucm,siw"), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        Vm.assertAllPassed(outcome, PerftestInteropGuestSuite.class.getName());
    }
}
