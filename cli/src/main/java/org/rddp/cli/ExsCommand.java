package org.rddp.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rddp exs-bw} and {@code rddp exs-lat}: the Extended Sockets API measured as section 5 of the UNH-EXS paper
 * measures it (its Figures 3, 4 and 10), on loopback with both ends in this process, over each transport asked for,
 * next to the same transport's RDMA Read and a TCP socket in the same run.
 */
final class ExsCommand {
    private ExsCommand() {
    }

    /** The transport a series ran over ("EXS normal over sctp": sctp), or the series itself ("TCP"). */
    static String transportOf(String series) {
        return series.substring(series.lastIndexOf(' ') + 1);
    }

    /** Options both commands take. */
    abstract static class Common implements Callable<Integer> {
        @Option(names = {"-t", "--transport"}, split = ",", defaultValue = "mpa,sctp",
                description = "transports, by URI scheme; default: ${DEFAULT-VALUE}")
        List<String> transports;

        @Option(names = "--json", description = "print the results as JSON")
        boolean json;

        @Option(names = "--progress", defaultValue = "manual", description = "who drives each end's transport: "
                + "manual (the thread that uses the end, as it dequeues: it reads its own sockets) or automatic (a "
                + "loop thread of the transport's own); default: ${DEFAULT-VALUE}")
        ProgressMode progress;

        /** {@code --progress}. */
        enum ProgressMode { manual, automatic }

        boolean manual() {
            return progress == ProgressMode.manual;
        }

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        /** Prints the points as a table, or as JSON. */
        void print(List<?> points, String header, java.util.function.Function<Object, String> row) throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(PerfReport.JSON.writeValueAsString(points));
                return;
            }
            out.println(header);
            for (Object point : points) {
                out.println(row.apply(point));
            }
        }
    }

    /** {@code rddp exs-bw}. */
    @Command(name = "exs-bw", mixinStandardHelpOptions = true, sortOptions = false,
            description = "EXS throughput for normal, immediate and persistent sends, with CPU per GB (the process's, "
                    + "and each side's thread's: with manual progress a side's thread does all of its work), next to "
                    + "the transport's RDMA Read and a TCP socket (the paper's Figures 3 and 4).")
    static final class Bandwidth extends Common {
        @Option(names = "--sizes", split = ",", defaultValue = "1024,16384,65536,262144,1048576",
                description = "message sizes in octets; default: ${DEFAULT-VALUE}")
        List<Integer> sizes;

        @Option(names = "--depth", defaultValue = "8", description = "messages in flight; default: ${DEFAULT-VALUE}")
        int depth;

        @Option(names = "--seconds", defaultValue = "1", description = "measured seconds per point, after as long "
                + "again to warm up; default: ${DEFAULT-VALUE}")
        double seconds;

        @Override
        public Integer call() throws Exception {
            Duration time = Duration.ofNanos((long) (seconds * 1e9));
            List<ExsBench.Bandwidth> points = new ArrayList<>();
            for (int size : sizes) {
                for (String scheme : transports) {
                    ExsBench bench = new ExsBench(scheme, time, time, manual());
                    points.add(bench.readBandwidth(size, depth));
                    for (ExsBench.Mode mode : ExsBench.Mode.values()) {
                        if (mode != ExsBench.Mode.IMMEDIATE || size <= 65_536) {
                            points.add(bench.exsBandwidth(mode, size, depth));
                        }
                    }
                }
                points.add(ExsBench.tcpBandwidth(size, depth, time, time));
            }
            print(points, String.format("%-28s %10s %12s %12s %12s %12s %12s", "series", "#bytes", "MB/sec",
                    "CPU s/GB", "sender", "receiver", "of the Read"), point -> row((ExsBench.Bandwidth) point,
                    points));
            return 0;
        }

        /** A row, with a normal send's ratio to the same transport's RDMA Read at the same size. */
        private static String row(ExsBench.Bandwidth point, List<ExsBench.Bandwidth> points) {
            String ratio = "";
            String transport = transportOf(point.series());
            for (ExsBench.Bandwidth read : points) {
                if (read.bytes() == point.bytes() && read.series().equals("RDMA Read over " + transport)
                        && point.series().startsWith("EXS")) {
                    ratio = String.format("%.2f", point.mbps() / read.mbps());
                }
            }
            return String.format("%-28s %10d %12.1f %12.3f %12s %12s %12s", point.series(), point.bytes(),
                    point.mbps(), point.cpuSecondsPerGb(), side(point.senderCpuSecondsPerGb()),
                    side(point.receiverCpuSecondsPerGb()), ratio);
        }

        /** One side's CPU seconds per GB, or "-" when its transport had a thread of its own. */
        private static String side(double cpuSecondsPerGb) {
            return Double.isNaN(cpuSecondsPerGb) ? "-" : String.format("%.3f", cpuSecondsPerGb);
        }
    }

    /** {@code rddp exs-lat}. */
    @Command(name = "exs-lat", mixinStandardHelpOptions = true, sortOptions = false,
            description = "EXS one-way latency for normal, immediate and persistent sends, next to a TCP socket "
                    + "(the paper's Figure 10).")
    static final class Latency extends Common {
        @Option(names = "--sizes", split = ",", defaultValue = "1,10,100,4096",
                description = "message sizes in octets; default: ${DEFAULT-VALUE}")
        List<Integer> sizes;

        @Option(names = "--iterations", defaultValue = "10000", description = "ping-pongs per point, after as many "
                + "to warm up; default: ${DEFAULT-VALUE}")
        int iterations;

        @Override
        public Integer call() throws Exception {
            List<ExsBench.Latency> points = new ArrayList<>();
            for (int size : sizes) {
                for (String scheme : transports) {
                    ExsBench bench = new ExsBench(scheme, Duration.ZERO, Duration.ZERO, manual());
                    for (ExsBench.Mode mode : ExsBench.Mode.values()) {
                        points.add(bench.exsLatency(mode, size, iterations));
                    }
                }
                points.add(ExsBench.tcpLatency(size, iterations));
            }
            Map<String, Double> normal = new LinkedHashMap<>();
            for (ExsBench.Latency point : points) {
                if (point.series().startsWith("EXS normal")) {
                    normal.put(point.bytes() + " " + transportOf(point.series()), point.usec());
                }
            }
            print(points, String.format("%-28s %10s %12s %12s", "series", "#bytes", "usec", "of normal"), p -> {
                ExsBench.Latency point = (ExsBench.Latency) p;
                Double base = normal.get(point.bytes() + " " + transportOf(point.series()));
                String ratio = base == null || !point.series().startsWith("EXS") ? ""
                        : String.format("%.2f", point.usec() / base);
                return String.format("%-28s %10d %12.2f %12s", point.series(), point.bytes(), point.usec(), ratio);
            });
            return 0;
        }
    }
}
