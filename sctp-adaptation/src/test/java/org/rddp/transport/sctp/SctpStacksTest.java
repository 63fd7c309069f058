package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.rddp.transport.sctp.kernel.KernelSctpStack;

/**
 * Backend selection. Both branches assert: where the kernel has no SCTP (these build machines), asking for it
 * fails saying why and what to do and the default is usrsctp, said with why; where it has (the VM suite), the
 * default is the kernel's.
 */
class SctpStacksTest {
    @Test
    void theKernelIsTheDefaultWhereItHasSctpAndAskingForItWhereItHasNoneSaysWhyAndWhatToDo() throws IOException {
        String why = KernelSctpStack.unavailable();
        if (why == null) {
            assertThat(SctpStacks.byName("kernel").name()).isEqualTo("kernel");
            assertThat(SctpStacks.preferred().name()).isEqualTo("kernel");
        } else {
            assertThat(why).startsWith("kernel SCTP unavailable: ").containsAnyOf("sctp module", "module sctp",
                    "apt-get install libsctp1");
            assertThat(SctpStacks.choice(why)).isEqualTo("rddp: " + why + "; using usrsctp over UDP");
            assertThatThrownBy(() -> SctpStacks.byName("kernel")).isInstanceOf(IOException.class).hasMessage(why);
            assertThat(SctpStacks.preferred().name()).isEqualTo("usrsctp-udp");
        }
        assertThat(SctpStacks.byName("auto").name()).isEqualTo(SctpStacks.preferred().name());
        assertThat(SctpStacks.choice(null)).isEqualTo("rddp: using the kernel's SCTP (it answers an SCTP socket)");
    }

    @Test
    void usrsctpIsThereByNameAndAnUnknownNameListsTheKnownOnes() throws IOException {
        assertThat(SctpStacks.byName("usrsctp").name()).isEqualTo("usrsctp-udp");
        assertThat(SctpStacks.byName("usrsctp-udp").name()).isEqualTo("usrsctp-udp");
        assertThatThrownBy(() -> SctpStacks.byName("lksctp")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kernel, usrsctp, usrsctp-udp, usrsctp-native");
    }
}
