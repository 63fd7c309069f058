package org.rddp.cli.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rddp.cli.perftest.Arrivals;
import org.rddp.cli.perftest.PerfReport;

/**
 * What {@code compare}'s failover scenarios write: {@code failover.json} (per scenario and series each failure's
 * outcome, and the goodput in {@link #BUCKET} steps), a chart per scenario with every series on one time axis from its
 * path's failure ({@code failover-KIND.png}), and {@code failover.html}, the page with the conditions, the charts and
 * the table. An idle connection's scenario has each request's round trip where a transfer has its goodput.
 */
final class FailoverOutput {
    /** The chart's and the JSON's step: fine enough to see a failover of a few hundred milliseconds. */
    static final Duration BUCKET = Duration.ofMillis(100);

    private FailoverOutput() {
    }

    /** Writes every scenario's results, each under its {@code conditions}, into {@code folder}; returns the files. */
    static List<Path> write(List<List<Failover.Result>> scenarios, List<String> conditions, Path folder)
            throws IOException {
        Files.createDirectories(folder);
        List<Path> written = new ArrayList<>();
        List<Report.Figure> figures = new ArrayList<>();
        StringBuilder tables = new StringBuilder();
        List<Map<String, Object>> document = new ArrayList<>();
        for (int s = 0; s < scenarios.size(); s++) {
            List<Failover.Result> results = scenarios.get(s);
            if (results.isEmpty()) {
                continue;
            }
            Failover.Scenario scenario = results.getFirst().scenario();
            String title = scenario.idle() ? "Round trips of " + FailoverIdle.SIZE / 1024 + " KiB requests every "
                    + 1000 / FailoverIdle.RATE + " ms while " + scenario.withoutLoad()
                    : "A transfer of " + Failover.SIZE / 1024 + " KiB messages while " + scenario;
            byte[] png = chart(results, title, conditions.get(s));
            Path file = folder.resolve(name(scenario) + ".png");
            Files.write(file, png);
            written.add(file);
            figures.add(new Report.Figure(title, png));
            tables.append(Failover.table(results));
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("scenario", scenario.toString());
            entry.put("conditions", conditions.get(s));
            entry.put("series", results.stream().map(FailoverOutput::json).toList());
            document.add(entry);
        }
        Path json = folder.resolve("failover.json");
        PerfReport.JSON.writeValue(json.toFile(), Map.of("tool", "rddp compare", "failover", document));
        written.addFirst(json);
        Path page = folder.resolve("failover.html");
        Files.writeString(page, Report.html(String.join(" | ", conditions.stream().distinct().toList()),
                tables.toString(), figures));
        written.add(page);
        return written;
    }

    private static Map<String, Object> json(Failover.Result result) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("series", result.series().label);
        entry.put("error", result.error());
        entry.put("messages", result.trace().messages());
        entry.put("octets", result.trace().octets());
        entry.put("longestGapMs", result.trace().longestGap().toMillis());
        entry.put("faultSaid", result.fault() == null ? List.of() : result.fault().said());
        if (result.scenario().idle()) {
            return idleJson(result, entry);
        }
        entry.put("failures", result.outcomes().stream().map(outcome -> {
            Map<String, Object> each = new LinkedHashMap<>();
            each.put("failed", outcome.failed().toString());
            each.put("restored", outcome.restored().toString());
            each.put("stallMs", outcome.stall().toMillis());
            each.put("toOtherPathMs", outcome.toOtherPath() == null ? null : outcome.toOtherPath().toMillis());
            each.put("afterReturnMs", outcome.afterReturn() == null ? null : outcome.afterReturn().toMillis());
            each.put("toHalfRateMs", outcome.toHalfRate() == null ? null : outcome.toHalfRate().toMillis());
            each.put("resumed", outcome.resumed());
            each.put("mbpsBefore", finite(outcome.mbpsBefore()));
            each.put("mbpsDuring", finite(outcome.mbpsDuring()));
            each.put("mbpsAfter", finite(outcome.mbpsAfter()));
            return each;
        }).toList());
        Instant zero = result.outcomes().isEmpty() ? null : result.outcomes().getFirst().failed();
        if (zero != null) {
            TimelineChartCommand.Run run = run(result, zero);
            List<Double> seconds = run.ends().stream().map(end -> Duration.between(zero, end).toMillis() / 1000.0)
                    .toList();
            entry.put("goodput", Map.of("bucketMs", BUCKET.toMillis(), "secondsFromFailure", seconds, "mbps",
                    run.mbps()));
        }
        return entry;
    }

    /** {@code entry} with {@code result}'s failures and every request's round trip, an idle connection's. */
    private static Map<String, Object> idleJson(Failover.Result result, Map<String, Object> entry) {
        entry.put("requests", result.trace().answers());
        entry.put("failures", result.answers().stream().map(outcome -> {
            Map<String, Object> each = new LinkedHashMap<>();
            each.put("failed", outcome.failed().toString());
            each.put("restored", outcome.restored().toString());
            each.put("firstRoundTripMs", outcome.first() == null ? null : outcome.first().toNanos() / 1e6);
            each.put("firstAnsweredWhileDown", outcome.firstWhileDown());
            each.put("firstAfterReturnMs", outcome.afterReturn() == null ? null : outcome.afterReturn().toMillis());
            each.put("longestRoundTripMs", outcome.longest() == null ? null : outcome.longest().toNanos() / 1e6);
            each.put("sentWhileDown", outcome.asked());
            each.put("answeredWhileDown", outcome.answeredWhileDown());
            each.put("roundTripBeforeMs", outcome.before() == null ? null : outcome.before().toNanos() / 1e6);
            return each;
        }).toList());
        if (!result.answers().isEmpty()) {
            TimelineChartCommand.Run run = roundTrips(result, result.answers().getFirst().failed());
            entry.put("roundTrips", Map.of("secondsFromFailure", run.ends().stream().map(sent -> seconds(run.zero(),
                    sent)).toList(), "ms", run.mbps()));
        }
        return entry;
    }

    /** Each of {@code result}'s requests' round trip in milliseconds, at when it was sent, zero at {@code zero}. */
    private static TimelineChartCommand.Run roundTrips(Failover.Result result, Instant zero) {
        Arrivals.Trace trace = result.trace();
        List<Instant> sent = new ArrayList<>();
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < trace.answers(); i++) {
            sent.add(trace.askedAt(i));
            ms.add(trace.roundTrip(i).toNanos() / 1e6);
        }
        return new TimelineChartCommand.Run(result.series().label, sent, ms, zero);
    }

    private static Double finite(double value) {
        return Double.isFinite(value) ? value : null;
    }

    /** Every series' goodput in {@link #BUCKET} steps against the time from its own first failure, failures marked. */
    private static byte[] chart(List<Failover.Result> results, String title, String conditions) throws IOException {
        List<TimelineChartCommand.Run> runs = new ArrayList<>();
        List<Compare.Series> styles = new ArrayList<>();
        boolean idle = results.getFirst().scenario().idle();
        for (Failover.Result result : results) {
            if (result.failures() > 0 && result.trace().messages() > 0) {
                Instant zero = result.fault().failed().getFirst();
                runs.add(idle ? roundTrips(result, zero) : run(result, zero));
                styles.add(result.series());
            }
        }
        List<TimelineChartCommand.Mark> marks = new ArrayList<>();
        Failover.Result first = results.getFirst();
        if (first.fault() != null) {
            Instant zero = first.fault().failed().getFirst();
            for (int i = 0; i < first.fault().failed().size(); i++) {
                marks.add(new TimelineChartCommand.Mark("down", seconds(zero, first.fault().failed().get(i))));
                marks.add(new TimelineChartCommand.Mark("up", seconds(zero, first.fault().restored().get(i))));
            }
        }
        if (runs.isEmpty()) {
            throw new IOException("no series moved anything under " + first.scenario() + " to draw");
        }
        return Chart.timeline(runs, styles, marks, "the first path failing", idle ? "round trip, ms (by when the "
                + "request was sent)" : "MB/sec (each " + BUCKET.toMillis() + " ms)", title, conditions);
    }

    private static double seconds(Instant zero, Instant at) {
        return Duration.between(zero, at).toMillis() / 1000.0;
    }

    /** {@code result}'s goodput in {@link #BUCKET} steps from its first arrival to its last, zero at {@code zero}. */
    private static TimelineChartCommand.Run run(Failover.Result result, Instant zero) {
        Arrivals.Trace trace = result.trace();
        int per = (int) (BUCKET.toNanos() / trace.bin().toNanos());
        int from = Math.max(0, trace.binOf(trace.first()));
        int to = Math.min(trace.octetsIn().length, trace.binOf(trace.last()) + 1);
        List<Instant> ends = new ArrayList<>();
        List<Double> mbps = new ArrayList<>();
        for (int start = from; start < to; start += per) {
            long octets = 0;
            for (int i = start; i < Math.min(to, start + per); i++) {
                octets += trace.octetsIn()[i];
            }
            ends.add(trace.begins(start + per));
            mbps.add(octets / (BUCKET.toNanos() / 1e9) / (1 << 20));
        }
        return new TimelineChartCommand.Run(result.series().label, ends, mbps, zero);
    }

    /** "failover-KIND-…" for a file: the scenario's words, as a file name takes them. */
    static String name(Failover.Scenario scenario) {
        return ("failover-" + (scenario.idle() ? Failover.Scenario.IDLE + "-" : "") + String.join("-",
                scenario.command().subList(1, scenario.command().size()))).toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9.-]+", "-");
    }
}
