package org.rddp.transport.sctp.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Why Linux's {@code sctp} module is not there for a socket that asked for it: the kernel was built without it, it is
 * blacklisted (as RHEL and many cloud images ship it), or it is simply not loaded. Read from the files the kernel and
 * modprobe keep ({@code /sys/module}, the running kernel's {@code modules.dep} and {@code modules.builtin}, the
 * {@code modprobe.d} folders), under a root that tests choose.
 */
final class SctpModule {
    /** A modprobe.d line that keeps sctp out: {@code blacklist sctp}, or {@code install sctp /bin/true} and alike. */
    private static final Pattern KEPT_OUT = Pattern.compile(
            "^\\s*(blacklist\\s+sctp|install\\s+sctp\\s+\\S*/(true|false))\\s*(#.*)?$", Pattern.MULTILINE);
    private static final List<String> MODPROBE_D = List.of("etc/modprobe.d", "run/modprobe.d", "lib/modprobe.d",
            "usr/lib/modprobe.d");

    private SctpModule() {
    }

    /** Why the running kernel's sctp module is missing, with what to do, as seen from {@code /}. */
    static String why() {
        return why(Path.of("/"), System.getProperty("os.version"));
    }

    /** Why the sctp module of kernel {@code release} is missing, the files read under {@code root}. */
    static String why(Path root, String release) {
        if (Files.isDirectory(root.resolve("sys/module/sctp"))) {
            return "module sctp is loaded, yet the kernel refused an SCTP socket";
        }
        Path modules = root.resolve("lib/modules").resolve(release);
        if (!mentions(modules.resolve("modules.dep"), "/sctp.ko") && !mentions(modules.resolve("modules.builtin"),
                "/sctp.ko")) {
            return "kernel " + release + " has no sctp module (none in " + modules + ")";
        }
        for (String folder : MODPROBE_D) {
            Path keeper = keeper(root.resolve(folder));
            if (keeper != null) {
                return "module sctp is blacklisted (" + keeper + "); remove that line and load it (modprobe sctp, "
                        + "as root)";
            }
        }
        return "module sctp not loaded (modprobe sctp, as root)";
    }

    /** The file in {@code folder} that keeps sctp out, or null. */
    private static Path keeper(Path folder) {
        if (!Files.isDirectory(folder)) {
            return null;
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(file -> file.toString().endsWith(".conf")).sorted()
                    .filter(file -> KEPT_OUT.matcher(read(file)).find()).findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean mentions(Path file, String text) {
        return read(file).contains(text);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | java.io.UncheckedIOException | SecurityException e) { // absent, unreadable, not text
            return "";
        }
    }
}
