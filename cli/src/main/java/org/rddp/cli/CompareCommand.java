package org.rddp.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rddp compare}, the main job: RDDP over every transport this machine has, next to the raw socket
 * baselines, over a size sweep, on loopback with both ends in this process; a table, and JSON and charts in a
 * folder. See {@link Compare}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = "RDMA Write bandwidth and Send latency of RDDP over MPA and SCTP next to plain TCP and SCTP "
                + "sockets, for a size sweep, on loopback in one process; prints a table and writes JSON and charts.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", description = "message sizes in octets; default: "
            + "64,256,1024,4096,16384,65536,262144,1048576")
    List<Integer> sizes = List.of(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576);

    @Option(names = "--mib-per-point", defaultValue = "32", description = "MiB moved per bandwidth point (100 to "
            + "50000 messages); default: ${DEFAULT-VALUE}")
    int mibPerPoint = 32;

    @Option(names = "--latency-iters", defaultValue = "500", description = "round trips per latency point; "
            + "default: ${DEFAULT-VALUE}")
    int latencyIterations = 500;

    @Option(names = "--latency-max", defaultValue = "65536", description = "largest size latency is measured at; "
            + "default: ${DEFAULT-VALUE}")
    int latencyMax = 65536;

    @Option(names = {"-t", "--transports"}, split = ",", description = "mpa, sctp; default: every one available")
    List<String> transports;

    @Option(names = "--sctp-stack", defaultValue = "auto", description = "SCTP backend: auto, kernel, usrsctp, "
            + "usrsctp-udp, usrsctp-native; default: ${DEFAULT-VALUE}")
    String sctpStack = "auto";

    @Option(names = {"-o", "--out"}, defaultValue = "compare-results", description = "folder for compare.json, "
            + "bandwidth.png and latency.png; default: ${DEFAULT-VALUE}")
    Path out = Path.of("compare-results");

    @Option(names = "--json", description = "print the JSON instead of the table")
    boolean json;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> chosen = transports != null ? transports : List.of("mpa", "sctp");
        List<Compare.Series> series = new ArrayList<>();
        SctpStack stack = null;
        for (String transport : chosen) {
            switch (transport.toLowerCase(Locale.ROOT)) {
                case "mpa" -> series.addAll(List.of(Compare.Series.TCP_SOCKET, Compare.Series.RDDP_MPA));
                case "sctp" -> {
                    try {
                        stack = SctpStacks.byName(sctpStack);
                        series.addAll(List.of(Compare.Series.SCTP_SOCKET, Compare.Series.RDDP_SCTP));
                    } catch (java.io.IOException | UnsupportedOperationException e) {
                        if (transports != null) {
                            throw e; // asked for by name: no quiet fallback
                        }
                        err.println("compare: no SCTP here (" + e.getMessage() + "); comparing TCP/MPA only");
                    }
                }
                default -> throw new IllegalArgumentException("a transport is mpa or sctp, not " + transport);
            }
        }
        TransportOptions mpa = new TransportOptions();
        TransportOptions sctp = new TransportOptions();
        sctp.transport = TransportOptions.Transport.SCTP;
        sctp.sctpStack = sctpStack;
        Compare.Plan plan = new Compare.Plan(sizes, (long) mibPerPoint << 20, latencyIterations, latencyMax, series,
                stack);
        stdout.println("rddp compare: " + String.join(", ", series.stream().map(each -> each.label).toList())
                + (stack != null ? " (SCTP: " + stack.name() + ")" : "") + "; loopback, both ends in this process");
        stdout.flush();
        Compare.Results results = Compare.run(plan, mpa, sctp, err::println);
        List<Path> written = Compare.write(results, out);
        if (json) {
            stdout.println(java.nio.file.Files.readString(written.getFirst()));
        } else {
            stdout.print(Compare.table(results, series));
            stdout.println("written: " + String.join(", ", written.stream().map(Path::toString).toList()));
        }
        return 0;
    }
}
