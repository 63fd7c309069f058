package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rddp.llp.LlpPath;
import org.rddp.transport.sctp.kernel.KernelSctpStack;

/**
 * {@link SctpPaths} on this machine's SCTP. Without kernel SCTP (the build machines) it runs over usrsctp, whose
 * association has exactly one path and refuses to choose a primary, even that one; with it, the choice is made.
 */
class SctpPathsTest {

    @Test
    void listsTheOnePathOnLoopbackAndChoosesItOrSaysWhyNot() throws Exception {
        SctpPaths.Result result = SctpPaths.run();

        assertThat(result.paths()).as("both ends bind 127.0.0.1 only: one path").singleElement().satisfies(path -> {
            assertThat(path.address()).as("the address connected to").isEqualTo(result.server());
            assertThat(path.state()).isEqualTo(LlpPath.State.ACTIVE);
            assertThat(path.primary()).isTrue();
            assertThat(path.rto()).as("its RTO").isNotNull().isPositive();
        });
        assertThat(result.chosen()).isEqualTo(result.paths().getFirst().address());
        if (KernelSctpStack.unavailable() == null) {
            assertThat(result.stack()).isEqualTo("kernel");
            assertThat(result.refused()).as("kernel SCTP makes a path it has the primary").isNull();
        } else {
            assertThat(result.stack()).startsWith("usrsctp");
            assertThat(result.refused()).as("usrsctp carries one path and cannot choose")
                    .contains("one path per association").contains("kernel SCTP");
        }
    }
}
