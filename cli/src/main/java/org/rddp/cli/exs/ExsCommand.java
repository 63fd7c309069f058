package org.rddp.cli.exs;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.cli.perftest.PerfReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rddp exs-bw} and {@code rddp exs-lat}: the Extended Sockets API measured as section 5 of the UNH-EXS paper
 * measures it (its Figures 3, 4 and 10), on loopback with both ends in this process, over each transport asked for,
 * next to the same transport's RDMA Read and a TCP socket in the same run.
 */
public final class ExsCommand {
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

        @Option(names = "--repeat", defaultValue = "1", description = "measure every point this many times; the "
                + "table (and the JSON) shows the median, and the median of the ratios taken within each run; "
                + "default: ${DEFAULT-VALUE}")
        int repeat;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        /** The runs of {@code measure}, {@code --repeat} of them; each run's points in the same order. */
        <P> List<List<P>> runs(Callable<List<P>> measure) throws Exception {
            if (repeat < 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--repeat takes 1 or more, not "
                        + repeat);
            }
            List<List<P>> runs = new ArrayList<>();
            for (int run = 0; run < repeat; run++) {
                runs.add(measure.call());
            }
            return runs;
        }

        /** Prints the points as a table, one row each, or as JSON. */
        void print(List<?> points, String header, List<String> rows) throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(PerfReport.JSON.writeValueAsString(points));
                return;
            }
            if (repeat > 1) {
                out.println("median of " + repeat + " runs; each ratio taken within its run, then the median");
            }
            out.println(header);
            rows.forEach(out::println);
        }
    }

    /** The median over {@code runs} of {@code value} of each run's {@code point}-th point. */
    static <P> double median(List<List<P>> runs, int point, ToDoubleFunction<P> value) {
        return PerfResult.median(runs.stream().mapToDouble(run -> value.applyAsDouble(run.get(point))).toArray());
    }

    /**
     * The median over {@code runs} of the {@code point}-th point's {@code value} over the {@code base}-th point's,
     * each ratio taken within one run (a slow second of the machine moves both).
     */
    static <P> double ratio(List<List<P>> runs, int point, int base, ToDoubleFunction<P> value) {
        return PerfResult.median(runs.stream().mapToDouble(run -> value.applyAsDouble(run.get(point))
                / value.applyAsDouble(run.get(base))).toArray());
    }

    /**
     * The ratio column of the {@code point}-th point: for an EXS series, the median within-run {@link #ratio} of its
     * {@code value} to that of the series named {@code baseline} and its transport at the same size; else empty.
     */
    static <P> String ratioColumn(List<List<P>> runs, int point, Function<P, String> series, ToIntFunction<P> bytes,
            String baseline, ToDoubleFunction<P> value) {
        List<P> first = runs.get(0);
        String name = series.apply(first.get(point));
        if (!name.startsWith("EXS")) {
            return "";
        }
        String base = baseline + transportOf(name);
        for (int i = 0; i < first.size(); i++) {
            if (series.apply(first.get(i)).equals(base) && bytes.applyAsInt(first.get(i))
                    == bytes.applyAsInt(first.get(point))) {
                return String.format("%.2f", ratio(runs, point, i, value));
            }
        }
        return "";
    }

    /** {@code rddp exs-bw}. */
    @Command(name = "exs-bw", mixinStandardHelpOptions = true, sortOptions = false,
            description = "EXS throughput for normal, immediate and persistent sends, with CPU per GB (the process's, "
                    + "and each side's thread's: with manual progress a side's thread does all of its work), next to "
                    + "the transport's RDMA Read and a TCP socket (the paper's Figures 3 and 4).")
    public static final class Bandwidth extends Common {
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
            List<List<ExsBench.Bandwidth>> runs = runs(() -> measure(time));
            List<ExsBench.Bandwidth> points = new ArrayList<>();
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < runs.get(0).size(); i++) {
                ExsBench.Bandwidth point = new ExsBench.Bandwidth(runs.get(0).get(i).series(),
                        runs.get(0).get(i).bytes(), median(runs, i, ExsBench.Bandwidth::mbps),
                        median(runs, i, ExsBench.Bandwidth::cpuSecondsPerGb),
                        median(runs, i, ExsBench.Bandwidth::senderCpuSecondsPerGb),
                        median(runs, i, ExsBench.Bandwidth::receiverCpuSecondsPerGb));
                points.add(point);
                String ratio = ratioColumn(runs, i, ExsBench.Bandwidth::series, ExsBench.Bandwidth::bytes,
                        "RDMA Read over ", ExsBench.Bandwidth::mbps);
                rows.add(String.format("%-28s %10d %12.1f %12.3f %12s %12s %12s", point.series(), point.bytes(),
                        point.mbps(), point.cpuSecondsPerGb(), side(point.senderCpuSecondsPerGb()),
                        side(point.receiverCpuSecondsPerGb()), ratio));
            }
            print(points, String.format("%-28s %10s %12s %12s %12s %12s %12s", "series", "#bytes", "MB/sec",
                    "CPU s/GB", "sender", "receiver", "of the Read"), rows);
            return 0;
        }

        /** One run: every size, each transport's Read and EXS series, then TCP. */
        private List<ExsBench.Bandwidth> measure(Duration time) throws Exception {
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
            return points;
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
    public static final class Latency extends Common {
        @Option(names = "--sizes", split = ",", defaultValue = "1,10,100,4096",
                description = "message sizes in octets; default: ${DEFAULT-VALUE}")
        List<Integer> sizes;

        @Option(names = "--iterations", defaultValue = "10000", description = "ping-pongs per point, after as many "
                + "to warm up; default: ${DEFAULT-VALUE}")
        int iterations;

        @Override
        public Integer call() throws Exception {
            List<List<ExsBench.Latency>> runs = runs(this::measure);
            List<ExsBench.Latency> points = new ArrayList<>();
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < runs.get(0).size(); i++) {
                ExsBench.Latency point = new ExsBench.Latency(runs.get(0).get(i).series(), runs.get(0).get(i).bytes(),
                        median(runs, i, ExsBench.Latency::usec));
                points.add(point);
                String ratio = ratioColumn(runs, i, ExsBench.Latency::series, ExsBench.Latency::bytes,
                        "EXS normal over ", ExsBench.Latency::usec);
                rows.add(String.format("%-28s %10d %12.2f %12s", point.series(), point.bytes(), point.usec(), ratio));
            }
            print(points, String.format("%-28s %10s %12s %12s", "series", "#bytes", "usec", "of normal"), rows);
            return 0;
        }

        /** One run: every size, each transport's three kinds of send, then TCP. */
        private List<ExsBench.Latency> measure() throws Exception {
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
            return points;
        }
    }
}
