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
 * Session-control interop with Linux soft-iWARP in the project's VM: {@code rddp interop} as initiator against
 * rping's persistent server and as responder to rping's client ({@link InteropGuestSuite}). In a VM of its own, as
 * the perftest suite: the malformed frames these checks send are refusals siw's connection manager may not recover
 * from for later connections. Fails, never skips, when the VM cannot start.
 */
@Execution(ExecutionMode.CONCURRENT)
class InteropVmTest {

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void rddpInteropChecksSiwBothWays() throws Exception {
        List<String> command = new ArrayList<>(List.of(Vm.script("siw-host.sh").toString()));
        command.addAll(Vm.junit(List.of(), InteropGuestSuite.class.getName()));
        Vm.Outcome outcome = Vm.run("session-interop", List.of("--smp", "2", "--load", "rdma_ucm,siw"), command);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        Vm.assertAllPassed(outcome, InteropGuestSuite.class.getName());
    }
}
