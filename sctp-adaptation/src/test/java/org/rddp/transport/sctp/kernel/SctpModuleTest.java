package org.rddp.transport.sctp.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Why the sctp module is missing, read from a made-up root: each of the four answers, and this machine's. */
class SctpModuleTest {
    private static final String RELEASE = "6.1.0-28-amd64";

    @TempDir
    Path root;

    @Test
    void aKernelWithoutTheModuleIsSaidToHaveNone() throws IOException {
        write("lib/modules/" + RELEASE + "/modules.dep", "kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko\n");
        assertThat(SctpModule.why(root, RELEASE)).isEqualTo("kernel " + RELEASE + " has no sctp module (none in "
                + root.resolve("lib/modules/" + RELEASE) + ")");
        assertThat(SctpModule.why(root, "another")).contains("kernel another has no sctp module");
    }

    @Test
    void aBlacklistedModuleNamesTheFileThatKeepsItOut() throws IOException {
        write("lib/modules/" + RELEASE + "/modules.dep", "kernel/net/sctp/sctp.ko: kernel/lib/libcrc32c.ko\n");
        write("etc/modprobe.d/aaa.conf", "# blacklist sctp only in a comment\nblacklist dccp\n");
        write("etc/modprobe.d/sctp-blacklist.conf", "# as RHEL ships it\nblacklist sctp\n");
        assertThat(SctpModule.why(root, RELEASE)).isEqualTo("module sctp is blacklisted ("
                + root.resolve("etc/modprobe.d/sctp-blacklist.conf") + "); remove that line and load it (modprobe "
                + "sctp, as root)");
        Files.delete(root.resolve("etc/modprobe.d/sctp-blacklist.conf"));
        write("lib/modprobe.d/cis.conf", "install sctp /bin/true\n");
        assertThat(SctpModule.why(root, RELEASE)).contains("blacklisted (" + root.resolve("lib/modprobe.d/cis.conf"));
    }

    @Test
    void anAvailableModuleIsSaidNotLoadedAndALoadedOneSaysSo() throws IOException {
        write("lib/modules/" + RELEASE + "/modules.builtin", "kernel/net/sctp/sctp.ko\n");
        assertThat(SctpModule.why(root, RELEASE)).isEqualTo("module sctp not loaded (modprobe sctp, as root)");
        Files.createDirectories(root.resolve("sys/module/sctp"));
        assertThat(SctpModule.why(root, RELEASE)).startsWith("module sctp is loaded");
    }

    @Test
    void thisMachineGetsAnAnswerOrHasTheModule() {
        String why = SctpModule.why();
        assertThat(why).containsAnyOf("sctp module", "module sctp");
    }

    private void write(String file, String text) throws IOException {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, text);
    }
}
