package org.rddp.cli.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.rddp.cli.exs.ExsBench;
import org.rddp.cli.perftest.PerfReport;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.cli.perftest.Perftest;
import org.rddp.transport.sctp.SctpStack;

/**
 * The cross-transport comparison: for each message size, RDMA Write bandwidth and Send ping-pong latency of RDDP
 * over MPA and over SCTP, next to the raw baselines of each (a plain TCP socket; a raw SCTP socket of the same
 * backend). Each point runs as two ends ({@link CompareEnds}): both in this process on loopback, or the server end
 * in a responder elsewhere ({@link ComparePeer}, {@link CompareResponder}); the table, JSON and charts are the same.
 */
public final class Compare {
    /** The columns: each transport's RDDP next to its baseline. */
    enum Series {
        TCP_SOCKET("TCP socket", null),
        RDDP_MPA("RDDP over MPA", TCP_SOCKET),
        /** The Extended Sockets API's normal sends (advertised, read, acknowledged), in one process only. */
        EXS_MPA("EXS over MPA", TCP_SOCKET),
        /**
         * The RFC's floor for Send latency over MPA ({@code MpaFloor}): the per-octet work RFC 5044 asks of each hop
         * and nothing else; latency only. RDDP over MPA's latency gets a ratio to it.
         */
        MPA_FLOOR("MPA hop, RFC floor", null),
        SCTP_SOCKET("SCTP socket", null),
        /** The JDK's {@code SctpChannel}, on a host with kernel SCTP: what a Java program there would use. */
        JDK_SCTP_SOCKET("SctpChannel (JDK)", null),
        RDDP_SCTP("RDDP over SCTP", SCTP_SOCKET),
        EXS_SCTP("EXS over SCTP", SCTP_SOCKET),
        /** {@code --ipv6}: the same over IPv6's loopback ({@code ::1}), both ends in one process. */
        TCP_SOCKET_6("TCP socket v6", null, TCP_SOCKET),
        RDDP_MPA_6("RDDP over MPA v6", TCP_SOCKET_6, RDDP_MPA),
        SCTP_SOCKET_6("SCTP socket v6", null, SCTP_SOCKET),
        RDDP_SCTP_6("RDDP over SCTP v6", SCTP_SOCKET_6, RDDP_SCTP);

        final String label;
        /** The socket a ratio is taken to, or null for a socket. */
        final Series baseline;
        /** The IPv4 series this one runs as, over IPv6; null for an IPv4 series. */
        private final Series overIpv6Of;

        Series(String label, Series baseline) {
            this(label, baseline, null);
        }

        Series(String label, Series baseline, Series overIpv6Of) {
            this.label = label;
            this.baseline = baseline;
            this.overIpv6Of = overIpv6Of;
        }

        /** Whether it runs over IPv6. */
        boolean ipv6() {
            return overIpv6Of != null;
        }

        /** What runs: the IPv4 series itself, or the one an IPv6 series repeats. */
        Series measured() {
            return overIpv6Of != null ? overIpv6Of : this;
        }

        /** The IPv6 twin of an IPv4 series, or null when it has none. */
        Series overIpv6() {
            for (Series each : values()) {
                if (each.overIpv6Of == this) {
                    return each;
                }
            }
            return null;
        }

        boolean exs() {
            return this == EXS_MPA || this == EXS_SCTP;
        }

        /** Whether it measures latency only. */
        boolean latencyOnly() {
            return this == MPA_FLOOR;
        }

        /** The series with {@code label}. */
        static Series labelled(String label) {
            for (Series each : values()) {
                if (each.label.equals(label)) {
                    return each;
                }
            }
            throw new IllegalArgumentException("no series is labelled " + label);
        }
    }

    /**
     * What to measure.
     *
     * @param sizes             message sizes
     * @param bandwidthBytes    octets moved per bandwidth point (iterations: this over the size, 100..50000), or 0 to
     *                          size every point to last {@code secondsPerPoint} at the rate its warm-up showed
     * @param secondsPerPoint   how long a bandwidth point lasts when {@code bandwidthBytes} is 0
     * @param latencyIterations round trips per latency point
     * @param latencyMax        the largest size latency is measured at
     * @param repeat            how many times every point is measured (the median is reported, with the spread)
     * @param series            what to run
     * @param sctpStack         the SCTP backend, or null when SCTP is not run
     */
    record Plan(List<Integer> sizes, long bandwidthBytes, double secondsPerPoint, int latencyIterations,
            int latencyMax, int repeat, List<Series> series, SctpStack sctpStack) {
        Plan {
            sizes = List.copyOf(sizes);
            series = List.copyOf(series);
            if (repeat < 1 || secondsPerPoint <= 0 || bandwidthBytes < 0) {
                throw new IllegalArgumentException("repeat at least 1, seconds per point and volume positive");
            }
        }

        /** Messages of a bandwidth point of {@code size} octets, given the warm-up's rate in octets a second. */
        long iterations(int size, double warmRate) {
            if (bandwidthBytes > 0 || Double.isNaN(warmRate)) {
                return Math.clamp((bandwidthBytes > 0 ? bandwidthBytes : DEFAULT_BYTES) / size, 100, 50_000);
            }
            return Math.clamp((long) (warmRate * secondsPerPoint / size), 100, Task.MAX_ITERATIONS);
        }
    }

    /**
     * One measurement to make, as the initiator asks the responder for it: a series, bandwidth or latency, a size,
     * and messages (bandwidth) or round trips (latency).
     */
    record Task(Series series, String kind, int size, long iterations) {
        /** The most messages or round trips one point may ask for. */
        static final long MAX_ITERATIONS = 10_000_000;

        Task {
            if (!kind.equals(BANDWIDTH) && !kind.equals(LATENCY)) {
                throw new IllegalArgumentException("a measure is " + BANDWIDTH + " or " + LATENCY + ", not " + kind);
            }
            if (size < 1 || size > Perftest.MAX_SIZE) {
                throw new IllegalArgumentException("size " + size + " outside 1.." + Perftest.MAX_SIZE);
            }
            if (iterations < 1 || iterations > MAX_ITERATIONS) {
                throw new IllegalArgumentException("iterations " + iterations + " outside 1.." + MAX_ITERATIONS);
            }
        }

        boolean bandwidth() {
            return kind.equals(BANDWIDTH);
        }

        /** As the control connection carries it: {@code SERIES kind size iterations}. */
        String encode() {
            return series.name() + " " + kind + " " + size + " " + iterations;
        }

        /** The inverse of {@link #encode}; anything else is an {@link IllegalArgumentException} saying what. */
        static Task parse(String text) {
            String[] words = text.trim().split(" +");
            if (words.length != 4) {
                throw new IllegalArgumentException("a point is SERIES KIND SIZE ITERATIONS, not '" + text + "'");
            }
            Series series;
            try {
                series = Series.valueOf(words[0]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("no series " + words[0] + "; there are "
                        + java.util.Arrays.toString(Series.values()));
            }
            try {
                return new Task(series, words[1], Integer.parseInt(words[2]), Long.parseLong(words[3]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("size and iterations are numbers, not '" + words[2] + " "
                        + words[3] + "'");
            }
        }
    }

    /** Measures one point: both ends in this process, or the server end in a responder. */
    @FunctionalInterface
    interface Measure {
        PerfResult run(Task task) throws Exception;
    }

    /**
     * One point: a series at a size; {@code value} is the median of the runs, {@code min} and {@code max} their
     * spread, {@code runs} each run's value in order. A bandwidth point also has its message rate (perftest's
     * MsgRate[Mpps], the median run's) and the cores the process kept busy meanwhile (its CPU time over the point's
     * wall time, connection setup included, the median of the runs), null for latency.
     */
    record Point(String series, String kind, int bytes, long iterations, double value, double min, double max,
            String unit, List<Double> runs, Double messageRateMpps, Double busyCores) {
        Point {
            runs = List.copyOf(runs);
        }

        /** Million messages a second per busy core, or NaN. */
        double mppsPerCore() {
            return messageRateMpps == null || busyCores == null || busyCores <= 0 ? Double.NaN
                    : messageRateMpps / busyCores;
        }

        /** Gigabits a second (10^9) per busy core, or NaN. */
        double gbitsPerCore() {
            return busyCores == null || busyCores <= 0 ? Double.NaN : value * (1 << 20) * 8 / 1e9 / busyCores;
        }
    }

    /** Everything measured, for the table, the JSON and the chart; {@code setup} says where the ends ran. */
    record Results(String setup, String sctpStack, List<Integer> sizes, int repeat, List<Point> points) {
        /** The value of {@code series} and {@code kind} at {@code size} (the median), or NaN when not measured. */
        double value(Series series, String kind, int size) {
            Point point = point(series, kind, size);
            return point == null ? Double.NaN : point.value();
        }

        Point point(Series series, String kind, int size) {
            return points.stream().filter(p -> p.series().equals(series.label) && p.kind().equals(kind)
                    && p.bytes() == size).findFirst().orElse(null);
        }

        /**
         * {@code series}' value over its baseline's at {@code size}, each ratio taken within one run, the median of
         * the runs' ratios; NaN when either was not measured.
         */
        double ratio(Series series, Series baseline, String kind, int size) {
            Point point = point(series, kind, size);
            Point base = point(baseline, kind, size);
            if (point == null || base == null) {
                return Double.NaN;
            }
            double[] ratios = new double[Math.min(point.runs().size(), base.runs().size())];
            for (int i = 0; i < ratios.length; i++) {
                ratios[i] = point.runs().get(i) / base.runs().get(i);
            }
            return PerfResult.median(ratios);
        }
    }

    static final String BANDWIDTH = "bandwidth";
    /** Octets a bandwidth warm-up moves (100..20000 messages), and a point when no rate is known. */
    private static final long DEFAULT_BYTES = 32L << 20;
    private static final int WARM_UP_ROUND_TRIPS = 200;
    /** The least share of a point's time a warm-up lasts when points are sized by time. */
    static final double WARM_UP_SHARE = 0.25;
    /** The most bandwidth runs one warm-up makes. */
    static final int WARM_UP_RUNS = 4;
    static final String LATENCY = "latency";
    /** Where the in-process comparison runs. */
    static final String IN_PROCESS = "both ends in one process, loopback";

    private Compare() {
    }

    /** Both ends of every point in this process, on loopback, over these transports. */
    static Measure inProcess(CompareEnds.Transports transports) {
        return task -> task.series().exs() ? exs(task) : CompareEnds.inProcess(task, transports);
    }

    /** Messages in flight in an EXS bandwidth point: the EXS default credits. */
    private static final int EXS_DEPTH = 16;

    /**
     * An EXS point, both ends in this process, each driven by its own thread: normal sends ({@code iterations} of
     * them, {@value #EXS_DEPTH} in flight), or ping-pongs of normal sends.
     */
    private static PerfResult exs(Task task) throws Exception {
        ExsBench bench = new ExsBench(task.series() == Series.EXS_MPA ? "mpa" : "sctp", Duration.ZERO,
                Duration.ZERO, true);
        return task.bandwidth() ? bench.exsMessages(task.size(), task.iterations(), EXS_DEPTH)
                : bench.pingPong(ExsBench.Mode.NORMAL, task.size(), (int) task.iterations());
    }

    /**
     * Runs {@code plan} through {@code measure}, saying what it is at through {@code progress}. First every series at
     * every size, unmeasured: the JIT compiles each size's path (a 64 KiB Write is not a 4 KiB one) outside the
     * measured points, and the rate seen sizes each bandwidth point to last {@link Plan#secondsPerPoint()}, so that a
     * point measures the steady state, not connection start and ramp-up ({@link #warmUp}). Then every point
     * {@link Plan#repeat()} times; the median is reported.
     */
    static Results run(Plan plan, Measure measure, String setup, Consumer<String> progress) throws Exception {
        Map<String, Double> warmRates = new java.util.HashMap<>();
        progress.accept("compare: warming up every series at every size, not measured");
        for (int size : plan.sizes()) {
            for (Series series : plan.series()) {
                if (!series.latencyOnly()) {
                    warmRates.put(series + "/" + size, warmUp(plan, measure, series, size));
                }
                if (size <= plan.latencyMax()) {
                    measure.run(new Task(series, LATENCY, size, Math.min(WARM_UP_ROUND_TRIPS,
                            plan.latencyIterations())));
                }
            }
        }
        Map<String, List<PerfResult>> measured = new LinkedHashMap<>();
        Map<String, List<Double>> busy = new java.util.HashMap<>();
        for (int run = 1; run <= plan.repeat(); run++) {
            for (int size : plan.sizes()) {
                boolean latency = size <= plan.latencyMax();
                for (Series series : plan.series()) {
                    progress.accept(String.format(Locale.ROOT, "compare:%s %s, %d octets", plan.repeat() > 1
                            ? " run " + run + " of " + plan.repeat() + "," : "", series.label, size));
                    long iterations = plan.iterations(size, warmRates.getOrDefault(series + "/" + size, Double.NaN));
                    if (series.latencyOnly()) {
                        if (latency) {
                            measured.computeIfAbsent(key(series, LATENCY, size), k -> new ArrayList<>())
                                    .add(measure.run(new Task(series, LATENCY, size, plan.latencyIterations())));
                        }
                        continue;
                    }
                    long cpu = processCpuNanos();
                    long began = System.nanoTime();
                    measured.computeIfAbsent(key(series, BANDWIDTH, size), k -> new ArrayList<>())
                            .add(measure.run(new Task(series, BANDWIDTH, size, iterations)));
                    long used = processCpuNanos() - cpu; // in clock ticks: a short point may show none
                    busy.computeIfAbsent(key(series, BANDWIDTH, size), k -> new ArrayList<>())
                            .add(used > 0 ? used / (double) Math.max(1, System.nanoTime() - began) : Double.NaN);
                    if (latency) {
                        measured.computeIfAbsent(key(series, LATENCY, size), k -> new ArrayList<>())
                                .add(measure.run(new Task(series, LATENCY, size, plan.latencyIterations())));
                    }
                }
            }
        }
        List<Point> points = new ArrayList<>();
        measured.forEach((key, results) -> points.add(point(key, results, busy.get(key))));
        return new Results(setup, plan.sctpStack() == null ? null : plan.sctpStack().name(), plan.sizes(),
                plan.repeat(), points);
    }

    /**
     * Warms {@code series} up at {@code size} and returns the rate it reached, in octets a second. A first run moves
     * {@link #DEFAULT_BYTES}, or the points' volume when that is less (100..20,000 messages); when points are sized by
     * time, a warm-up shorter than {@link #WARM_UP_SHARE} of a point runs again, longer, up to {@link #WARM_UP_RUNS}
     * times: 20,000 messages of 64 B take milliseconds, mostly start-up, and their rate sized the points at a tenth
     * of a second or less.
     */
    static double warmUp(Plan plan, Measure measure, Series series, int size) throws Exception {
        // points of a given volume warm up with it, when it is less (at least 100 messages: the JIT's share)
        long bytes = plan.bandwidthBytes() > 0 ? Math.min(plan.bandwidthBytes(), DEFAULT_BYTES) : DEFAULT_BYTES;
        long iterations = Math.clamp(bytes / size, 100, 20_000);
        double rate = rate(measure.run(new Task(series, BANDWIDTH, size, iterations)));
        if (plan.bandwidthBytes() > 0) {
            return rate; // the points have a volume of their own
        }
        double goal = WARM_UP_SHARE * plan.secondsPerPoint();
        for (int run = 1; run < WARM_UP_RUNS && (double) iterations * size / rate < goal
                && iterations < Task.MAX_ITERATIONS; run++) {
            iterations = Math.min(Task.MAX_ITERATIONS, Math.max(2 * iterations, (long) (rate * goal / size)));
            rate = rate(measure.run(new Task(series, BANDWIDTH, size, iterations)));
        }
        return rate;
    }

    /** A bandwidth result's rate in octets a second. */
    private static double rate(PerfResult result) {
        return ((PerfResult.Bandwidth) result).averageMbps() * (1 << 20);
    }

    private static String key(Series series, String kind, int size) {
        return series.name() + " " + kind + " " + size;
    }

    /** The point of {@code key}'s runs: their median and spread; {@code busy}, each bandwidth run's busy cores. */
    private static Point point(String key, List<PerfResult> results, List<Double> busy) {
        String[] words = key.split(" ");
        Series series = Series.valueOf(words[0]);
        boolean bandwidth = words[1].equals(BANDWIDTH);
        double[] values = results.stream().mapToDouble(result -> bandwidth
                ? ((PerfResult.Bandwidth) result).averageMbps() : ((PerfResult.Latency) result).typicalUsec())
                .toArray();
        long iterations = results.stream().mapToLong(result -> bandwidth ? ((PerfResult.Bandwidth) result)
                .iterations() : ((PerfResult.Latency) result).iterations()).max().orElse(0);
        Double rate = bandwidth ? PerfResult.median(results.stream().mapToDouble(result ->
                ((PerfResult.Bandwidth) result).messageRateMpps()).toArray()) : null;
        double[] measuredCores = busy == null ? new double[0] : busy.stream().mapToDouble(Double::doubleValue)
                .filter(cores -> !Double.isNaN(cores)).toArray();
        Double cores = bandwidth && measuredCores.length > 0 ? PerfResult.median(measuredCores) : null;
        return new Point(series.label, words[1], Integer.parseInt(words[2]), iterations, PerfResult.median(values),
                java.util.Arrays.stream(values).min().orElse(Double.NaN),
                java.util.Arrays.stream(values).max().orElse(Double.NaN), bandwidth ? "MB/sec" : "usec",
                java.util.Arrays.stream(values).boxed().toList(), rate, cores);
    }

    /** The CPU time this process has used, in nanoseconds (every thread: both ends in one process). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * The message rates, as perftest prints them (MsgRate[Mpps]), and per core the process kept busy: what compares
     * across machines and with published per-core figures.
     */
    static String messageRates(Results results, List<Series> all) {
        List<Series> series = all.stream().filter(each -> !each.latencyOnly()).toList();
        StringBuilder out = new StringBuilder("Write message rate, M messages/s (perftest's MsgRate[Mpps]); per busy "
                + "core, in M messages/s and Gbit/s (the process's CPU time over the point, setup included)\n");
        out.append(String.format(Locale.ROOT, "%10s", "#bytes"));
        for (Series each : series) {
            out.append(String.format(Locale.ROOT, " %" + width(each) + "s %6s %6s", each.label, "/core", "Gb/c"));
        }
        out.append('\n');
        for (int size : results.sizes()) {
            out.append(String.format(Locale.ROOT, "%10d", size));
            for (Series each : series) {
                Point point = results.point(each, BANDWIDTH, size);
                out.append(point == null || point.messageRateMpps() == null
                        ? String.format(Locale.ROOT, " %" + width(each) + "s %6s %6s", "-", "-", "-")
                        : point.busyCores() == null ? String.format(Locale.ROOT, " %" + width(each) + ".3f %6s %6s",
                                point.messageRateMpps(), "-", "-")
                        : String.format(Locale.ROOT, " %" + width(each) + ".3f %6.3f %6.2f", point.messageRateMpps(),
                                point.mppsPerCore(), point.gbitsPerCore()));
            }
            out.append('\n');
        }
        return out.append('\n').toString();
    }

    /** The results as two tables, bandwidth and latency, each RDDP column with its ratio to its baseline. */
    static String table(Results results, List<Series> all) {
        StringBuilder out = new StringBuilder();
        for (String kind : List.of(BANDWIDTH, LATENCY)) {
            boolean bandwidth = kind.equals(BANDWIDTH);
            List<Series> series = all.stream().filter(each -> !bandwidth || !each.latencyOnly()).toList();
            out.append(bandwidth ? "RDMA Write bandwidth vs socket streaming, MB/sec (2^20 octets/s); ratio to the "
                    + "baseline" : "Send ping-pong vs socket ping-pong, latency in usec (half round trip, median); "
                    + "ratio to the baseline" + (series.contains(Series.MPA_FLOOR) ? ", RDDP over MPA's also to the "
                    + "RFC floor" : "")).append(results.repeat() > 1 ? "; median of " + results.repeat()
                    + " runs, spread (max-min)/median in %, ratios taken within each run" : "").append('\n');
            out.append(String.format(Locale.ROOT, "%10s", "#bytes"));
            for (Series each : series) {
                out.append(String.format(Locale.ROOT, " %" + width(each) + "s", each.label));
                if (each.baseline != null) {
                    out.append(String.format(Locale.ROOT, " %6s", "ratio"));
                }
                if (againstJdk(each, series)) {
                    out.append(String.format(Locale.ROOT, " %6s", "/JDK"));
                }
                if (againstFloor(each, series)) {
                    out.append(String.format(Locale.ROOT, " %6s", "/floor"));
                }
            }
            out.append('\n');
            for (int size : results.sizes()) {
                if (Double.isNaN(results.value(series.getFirst(), kind, size))) {
                    continue;
                }
                out.append(String.format(Locale.ROOT, "%10d", size));
                for (Series each : series) {
                    Point point = results.point(each, kind, size);
                    int width = width(each);
                    out.append(point == null ? String.format(Locale.ROOT, " %" + width + "s", "-")
                            : results.repeat() > 1 ? String.format(Locale.ROOT, " %" + (width - 6) + ".2f ±%3.0f%%",
                                    point.value(), 100 * (point.max() - point.min()) / point.value())
                            : String.format(Locale.ROOT, " %" + width + ".2f", point.value()));
                    if (each.baseline != null) {
                        out.append(ratio(results.ratio(each, each.baseline, kind, size)));
                    }
                    if (againstJdk(each, series)) {
                        out.append(ratio(results.ratio(each, Series.JDK_SCTP_SOCKET, kind, size)));
                    }
                    if (againstFloor(each, series)) {
                        out.append(ratio(results.ratio(each, Series.MPA_FLOOR, kind, size)));
                    }
                }
                out.append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Whether {@code each} gets a ratio to the RFC floor, which runs next to it (latency: RDDP over MPA). */
    private static boolean againstFloor(Series each, List<Series> series) {
        return each == Series.RDDP_MPA && series.contains(Series.MPA_FLOOR);
    }

    /** A column's width: 16, or its label's. */
    private static int width(Series each) {
        return Math.max(16, each.label.length());
    }

    /** Whether {@code each} gets a second ratio, to the JDK's SCTP socket (which runs next to it). */
    private static boolean againstJdk(Series each, List<Series> series) {
        return each.baseline == Series.SCTP_SOCKET && series.contains(Series.JDK_SCTP_SOCKET);
    }

    private static String ratio(double ratio) {
        return Double.isNaN(ratio) ? String.format(Locale.ROOT, " %6s", "-")
                : String.format(Locale.ROOT, " %6.2f", ratio);
    }

    /**
     * What a result depends on, in one line, so that it is never read out of context: where the ends ran, the SCTP
     * backend, the network's conditions (none added yet), the machine, the Java, the commit (from the launcher's
     * {@code rddp.commit}), the date, and how many runs each point is the median of.
     */
    static String conditions(Results results) {
        String os = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        return results.setup() + (results.sctpStack() == null ? "" : "; SCTP " + results.sctpStack().toLowerCase(
                Locale.ROOT).replace('_', '-')) + "; network as it is (no loss or delay added); "
                + Runtime.getRuntime().availableProcessors() + " processors, " + os + ", Java "
                + Runtime.version().feature() + "; commit " + commit() + ", " + java.time.LocalDate.now(
                        java.time.ZoneOffset.UTC) + "; " + (results.repeat() > 1 ? "median of " + results.repeat()
                                + " runs, band: smallest to largest" : "one run");
    }

    /** The commit the launcher ({@code ./rddp}) ran at, from its {@code rddp.commit}; "unknown" otherwise. */
    static String commit() {
        return System.getProperty("rddp.commit", "unknown");
    }

    /**
     * Writes {@code compare.json}, {@code bandwidth.png}, {@code latency.png} and {@code report.html} (the tables and
     * both charts in one self-contained page, to hand to someone else) into {@code folder}.
     */
    static List<Path> write(Results results, List<Series> all, Path folder) throws IOException {
        Files.createDirectories(folder);
        String conditions = conditions(results);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("tool", "rddp compare");
        document.put("conditions", conditions);
        document.put("commit", commit());
        document.put("setup", results.setup());
        document.put("sctpStack", results.sctpStack());
        document.put("java", Runtime.version().toString());
        document.put("processors", Runtime.getRuntime().availableProcessors());
        document.put("sizes", results.sizes());
        document.put("repeat", results.repeat());
        document.put("points", results.points());
        Path json = folder.resolve("compare.json");
        PerfReport.JSON.writeValue(json.toFile(), document);
        Path bandwidth = folder.resolve("bandwidth.png");
        Path latency = folder.resolve("latency.png");
        byte[] bandwidthChart = Chart.png(results, BANDWIDTH, BANDWIDTH_TITLE, "MB/sec", conditions);
        byte[] latencyChart = Chart.png(results, LATENCY, LATENCY_TITLE, "usec (half round trip)", conditions);
        Files.write(bandwidth, bandwidthChart);
        Files.write(latency, latencyChart);
        Path report = folder.resolve("report.html");
        Files.writeString(report, Report.html(conditions, table(results, all) + messageRates(results, all),
                List.of(new Report.Figure(BANDWIDTH_TITLE, bandwidthChart), new Report.Figure(LATENCY_TITLE,
                        latencyChart))));
        return List.of(json, bandwidth, latency, report);
    }

    private static final String BANDWIDTH_TITLE = "RDMA Write bandwidth vs message size";
    private static final String LATENCY_TITLE = "Send ping-pong latency vs message size";
}
