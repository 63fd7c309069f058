package org.rddp.cli.compare;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rddp.cli.perftest.Arrivals;

/**
 * A failover scenario's idle connection ({@code failover idle ...}): instead of a transfer, the initiator's end sends a
 * request of {@link #SIZE} octets every 1/{@link #RATE} s, each echoed (compare's load, at a rate that leaves the
 * connection idle almost all the time), while the first path fails. A transfer tells the transport of a dead path at
 * once, by its own unacknowledged data; an idle connection learns of it only by what it sends when it has nothing to
 * send (SCTP's heartbeats, RFC 9260 §8.3; TCP and MPTCP send nothing) or by the next request's own retransmission
 * timeout. Per series and failure: the round trip of the first request sent after the failure and whether it was
 * answered over another path or only once the path came back, the longest round trip of a request in flight while the
 * path was down, how many of the requests sent while it was down were answered before it came back, and the round
 * trip before the failure.
 */
final class FailoverIdle {
    /** A request's size. */
    static final int SIZE = 1024;
    /** Requests a second. */
    static final int RATE = 2;
    /** What the connection carries, as a scenario's description says it. */
    static final String LOAD = "an idle connection: a " + SIZE / 1024 + " KiB request every " + 1000 / RATE
            + " ms, echoed";

    private FailoverIdle() {
    }

    /** {@code series}' requests and answers through {@code scenario}: compare's load, for the transfer's time. */
    static Compare.Task task(Compare.Series series, Failover.Scenario scenario) {
        return new Compare.Task(series, Compare.LOAD, SIZE, scenario.transferSeconds() * RATE, RATE);
    }

    /**
     * One failure's effect on the requests.
     *
     * @param failed       when the path failed
     * @param restored     when it came back
     * @param first        the round trip of the first request sent at or after the failure, while the path was down;
     *                     null when none was answered
     * @param firstWhileDown whether that request was answered before the path came back (over another path)
     * @param afterReturn  when it was not, from the path's return to its answer; null otherwise
     * @param longest      the longest round trip of a request answered after the failure and sent before the return
     * @param asked        requests sent while the path was down (answered at all)
     * @param answeredWhileDown of those, the ones answered before the path came back
     * @param before       the median round trip of the requests sent in {@link Failover#WINDOW} before the failure, or
     *                     null when there were none
     */
    record Outcome(Instant failed, Instant restored, Duration first, boolean firstWhileDown, Duration afterReturn,
            Duration longest, int asked, int answeredWhileDown, Duration before) {
    }

    /** The effect on {@code trace}'s answers of a failure from {@code failed} to {@code restored}. */
    static Outcome outcome(Arrivals.Trace trace, Instant failed, Instant restored) {
        Duration first = null;
        boolean firstWhileDown = false;
        Duration afterReturn = null;
        Duration longest = null;
        int asked = 0;
        int answeredWhileDown = 0;
        List<Duration> before = new ArrayList<>();
        for (int i = 0; i < trace.answers(); i++) {
            Instant sent = trace.askedAt(i);
            Instant answered = trace.answeredAt(i);
            Duration roundTrip = trace.roundTrip(i);
            if (sent.isBefore(failed) && !sent.isBefore(failed.minus(Failover.WINDOW)) && answered.isBefore(failed)) {
                before.add(roundTrip);
            }
            if (!sent.isBefore(restored) || !answered.isAfter(failed)) {
                continue; // answered before the failure, or sent after the return
            }
            longest = longest == null || roundTrip.compareTo(longest) > 0 ? roundTrip : longest;
            if (sent.isBefore(failed)) {
                continue; // on its way at the failure
            }
            asked++;
            boolean whileDown = answered.isBefore(restored);
            answeredWhileDown += whileDown ? 1 : 0;
            if (first == null) {
                first = roundTrip;
                firstWhileDown = whileDown;
                afterReturn = whileDown ? null : Duration.between(restored, answered);
            }
        }
        before.sort(null);
        return new Outcome(failed, restored, first, firstWhileDown, afterReturn, longest, asked, answeredWhileDown,
                before.isEmpty() ? null : before.get(before.size() / 2));
    }

    /** The table of {@code results}: a row per series and failure. */
    static String table(List<Failover.Result> results) {
        StringBuilder table = new StringBuilder();
        table.append("== network: failover: ").append(results.getFirst().scenario()).append('\n');
        table.append(String.format(Locale.ROOT, "%-26s %4s  %-50s %10s %14s %10s  %s%n", "series", "fail",
                "first request sent while down", "longest", "answered down", "before", "data"));
        for (Failover.Result result : results) {
            if (result.answers().isEmpty()) {
                table.append(String.format(Locale.ROOT, "%-26s  %s%n", result.series().label, result.error()));
                continue;
            }
            for (int i = 0; i < result.answers().size(); i++) {
                Outcome outcome = result.answers().get(i);
                String first = outcome.first() == null ? "none answered"
                        : outcome.firstWhileDown() ? "over another path in " + millis(outcome.first())
                                : "when the path came back, in " + millis(outcome.first()) + " (+"
                                        + millis(outcome.afterReturn()) + ")";
                table.append(String.format(Locale.ROOT, "%-26s %4d  %-50s %10s %14s %10s  %s%n",
                        i == 0 ? result.series().label : "", i + 1, first, outcome.longest() == null ? "-"
                                : millis(outcome.longest()), outcome.answeredWhileDown() + " of " + outcome.asked(),
                        outcome.before() == null ? "-" : millis(outcome.before()), i > 0 ? ""
                                : result.error() == null ? result.trace().answers() + " requests, all answered"
                                        : "failed: " + result.error()));
            }
        }
        Failover.said(results, table);
        table.append("round trips of requests sent every ").append(1000 / RATE).append(" ms; longest: of a request "
                + "in flight while the path was down; answered down: requests sent while it was down and answered "
                + "before it came back; before: the median round trip before the failure\n");
        return table.append('\n').toString();
    }

    /** {@code duration} in milliseconds, to the hundredth under 10 ms. */
    static String millis(Duration duration) {
        double ms = duration.toNanos() / 1e6;
        return ms < 10 ? String.format(Locale.ROOT, "%.2f ms", ms) : String.format(Locale.ROOT, "%,d ms",
                Math.round(ms));
    }
}
