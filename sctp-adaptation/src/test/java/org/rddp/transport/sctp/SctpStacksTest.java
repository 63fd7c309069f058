package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.rddp.transport.sctp.kernel.KernelSctpStack;

/**
 * Backend selection. Both branches assert: where the kernel has no SCTP (these build machines), asking for it
 * fails saying why and what to do and the default is usrsctp; where it has (the VM suite), the default is the
 * kernel's.
 */
class SctpStacksTest {
    @Test
    void theKernelIsTheDefaultWhereItHasSctpAndAskingForItWhereItHasNoneSaysWhyAndWhatToDo() throws IOException {
        String why = KernelSctpStack.unavailable();
        if (why == null) {
            assertThat(SctpStacks.byName("kernel").name()).isEqualTo("kernel");
            assertThat(SctpStacks.preferred().name()).isEqualTo("kernel");
        } else {
            assertThat(why).containsAnyOf("this kernel has no SCTP", "apt-get install libsctp1");
            if (why.startsWith("this kernel")) {
                assertThat(why).contains("Protocol not supported").contains("modprobe sctp").contains("usrsctp");
            }
            assertThatThrownBy(() -> SctpStacks.byName("kernel")).isInstanceOf(IOException.class).hasMessage(why);
            assertThat(SctpStacks.preferred().name()).isEqualTo("usrsctp-udp");
        }
        assertThat(SctpStacks.byName("auto").name()).isEqualTo(SctpStacks.preferred().name());
    }

    @Test
    void usrsctpIsThereByNameAndAnUnknownNameListsTheKnownOnes() throws IOException {
        assertThat(SctpStacks.byName("usrsctp").name()).isEqualTo("usrsctp-udp");
        assertThat(SctpStacks.byName("usrsctp-udp").name()).isEqualTo("usrsctp-udp");
        assertThatThrownBy(() -> SctpStacks.byName("lksctp")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kernel, usrsctp, usrsctp-udp, usrsctp-native");
    }
}
