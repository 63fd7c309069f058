package org.rddp.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.rddp.transport.sctp.SctpStack;

/**
 * The cross-transport comparison: for each message size, RDMA Write bandwidth and Send ping-pong latency of RDDP
 * over MPA and over SCTP, next to the raw baselines of each (a plain TCP socket; a raw SCTP socket of the same
 * backend). Each point runs as two ends ({@link CompareEnds}): both in this process on loopback, or the server end
 * in a responder elsewhere ({@link ComparePeer}, {@link CompareResponder}); the table, JSON and charts are the same.
 */
final class Compare {
    /** The columns: each transport's RDDP next to its baseline. */
    enum Series {
        TCP_SOCKET("TCP socket"),
        RDDP_MPA("RDDP over MPA"),
        SCTP_SOCKET("SCTP socket"),
        RDDP_SCTP("RDDP over SCTP");

        final String label;

        Series(String label) {
            this.label = label;
        }
    }

    /**
     * What to measure.
     *
     * @param sizes            message sizes
     * @param bandwidthBytes   octets moved per bandwidth point (iterations: this over the size, 100..50000)
     * @param latencyIterations round trips per latency point
     * @param latencyMax       the largest size latency is measured at
     * @param series           what to run
     * @param sctpStack        the SCTP backend, or null when SCTP is not run
     */
    record Plan(List<Integer> sizes, long bandwidthBytes, int latencyIterations, int latencyMax, List<Series> series,
            SctpStack sctpStack) {
        Plan {
            sizes = List.copyOf(sizes);
            series = List.copyOf(series);
        }

        long iterations(int size) {
            return Math.clamp(bandwidthBytes / size, 100, 50_000);
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

    /** One point: a series at a size. */
    record Point(String series, String kind, int bytes, long iterations, double value, String unit) {
    }

    /** Everything measured, for the table, the JSON and the chart; {@code setup} says where the ends ran. */
    record Results(String setup, String sctpStack, List<Integer> sizes, List<Point> points) {
        /** The value of {@code series} and {@code kind} at {@code size}, or NaN when not measured. */
        double value(Series series, String kind, int size) {
            return points.stream().filter(p -> p.series().equals(series.label) && p.kind().equals(kind)
                    && p.bytes() == size).mapToDouble(Point::value).findFirst().orElse(Double.NaN);
        }
    }

    static final String BANDWIDTH = "bandwidth";
    private static final int WARM_UP_SIZE = 4096;
    private static final int WARM_UP_ITERATIONS = 2000;
    static final String LATENCY = "latency";
    /** Where the in-process comparison runs. */
    static final String IN_PROCESS = "both ends in one process, loopback";

    private Compare() {
    }

    /** Both ends of every point in this process, on loopback, over these transports. */
    static Measure inProcess(CompareEnds.Transports transports) {
        return task -> CompareEnds.inProcess(task, transports);
    }

    /**
     * Runs {@code plan} through {@code measure}, saying what it is at through {@code progress}; first each series
     * once at 4 KiB, unmeasured, so that the first size does not measure the JIT compiler (of both ends).
     */
    static Results run(Plan plan, Measure measure, String setup, Consumer<String> progress) throws Exception {
        List<Point> points = new ArrayList<>();
        progress.accept("compare: warming up (JIT) on every series, not measured");
        Plan warmUp = new Plan(List.of(WARM_UP_SIZE), (long) WARM_UP_SIZE * WARM_UP_ITERATIONS, WARM_UP_ITERATIONS,
                WARM_UP_SIZE, plan.series(), plan.sctpStack());
        if (!plan.equals(warmUp)) {
            run(warmUp, measure, setup, line -> { });
        }
        for (int size : plan.sizes()) {
            long iterations = plan.iterations(size);
            boolean latency = size <= plan.latencyMax();
            for (Series series : plan.series()) {
                progress.accept(String.format(Locale.ROOT, "compare: %s, %d octets", series.label, size));
                PerfResult.Bandwidth bandwidth = (PerfResult.Bandwidth) measure.run(new Task(series, BANDWIDTH, size,
                        iterations));
                points.add(new Point(series.label, BANDWIDTH, size, bandwidth.iterations(), bandwidth.averageMbps(),
                        "MB/sec"));
                if (latency) {
                    PerfResult.Latency result = (PerfResult.Latency) measure.run(new Task(series, LATENCY, size,
                            plan.latencyIterations()));
                    points.add(new Point(series.label, LATENCY, size, result.iterations(), result.typicalUsec(),
                            "usec"));
                }
            }
        }
        return new Results(setup, plan.sctpStack() == null ? null : plan.sctpStack().name(), plan.sizes(), points);
    }

    /** The results as two tables, bandwidth and latency, each RDDP column with its ratio to its baseline. */
    static String table(Results results, List<Series> series) {
        StringBuilder out = new StringBuilder();
        for (String kind : List.of(BANDWIDTH, LATENCY)) {
            boolean bandwidth = kind.equals(BANDWIDTH);
            out.append(bandwidth ? "RDMA Write bandwidth vs socket streaming, MB/sec (2^20 octets/s); ratio to the "
                    + "baseline" : "Send ping-pong vs socket ping-pong, latency in usec (half round trip, median); "
                    + "ratio to the baseline").append('\n');
            out.append(String.format(Locale.ROOT, "%10s", "#bytes"));
            for (Series each : series) {
                out.append(String.format(Locale.ROOT, " %16s", each.label));
                if (each == Series.RDDP_MPA || each == Series.RDDP_SCTP) {
                    out.append(String.format(Locale.ROOT, " %6s", "ratio"));
                }
            }
            out.append('\n');
            for (int size : results.sizes()) {
                if (Double.isNaN(results.value(series.getFirst(), kind, size))) {
                    continue;
                }
                out.append(String.format(Locale.ROOT, "%10d", size));
                for (Series each : series) {
                    double value = results.value(each, kind, size);
                    out.append(String.format(Locale.ROOT, " %16.2f", value));
                    if (each == Series.RDDP_MPA || each == Series.RDDP_SCTP) {
                        Series baseline = each == Series.RDDP_MPA ? Series.TCP_SOCKET : Series.SCTP_SOCKET;
                        double base = results.value(baseline, kind, size);
                        out.append(Double.isNaN(base) ? String.format(Locale.ROOT, " %6s", "-")
                                : String.format(Locale.ROOT, " %6.2f", value / base));
                    }
                }
                out.append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Writes {@code compare.json}, {@code bandwidth.png} and {@code latency.png} into {@code folder}. */
    static List<Path> write(Results results, Path folder) throws IOException {
        Files.createDirectories(folder);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("tool", "rddp compare");
        document.put("setup", results.setup());
        document.put("sctpStack", results.sctpStack());
        document.put("java", Runtime.version().toString());
        document.put("processors", Runtime.getRuntime().availableProcessors());
        document.put("sizes", results.sizes());
        document.put("points", results.points());
        Path json = folder.resolve("compare.json");
        PerfReport.JSON.writeValue(json.toFile(), document);
        Path bandwidth = folder.resolve("bandwidth.png");
        Path latency = folder.resolve("latency.png");
        Chart.write(results, BANDWIDTH, "Bandwidth vs message size", "MB/sec", bandwidth);
        Chart.write(results, LATENCY, "Latency vs message size", "usec (half round trip)", latency);
        return List.of(json, bandwidth, latency);
    }
}
