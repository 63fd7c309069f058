package org.rddp.cli;

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
import org.rddp.cli.Perftest.Test;
import org.rddp.transport.sctp.SctpStack;

/**
 * The cross-transport comparison: for each message size, RDMA Write bandwidth and Send ping-pong latency of RDDP
 * over MPA and over SCTP, next to the raw baselines of each (a plain TCP socket; a raw SCTP socket of the same
 * backend), all on loopback in this process. RDDP runs through the perftest-style sessions of {@code write-bw}
 * and {@code send-lat} ({@link PerfPair}); the baselines through {@link Baselines}.
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
     * @param bandwidthBytes   octets moved per bandwidth point (iterations: this over the size, 100..20000)
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

    /** One point: a series at a size. */
    record Point(String series, String kind, int bytes, long iterations, double value, String unit) {
    }

    /** Everything measured, for the table, the JSON and the chart. */
    record Results(String sctpStack, List<Integer> sizes, List<Point> points) {
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

    private Compare() {
    }

    /**
     * Runs {@code plan}, saying what it is at through {@code progress}; first each series once at 4 KiB, unmeasured,
     * so that the first size does not measure the JIT compiler.
     */
    static Results run(Plan plan, TransportOptions mpa, TransportOptions sctp, Consumer<String> progress)
            throws Exception {
        List<Point> points = new ArrayList<>();
        Duration timeout = Duration.ofSeconds(60);
        progress.accept("compare: warming up (JIT) on every series, not measured");
        Plan warmUp = new Plan(List.of(WARM_UP_SIZE), (long) WARM_UP_SIZE * WARM_UP_ITERATIONS, WARM_UP_ITERATIONS,
                WARM_UP_SIZE, plan.series(), plan.sctpStack());
        if (!plan.equals(warmUp)) {
            run(warmUp, mpa, sctp, line -> { });
        }
        for (int size : plan.sizes()) {
            long iterations = plan.iterations(size);
            boolean latency = size <= plan.latencyMax();
            for (Series series : plan.series()) {
                progress.accept(String.format(Locale.ROOT, "compare: %s, %d octets", series.label, size));
                PerfResult.Bandwidth bandwidth = switch (series) {
                    case TCP_SOCKET -> Baselines.tcpBandwidth(size, iterations);
                    case SCTP_SOCKET -> Baselines.sctpBandwidth(plan.sctpStack(), size, iterations);
                    case RDDP_MPA -> rddpBandwidth(mpa, size, iterations, timeout);
                    case RDDP_SCTP -> rddpBandwidth(sctp, size, iterations, timeout);
                };
                points.add(new Point(series.label, BANDWIDTH, size, bandwidth.iterations(), bandwidth.averageMbps(),
                        "MB/sec"));
                if (latency) {
                    int rounds = plan.latencyIterations();
                    PerfResult.Latency result = switch (series) {
                        case TCP_SOCKET -> Baselines.tcpLatency(size, rounds);
                        case SCTP_SOCKET -> Baselines.sctpLatency(plan.sctpStack(), size, rounds);
                        case RDDP_MPA -> rddpLatency(mpa, size, rounds, timeout);
                        case RDDP_SCTP -> rddpLatency(sctp, size, rounds, timeout);
                    };
                    points.add(new Point(series.label, LATENCY, size, result.iterations(), result.typicalUsec(),
                            "usec"));
                }
            }
        }
        return new Results(plan.sctpStack() == null ? null : plan.sctpStack().name(), plan.sizes(), points);
    }

    private static PerfResult.Bandwidth rddpBandwidth(TransportOptions transport, int size, long iterations,
            Duration timeout) throws Exception {
        PerfSession.Settings settings = new PerfSession.Settings(Test.WRITE_BW, List.of(size), (int) iterations, 0,
                Test.WRITE_BW.defaultTxDepth(), 1, 1, false, timeout);
        return (PerfResult.Bandwidth) PerfPair.run(transport, settings).getFirst();
    }

    private static PerfResult.Latency rddpLatency(TransportOptions transport, int size, int rounds,
            Duration timeout) throws Exception {
        PerfSession.Settings settings = new PerfSession.Settings(Test.SEND_LAT, List.of(size), rounds, 0, 1,
                Test.SEND_LAT.defaultRxDepth(), 1, false, timeout);
        return (PerfResult.Latency) PerfPair.run(transport, settings).getFirst();
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
        document.put("setup", "both ends in one process, loopback");
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
