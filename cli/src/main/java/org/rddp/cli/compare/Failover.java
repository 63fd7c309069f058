package org.rddp.cli.compare;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.rddp.cli.perftest.Arrivals;
import org.rddp.cli.perftest.PerfResult;

/**
 * {@code compare}'s failover scenarios: what each transport does to a transfer when the path under it fails. Two
 * hosts are joined by two paths (the harness makes them, and gives Multipath TCP's path manager its endpoints); for
 * each series the responder's end sends messages of {@link #SIZE} octets to the initiator's, which checks every one
 * and notes when it arrived ({@link Arrivals}); once the transfer runs, the scenario command fails the first path and
 * brings it back ({@code fail KIND SECONDS}: {@code link-down}, the carrier lost; {@code blackhole}, every packet
 * dropped with the link up; or {@code flap CYCLES UP DOWN}, a blackhole of DOWN seconds every UP), printing when it
 * did each ({@code failed EPOCH}, {@code restored EPOCH}) and what it counted (the packets a blackhole dropped). Per
 * series and failure: how long the transfer stood still, whether it went on over another path before the first came
 * back and how soon, the goodput before, during and after, and that every message arrived, in order and intact. An
 * {@code idle} scenario asks the same of a connection that is nearly idle instead ({@link FailoverIdle}).
 */
final class Failover {
    /** The message size of a failover transfer. */
    static final int SIZE = 16384;
    /** The longest transfer a failover point may ask for. */
    static final Duration LONGEST = Duration.ofMinutes(10);
    /** The smallest message a failover transfer checks: a sequence number and a pattern octet. */
    static final int SMALLEST_MESSAGE = TcpStream.SMALLEST;
    /** How long the transfer runs before the path fails. */
    static final Duration LEAD = Duration.ofSeconds(2);
    /** The goodput before a failure and after the path came back is taken over this long. */
    static final Duration WINDOW = Duration.ofSeconds(2);
    /** A time without an arrival this long or longer after a failure is the transfer standing still. */
    static final Duration GAP = Duration.ofMillis(50);
    /** How long after the path came back the transfer goes on, beyond as long again as it was down. */
    static final Duration TAIL = Duration.ofSeconds(3);

    private Failover() {
    }

    /**
     * Whether {@code series} has a failover transfer: the TCP socket and RDDP, over TCP, MPTCP or SCTP, and the SCTP
     * socket.
     */
    static boolean measures(Compare.Series series) {
        Compare.Series measured = series.measured();
        return !series.ipv6() && (measured == Compare.Series.TCP_SOCKET || measured == Compare.Series.RDDP_MPA
                || measured == Compare.Series.RDDP_SCTP || measured == Compare.Series.SCTP_SOCKET);
    }

    /** Whether {@code series} runs {@code scenario}: an idle connection's needs a load (the SCTP socket has none). */
    static boolean measures(Compare.Series series, Scenario scenario) {
        return measures(series) && (!scenario.idle() || series.loads());
    }

    /**
     * A failover scenario as {@code --scenarios} names it: {@code failover link-down SECONDS},
     * {@code failover blackhole SECONDS} or {@code failover flap CYCLES [UP DOWN]} (5 s up, 2 s down by default), under
     * a transfer; or {@code failover idle ...} the same, under a connection that is nearly idle ({@link FailoverIdle}).
     */
    record Scenario(String kind, int cycles, Duration up, Duration down, boolean idle) {
        static final String PREFIX = "failover";
        static final String IDLE = "idle";

        /** Whether {@code scenario} (its words) is a failover one. */
        static boolean is(String scenario) {
            return scenario != null && scenario.strip().split(" +")[0].equals(PREFIX);
        }

        static Scenario parse(String scenario) {
            List<String> words = new ArrayList<>(List.of(scenario.strip().split(" +")));
            boolean idle = words.size() > 1 && words.get(1).equals(IDLE);
            if (idle) {
                words.remove(1);
            }
            try {
                if (words.size() == 3 && (words.get(1).equals("link-down") || words.get(1).equals("blackhole"))) {
                    return new Scenario(words.get(1), 1, Duration.ZERO, seconds(words.get(2)), idle);
                }
                if (words.get(1).equals("flap") && (words.size() == 3 || words.size() == 5)) {
                    boolean timed = words.size() == 5;
                    return new Scenario("flap", Integer.parseInt(words.get(2)), timed ? seconds(words.get(3))
                            : Duration.ofSeconds(5), timed ? seconds(words.get(4)) : Duration.ofSeconds(2), idle);
                }
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                // said below
            }
            throw new IllegalArgumentException("a failover scenario is 'failover [idle] link-down SECONDS', 'failover "
                    + "[idle] blackhole SECONDS' or 'failover [idle] flap CYCLES [UP DOWN]', not '" + scenario + "'");
        }

        private static Duration seconds(String text) {
            Duration duration = Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000));
            if (duration.isNegative() || duration.isZero() || duration.compareTo(Duration.ofMinutes(2)) > 0) {
                throw new IllegalArgumentException("a failover lasts more than 0 and at most 120 s, not " + text);
            }
            return duration;
        }

        Scenario {
            if (cycles < 1 || cycles > 20) {
                throw new IllegalArgumentException("a path flaps 1 to 20 times, not " + cycles);
            }
        }

        /** From the first failure to the last return. */
        Duration faultLength() {
            return down.multipliedBy(cycles).plus(up.multipliedBy(cycles - 1));
        }

        /**
         * How long each transfer runs, in whole seconds: before, through and after the failures, and a second for
         * each failure's making and undoing (an emulated VM runs the scenario command's tools slowly).
         */
        long transferSeconds() {
            Duration transfer = LEAD.plus(faultLength()).plus(down).plus(TAIL).plusSeconds(cycles);
            return (transfer.toMillis() + 999) / 1000;
        }

        /** The scenario command's words that make the failure. */
        List<String> command() {
            return kind.equals("flap") ? List.of("flap", Integer.toString(cycles), decimal(up), decimal(down))
                    : List.of("fail", kind, decimal(down));
        }

        private static String decimal(Duration duration) {
            return String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0);
        }

        @Override
        public String toString() {
            return withoutLoad() + (idle ? ", " + FailoverIdle.LOAD : "");
        }

        /** The failure alone, without what the connection carries. */
        String withoutLoad() {
            return (kind.equals("flap") ? "the first path blackholed " + down.toMillis() / 1000.0 + " s every "
                    + (up.plus(down).toMillis() / 1000.0) + " s, " + cycles + " times" : "the first path "
                            + (kind.equals("link-down") ? "down (carrier lost)" : "blackholed (link up)") + " for "
                            + down.toMillis() / 1000.0 + " s");
        }
    }

    /** What the scenario command said it did: each failure and return, and its other lines (what it counted). */
    record Fault(List<Instant> failed, List<Instant> restored, List<String> said) {
        static Fault parse(String output) {
            List<Instant> failed = new ArrayList<>();
            List<Instant> restored = new ArrayList<>();
            List<String> said = new ArrayList<>();
            for (String line : output.lines().toList()) {
                String[] words = line.strip().split(" +");
                if (words.length == 2 && words[0].equals("failed")) {
                    failed.add(TimelineChartCommand.instant(words[1]));
                } else if (words.length == 2 && words[0].equals("restored")) {
                    restored.add(TimelineChartCommand.instant(words[1]));
                } else if (!line.isBlank()) {
                    said.add(line.strip());
                }
            }
            if (failed.isEmpty() || failed.size() != restored.size()) {
                throw new IllegalArgumentException("the scenario command printed " + failed.size() + " 'failed' and "
                        + restored.size() + " 'restored' lines: it must print one of each per failure");
            }
            return new Fault(List.copyOf(failed), List.copyOf(restored), List.copyOf(said));
        }
    }

    /**
     * One failure's effect on a transfer.
     *
     * @param failed      when the path failed
     * @param restored    when it came back
     * @param stall       the longest time without an arrival that began while the path was down (to the millisecond)
     * @param toOtherPath from the failure to the first arrival after its first stall of {@link #GAP} or more, when
     *                    that came before the path did: the transfer went on over another path (zero: no such stall);
     *                    null when it waited for the path
     * @param afterReturn from the path's return to that arrival, when it waited; null when it did not
     * @param toHalfRate  from the failure to the end of the first {@link FailoverOutput#BUCKET} after it that carried
     *                    half the goodput of before, or null when none did
     * @param resumed     whether anything arrived after that stall at all
     * @param mbpsBefore  goodput over {@link #WINDOW} before the failure (MB/sec, MiB)
     * @param mbpsDuring  goodput while the path was down
     * @param mbpsAfter   goodput over {@link #WINDOW} after it came back (less if the transfer ended first)
     */
    record Outcome(Instant failed, Instant restored, Duration stall, Duration toOtherPath, Duration afterReturn,
            Duration toHalfRate, boolean resumed, double mbpsBefore, double mbpsDuring, double mbpsAfter) {
    }

    /**
     * One series under one scenario: what arrived, when, and each failure's effect on a transfer ({@code outcomes}) or
     * on an idle connection's requests ({@code answers}: the other is empty); or why it failed.
     */
    record Result(Compare.Series series, Scenario scenario, PerfResult received, Arrivals.Trace trace, Fault fault,
            List<Outcome> outcomes, List<FailoverIdle.Outcome> answers, String error) {
        /** How many failures it tells of. */
        int failures() {
            return scenario.idle() ? answers.size() : outcomes.size();
        }
    }

    /**
     * The effect on {@code trace} of a failure from {@code failed} to {@code restored}, looked at until {@code end}.
     * What arrives just after the failure was on its way before it: the transfer stopped at the first time without an
     * arrival of {@link #GAP} or more, and went on with the first arrival after that.
     */
    static Outcome outcome(Arrivals.Trace trace, Instant failed, Instant restored, Instant end) {
        if (trace.last() == null || !trace.last().isAfter(failed.plus(GAP))) { // nothing to tell of this failure
            return new Outcome(failed, restored, Duration.ZERO, null, null, null, false, mbps(trace, failed.minus(
                    WINDOW), failed), Double.NaN, Double.NaN);
        }
        int[] bins = trace.messagesIn();
        int last = Math.min(bins.length, Math.max(0, trace.binOf(end) + 1));
        int from = Math.max(0, Math.min(last, trace.binOf(failed)));
        int back = trace.binOf(restored);
        while (from > 0 && from < last && bins[from] == 0 && bins[from - 1] == 0) {
            from--; // a stall under way when the path failed counts from its start
        }
        int gap = (int) (GAP.toNanos() / trace.bin().toNanos());
        int firstEnd = -1;
        int longest = 0;
        for (int i = from; i < last && i < back; i++) {
            if (bins[i] != 0) {
                continue;
            }
            int j = i;
            while (j < last && bins[j] == 0) {
                j++;
            }
            longest = Math.max(longest, j - i);
            if (firstEnd < 0 && j - i >= gap) {
                firstEnd = j;
            }
            i = j;
        }
        boolean resumed = firstEnd < last;
        Instant resumedAt = firstEnd < 0 ? failed : trace.begins(firstEnd);
        boolean moved = resumed && resumedAt.isBefore(restored);
        double before = mbps(trace, failed.minus(WINDOW), failed);
        Instant after = restored.plus(WINDOW).isBefore(end) ? restored.plus(WINDOW) : end;
        return new Outcome(failed, restored, trace.bin().multipliedBy(longest), moved
                ? positive(Duration.between(failed, resumedAt)) : null, resumed && !moved
                        ? Duration.between(restored, resumedAt) : null, toHalfRate(trace, failed, end, before),
                resumed, before, mbps(trace, failed, restored), mbps(trace, restored, after));
    }

    /**
     * From {@code failed} to the end of the first {@link FailoverOutput#BUCKET} after it (before {@code end}) that
     * carried half of {@code before} MB/sec, or null.
     */
    private static Duration toHalfRate(Arrivals.Trace trace, Instant failed, Instant end, double before) {
        if (!(before > 0)) {
            return null;
        }
        int width = (int) (FailoverOutput.BUCKET.toNanos() / trace.bin().toNanos());
        long half = (long) (before / 2 * (1 << 20) * FailoverOutput.BUCKET.toNanos() / 1e9);
        long[] octets = trace.octetsIn();
        int from = Math.max(0, trace.binOf(failed));
        int last = Math.min(octets.length, trace.binOf(end) + 1);
        long sum = 0;
        for (int i = from; i < last; i++) {
            sum += octets[i] - (i - width >= from ? octets[i - width] : 0);
            if (i - from + 1 >= width && sum >= half) {
                return Duration.between(failed, trace.begins(i + 1));
            }
        }
        return null;
    }

    private static Duration positive(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }

    private static double mbps(Arrivals.Trace trace, Instant from, Instant to) {
        double seconds = Duration.between(from, to).toNanos() / 1e9;
        return seconds <= 0 ? Double.NaN : trace.octetsBetween(from, to) / seconds / (1 << 20);
    }

    /**
     * Runs {@code scenario} over every series of {@code series} that has a failover transfer, one after another:
     * starts the transfer through {@code measure}, lets it run {@link #LEAD}, fails the path through {@code faults}
     * and waits for the transfer to end. A series whose transfer fails is reported with why; the others go on.
     */
    static List<Result> run(List<Compare.Series> series, Scenario scenario, Scenarios faults, Compare.Measure measure,
            Consumer<String> progress) throws IOException, InterruptedException {
        List<Result> results = new ArrayList<>();
        for (Compare.Series each : series) {
            if (!measures(each, scenario)) {
                continue;
            }
            progress.accept("compare: failover, " + scenario + ": " + each.label);
            Compare.Task task = scenario.idle() ? FailoverIdle.task(each, scenario)
                    : new Compare.Task(each, Compare.FAILOVER, SIZE, scenario.transferSeconds());
            Duration span = Duration.ofSeconds(scenario.transferSeconds()).plus(CompareEnds.TIMEOUT);
            Arrivals arrivals = scenario.idle() ? new Arrivals(span, (int) task.iterations()) : new Arrivals(span);
            CompletableFuture<PerfResult> point = new CompletableFuture<>();
            Thread.ofPlatform().name("rddp-compare-failover").daemon().start(() -> {
                try {
                    point.complete(measure.failover(task, arrivals));
                } catch (Exception | Error e) { // handed to the caller, whatever it was
                    point.completeExceptionally(e);
                }
            });
            String error = null;
            Fault fault = null;
            PerfResult received = null;
            try {
                awaitFlowing(arrivals, point, each.label);
                Thread.sleep(LEAD.toMillis()); // the transfer's steady state before the failure, not a synchronisation
                fault = Fault.parse(faults.fault(scenario.command(), scenario.faultLength()));
                try {
                    received = point.get(span.toSeconds(), TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new TimeoutException("the transfer did not end within " + CompareEnds.TIMEOUT.toSeconds()
                            + " s of its time");
                }
            } catch (ExecutionException e) {
                error = e.getCause().toString();
            } catch (TimeoutException e) {
                error = e.getMessage();
            }
            if (fault == null) {
                throw new IOException(each.label + ": the transfer failed before the path did: " + error);
            }
            Arrivals.Trace trace = arrivals.trace();
            List<Outcome> outcomes = new ArrayList<>();
            List<FailoverIdle.Outcome> answers = new ArrayList<>();
            for (int i = 0; i < fault.failed().size(); i++) {
                Instant end = i + 1 < fault.failed().size() ? fault.failed().get(i + 1)
                        : trace.last() != null ? trace.last() : fault.restored().get(i);
                if (scenario.idle()) {
                    answers.add(FailoverIdle.outcome(trace, fault.failed().get(i), fault.restored().get(i)));
                } else {
                    outcomes.add(outcome(trace, fault.failed().get(i), fault.restored().get(i), end));
                }
            }
            results.add(new Result(each, scenario, received, trace, fault, List.copyOf(outcomes), List.copyOf(answers),
                    error));
        }
        return results;
    }

    /** Waits until the first message arrived, or the point failed first (its failure is thrown). */
    private static void awaitFlowing(Arrivals arrivals, CompletableFuture<PerfResult> point, String series)
            throws ExecutionException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + CompareEnds.TIMEOUT.toNanos();
        while (arrivals.messages() == 0) {
            if (point.isDone()) {
                point.get();
                throw new ExecutionException(new IOException("the transfer ended before a message arrived"));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(series + ": no message arrived within " + CompareEnds.TIMEOUT.toSeconds()
                        + " s");
            }
            Thread.sleep(10); // polling a counter another thread moves: a startup of seconds, 10 ms is fine grain
        }
    }

    /** The table of {@code results}: a row per series and failure. */
    static String table(List<Result> results) {
        if (results.isEmpty()) {
            return "";
        }
        if (results.getFirst().scenario().idle()) {
            return FailoverIdle.table(results);
        }
        StringBuilder table = new StringBuilder();
        Result first = results.getFirst();
        table.append("== network: failover: ").append(first.scenario()).append('\n');
        table.append(String.format(Locale.ROOT, "%-26s %4s  %-36s %8s %8s %9s %8s %8s  %s%n", "series", "fail",
                "went on", "half rate", "stall", "MB/s before", "during", "after", "data"));
        for (Result result : results) {
            if (result.outcomes().isEmpty()) {
                table.append(String.format(Locale.ROOT, "%-26s  %s%n", result.series().label, result.error()));
                continue;
            }
            for (int i = 0; i < result.outcomes().size(); i++) {
                Outcome outcome = result.outcomes().get(i);
                String wentOn = !outcome.resumed() ? "never (the transfer ended first)"
                        : outcome.toOtherPath() != null ? "over another path after " + outcome.toOtherPath()
                                .toMillis() + " ms" : "when the path came back, +" + outcome.afterReturn().toMillis()
                                        + " ms";
                table.append(String.format(Locale.ROOT, "%-26s %4d  %-36s %8s %8d %9.1f %8.1f %8.1f  %s%n",
                        i == 0 ? result.series().label : "", i + 1, wentOn, outcome.toHalfRate() == null ? "-"
                                : outcome.toHalfRate().toMillis() + " ms", outcome.stall().toMillis(),
                        outcome.mbpsBefore(), outcome.mbpsDuring(), outcome.mbpsAfter(), i > 0 ? ""
                                : result.error() == null ? result.trace().messages() + " messages, all checked"
                                        : "failed: " + result.error()));
            }
        }
        said(results, table);
        table.append("went on: from the failure to the first message after the transfer stood still ")
                .append(GAP.toMillis()).append(" ms or more; half rate: to the end of the first ")
                .append(FailoverOutput.BUCKET.toMillis()).append(" ms with half the goodput of before; stall: the "
                        + "longest time without a message while the path was down (ms)\n");
        return table.append('\n').toString();
    }

    /** Appends to {@code table} what made each failure of {@code results}, as the scenario command said it. */
    static void said(List<Result> results, StringBuilder table) {
        for (Result result : results) {
            if (result.fault() != null) {
                result.fault().said().forEach(line -> table.append(result.series().label).append(": ").append(line)
                        .append('\n'));
            }
        }
    }
}
