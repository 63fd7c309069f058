package org.rddp.interop.vm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The project's VM (see {@code interop-tests/vm}): a stock Debian kernel under QEMU, prepared by
 * {@code vm/setup.sh} (which {@code ./run-tests} runs), running one command on this machine's file system.
 */
final class Vm {
    private static final Path HOME = Path.of(System.getProperty("user.dir"));
    /** The scenario suites' wait for a completion, in the guest: emulation is ~10x slower, the proxy slower still. */
    private static final String GUEST_TIMEOUT = "rddp.test.timeout-seconds=300";
    /**
     * The guest's JVMs compile with C1 only: on an emulated CPU C2's compiles cost more than they return in runs of a
     * minute (a small in-process {@code rddp compare} on two vCPUs: 34-39 s with C2, 23 s without).
     */
    private static final String GUEST_JIT = "-XX:TieredStopAtLevel=1";
    /** Where a guest JVM that crashes leaves its log: the build's folder, not the sources' (bin/check-tree.sh). */
    private static final String ERROR_FILE = "-XX:ErrorFile=target/hs_err_pid%p.log";

    /** What a command in the VM printed, and its exit status (125: the VM gave none). */
    record Outcome(int status, String output) {
        /** The last lines of the output, for a failure message. */
        String tail() {
            String[] lines = output.split("\n");
            return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 60),
                    lines.length));
        }
    }

    private Vm() {
    }

    /** A script of {@code interop-tests/vm}. */
    static Path script(String name) {
        return HOME.resolve("vm").resolve(name);
    }

    /**
     * Runs {@code command} in a fresh VM with {@code options} for run-in-vm.sh ({@code --load sctp}, ...), its
     * output (both streams) kept in {@code target/vm/<log>.log}.
     */
    static Outcome run(String log, List<String> options, List<String> command) throws IOException,
            InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(script("run-in-vm.sh").toString());
        line.addAll(options);
        line.add("--");
        line.addAll(command);
        Path file = HOME.resolve("target").resolve("vm").resolve(log + ".log");
        Files.createDirectories(file.getParent());
        Process process = new ProcessBuilder(line).redirectErrorStream(true)
                .redirectOutput(file.toFile()).start();
        int status = process.waitFor();
        return new Outcome(status, Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * The command line that runs {@code rddp} (the CLI's main class) in the guest, on this JVM and class path, compiled
     * with C1 only.
     */
    static List<String> rddp() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), GUEST_JIT,
                ERROR_FILE, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp",
                System.getProperty("java.class.path"), "org.rddp.cli.Main");
    }

    /** {@link #rddp()} with the JVM's default tiers (C1, then C2). */
    static List<String> rddpTiered() {
        return rddp().stream().filter(argument -> !argument.equals(GUEST_JIT)).toList();
    }

    /**
     * Asserts that the guest ran {@code classes} ({@link #junit}) and every test method in them passed: none failed
     * or was aborted, and as many methods passed as discovery finds here ({@link GuestMain#testMethods}).
     */
    static void assertAllPassed(Outcome outcome, String... classes) {
        org.assertj.core.api.Assertions.assertThat(outcome.output()).as(outcome.tail())
                .containsPattern("GUEST-RESULT succeeded=[1-9][0-9]* failed=0 aborted=0")
                .contains("GUEST-METHODS passed=" + GuestMain.testMethods(classes) + "\n");
    }

    /**
     * The command line that runs {@code classes} with {@link GuestMain} on this JVM and class path, with the
     * system {@code properties} ({@code name=value}).
     */
    static List<String> junit(List<String> properties, String... classes) {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                GUEST_JIT, ERROR_FILE, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-D" + GUEST_TIMEOUT));
        properties.forEach(property -> line.add("-D" + property));
        line.addAll(List.of("-cp", System.getProperty("java.class.path"), GuestMain.class.getName()));
        line.addAll(List.of(classes));
        return line;
    }
}
