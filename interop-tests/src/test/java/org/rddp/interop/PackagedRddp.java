package org.rddp.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The {@code rddp} command as the build packages it and {@code ./rddp} runs it: the CLI's modules. */
public final class PackagedRddp {
    /** The checkout: the parent of the interop-tests module the tests run in. */
    public static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    private PackagedRddp() {
    }

    /** The module path of the packaged CLI: its dependencies' modules and its own jar. */
    public static String modulePath() throws IOException {
        Path target = ROOT.resolve("cli/target");
        try (Stream<Path> files = Files.list(target)) {
            Path jar = files.filter(file -> file.getFileName().toString().matches("rddp-cli-.*\\.jar"))
                    .filter(file -> !file.getFileName().toString().contains("tests")).findFirst()
                    .orElseThrow(() -> new IOException("no rddp-cli jar in " + target + ": package the cli first"));
            return target.resolve("modules") + File.pathSeparator + jar;
        }
    }

    /** {@code java} with the options {@code ./rddp} gives it and the CLI's module path; the rest is the caller's. */
    public static List<String> java() throws IOException {
        return new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=org.rddp.rdmap,org.rddp.transport.sctp", "--add-modules", "jdk.unsupported",
                "--sun-misc-unsafe-memory-access=allow", "-p", modulePath()));
    }
}
