package org.rddp.cli.compare;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rddp timeline-chart}: the throughput, second by second, of bandwidth runs made with {@code --timeline}, one
 * line per run on one chart, with events (a link going down, coming back) as vertical marks: what a path failure and
 * a failover look like to the application, SCTP next to MPA ({@code interop-tests/vm/multihome.sh} draws one).
 */
@Command(name = "timeline-chart", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Draws the --timeline output of bandwidth runs (MB/sec each second) as one chart, with events "
                + "marked.")
public final class TimelineChartCommand implements Callable<Integer> {
    /** A second of a run: {@code timeline 2026-11-28T10:00:01.000Z 123 messages 45.67 MB/sec}. */
    static final Pattern SECOND = Pattern.compile("timeline (\\S+Z) (\\d+) messages ([0-9.]+) MB/sec(?! \\(the last)");

    @Parameters(arity = "1..*", paramLabel = "LABEL=FILE[@ZERO]", description = "a run's label, the file its output "
            + "(with --timeline) is in, and when its time axis starts (an ISO instant or seconds since the epoch, as "
            + "date +%%s.%%N prints: each run its own, e.g. when its link went down; without: a second before the "
            + "first second of any run); a label naming SCTP or MPA takes RDDP over SCTP's or MPA's colour")
    List<String> runs;

    @Option(names = "--zero", defaultValue = "the start", description = "what the time axis counts from, as the axis "
            + "says it (e.g. 'the link going down')")
    String zero;

    @Option(names = "--mark", paramLabel = "LABEL=SECONDS", description = "an event, seconds from the zero: a dashed "
            + "line with its label (e.g. 'link up=6')")
    List<String> marks = new ArrayList<>();

    @Option(names = "--title", defaultValue = "Throughput each second", description = "the chart's title")
    String title;

    @Option(names = "--conditions", defaultValue = "", description = "the line under the title: where it ran, how")
    String conditions;

    @Option(names = {"-o", "--out"}, defaultValue = "timeline.png", description = "the PNG to write; default: "
            + "${DEFAULT-VALUE}")
    Path out;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** A run's seconds: when each ended, and the MB/sec in it; {@code zero}, where its time axis starts, or null. */
    record Run(String label, List<Instant> ends, List<Double> mbps, Instant zero) {
    }

    /** An event on the time axis, {@code seconds} from the zero. */
    record Mark(String label, double seconds) {
    }

    @Override
    public Integer call() throws IOException {
        List<Mark> events = new ArrayList<>();
        for (String mark : marks) {
            String[] parts = split(mark, "--mark");
            try {
                events.add(new Mark(parts[0], Double.parseDouble(parts[1])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--mark is LABEL=SECONDS, not '" + mark + "'");
            }
        }
        List<Run> read = new ArrayList<>();
        for (String run : runs) {
            String[] parts = split(run, "a run");
            int at = parts[1].lastIndexOf('@');
            Path file = Path.of(at < 0 ? parts[1] : parts[1].substring(0, at));
            Run seconds = parse(parts[0], Files.readString(file, StandardCharsets.UTF_8));
            read.add(at < 0 ? seconds : new Run(seconds.label(), seconds.ends(), seconds.mbps(),
                    instant(parts[1].substring(at + 1))));
        }
        Files.write(out, Chart.timeline(read, events, zero, title, conditions));
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.println("written: " + out);
        return 0;
    }

    /** The seconds {@code output} (a run's, with {@code --timeline}) printed; none is an error saying so. */
    static Run parse(String label, String output) {
        List<Instant> ends = new ArrayList<>();
        List<Double> mbps = new ArrayList<>();
        Matcher second = SECOND.matcher(output);
        while (second.find()) {
            ends.add(Instant.parse(second.group(1)));
            mbps.add(Double.parseDouble(second.group(3)));
        }
        if (ends.isEmpty()) {
            throw new IllegalArgumentException(label + ": no 'timeline' lines (run the bandwidth test with "
                    + "--timeline)");
        }
        return new Run(label, ends, mbps, null);
    }

    private static String[] split(String text, String what) {
        int equals = text.indexOf('=');
        if (equals < 1 || equals == text.length() - 1) {
            throw new IllegalArgumentException(what + " is LABEL=VALUE, not '" + text + "'");
        }
        return new String[] {text.substring(0, equals), text.substring(equals + 1)};
    }

    /** An ISO instant, or seconds since the epoch with a fraction ({@code date +%s.%N}). */
    static Instant instant(String text) {
        if (text.matches("\\d+(\\.\\d+)?")) {
            java.math.BigDecimal seconds = new java.math.BigDecimal(text);
            return Instant.ofEpochSecond(seconds.longValue(), seconds.remainder(java.math.BigDecimal.ONE)
                    .movePointRight(9).longValue());
        }
        return Instant.parse(text);
    }
}
