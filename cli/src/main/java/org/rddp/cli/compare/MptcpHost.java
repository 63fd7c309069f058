package org.rddp.cli.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How this host's Multipath TCP is set, for the conditions line of a comparison with MPTCP series: whether it is on,
 * its path manager, and the path manager's limits and endpoints ({@code ip mptcp limits}, {@code ip mptcp endpoint}),
 * which decide what subflows a connection gets: without an endpoint a connection has one path, as TCP's.
 */
final class MptcpHost {
    private static final long IP_SECONDS = 10;

    private MptcpHost() {
    }

    /** "; MPTCP here: …" as this host's network namespace sets it now. */
    static String conditions() {
        return "; MPTCP here: " + describe();
    }

    /** How this host's network namespace sets Multipath TCP now, on one line. */
    static String describe() {
        String enabled = sysctl("enabled");
        if (!"1".equals(enabled)) {
            return "off (net.mptcp.enabled " + (enabled == null ? "absent" : enabled) + ")";
        }
        String manager = sysctl("path_manager");
        String limits = ip("limits", "show");
        String endpoints = ip("endpoint", "show");
        return "path manager " + (manager == null ? "kernel" : manager) + (limits == null ? ""
                : ", limits " + limits.replace('\n', ' ').strip()) + ", endpoints " + (endpoints == null
                        ? "unknown (no ip)" : endpoints.isEmpty() ? "none (subflows go to what the peer announces)"
                                : String.join(", ", endpoints.lines().map(String::strip).toList()));
    }

    private static String sysctl(String name) {
        try {
            return Files.readString(Path.of("/proc/sys/net/mptcp", name)).strip();
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** What {@code ip mptcp WORDS} prints, stripped, or null when it cannot be run. */
    private static String ip(String... words) {
        List<String> command = new java.util.ArrayList<>(List.of("ip", "mptcp"));
        command.addAll(List.of(words));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(IP_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 ? said : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
