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
        /** Netty's SCTP transport (NIO, over the JDK's channel), on a host with kernel SCTP: what a Netty user gets. */
        NETTY_SCTP_SOCKET("Netty SCTP (NIO)", null),
        RDDP_SCTP("RDDP over SCTP", SCTP_SOCKET),
        EXS_SCTP("EXS over SCTP", SCTP_SOCKET),
        /** {@code --ipv6}: the same over IPv6's loopback ({@code ::1}), both ends in one process. */
        TCP_SOCKET_6("TCP socket v6", null, TCP_SOCKET, Variant.IPV6),
        RDDP_MPA_6("RDDP over MPA v6", TCP_SOCKET_6, RDDP_MPA, Variant.IPV6),
        SCTP_SOCKET_6("SCTP socket v6", null, SCTP_SOCKET, Variant.IPV6),
        RDDP_SCTP_6("RDDP over SCTP v6", SCTP_SOCKET_6, RDDP_SCTP, Variant.IPV6),
        /** {@code --mptcp}: the TCP side over Multipath TCP (RFC 8684), its sockets opened as MPTCP at both ends. */
        TCP_SOCKET_MPTCP("TCP socket over MPTCP", null, TCP_SOCKET, Variant.MPTCP),
        RDDP_MPA_MPTCP("RDDP over MPA over MPTCP", TCP_SOCKET_MPTCP, RDDP_MPA, Variant.MPTCP);

        /** How a twin differs from the series it repeats. */
        enum Variant {
            /** The series itself. */
            NONE,
            /** Over IPv6 instead of IPv4. */
            IPV6,
            /** Over Multipath TCP instead of TCP. */
            MPTCP
        }

        final String label;
        /** The socket a ratio is taken to, or null for a socket. */
        final Series baseline;
        /** The series this one repeats differently ({@link #variant}); null for one that is itself. */
        private final Series twinOf;
        private final Variant variant;

        Series(String label, Series baseline) {
            this(label, baseline, null, Variant.NONE);
        }

        Series(String label, Series baseline, Series twinOf, Variant variant) {
            this.label = label;
            this.baseline = baseline;
            this.twinOf = twinOf;
            this.variant = variant;
        }

        /** Whether it runs over IPv6. */
        boolean ipv6() {
            return variant == Variant.IPV6;
        }

        /** Whether it runs over Multipath TCP. */
        boolean mptcp() {
            return variant == Variant.MPTCP;
        }

        /** What runs: the series itself, or the one a twin repeats. */
        Series measured() {
            return twinOf != null ? twinOf : this;
        }

        /** The IPv6 twin of an IPv4 series, or null when it has none. */
        Series overIpv6() {
            return twin(Variant.IPV6);
        }

        /** The Multipath TCP twin of a TCP series, or null when it has none. */
        Series overMptcp() {
            return twin(Variant.MPTCP);
        }

        private Series twin(Variant of) {
            for (Series each : values()) {
                if (each.twinOf == this && each.variant == of) {
                    return each;
                }
            }
            return null;
        }

        boolean exs() {
            return this == EXS_MPA || this == EXS_SCTP;
        }

        /**
         * Whether only an initiator running both ends measures it: EXS, and the JDK's and Netty's SCTP, which buffer
         * what the other end sends without the bounds a responder keeps (Netty's echo writes whatever arrives), so a
         * responder refuses them.
         */
        boolean inProcessOnly() {
            return exs() || this == JDK_SCTP_SOCKET || this == NETTY_SCTP_SOCKET;
        }

        /** Whether it measures latency only. */
        boolean latencyOnly() {
            return this == MPA_FLOOR;
        }

        /** Whether it is measured under an offered load (RDDP's Sends, the TCP socket's messages; echoed). */
        boolean loads() {
            return measured() == TCP_SOCKET || rddp();
        }

        /**
         * Whether it is RDDP's, over MPA or SCTP: queue pairs, so also measured under a load of RDMA Writes (each with
         * a notifying Send) and with many queue pairs.
         */
        boolean rddp() {
            Series measured = measured();
            return measured == RDDP_MPA || measured == RDDP_SCTP;
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
     * @param load              the offered load to time round trips at, or null for none
     * @param scenario          the network's conditions as set for this plan (loss, delay …), or null: as it is
     * @param many              how many queue pairs RDDP's series are also measured with, or null for none
     */
    record Plan(List<Integer> sizes, long bandwidthBytes, double secondsPerPoint, int latencyIterations,
            int latencyMax, int repeat, List<Series> series, SctpStack sctpStack, Load load, String scenario,
            Many many) {
        Plan {
            sizes = List.copyOf(sizes);
            series = List.copyOf(series);
            if (repeat < 1 || secondsPerPoint <= 0 || bandwidthBytes < 0) {
                throw new IllegalArgumentException("repeat at least 1, seconds per point and volume positive");
            }
        }

        /** Without a load or many queue pairs, on the network as it is. */
        Plan(List<Integer> sizes, long bandwidthBytes, double secondsPerPoint, int latencyIterations,
                int latencyMax, int repeat, List<Series> series, SctpStack sctpStack) {
            this(sizes, bandwidthBytes, secondsPerPoint, latencyIterations, latencyMax, repeat, series, sctpStack,
                    null, null, null);
        }

        /** The same plan under {@code scenario}. */
        Plan under(String scenario) {
            return new Plan(sizes, bandwidthBytes, secondsPerPoint, latencyIterations, latencyMax, repeat, series,
                    sctpStack, load, scenario, many);
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
     * An offered load: messages of {@code size} octets, {@code rate} a second, for {@code seconds}, each echoed, the
     * round trips timed from when each fell due; at most {@code window} unanswered.
     */
    record Load(int size, int rate, double seconds) {
        /** Messages in flight at most: RDDP's send and receive depth, the socket's window. */
        static final int WINDOW = org.rddp.cli.perftest.PerfCommand.LOAD_WINDOW;

        Load {
            if (size < 1 || size > Perftest.MAX_SIZE || rate < 1 || rate > Task.MAX_RATE || !(seconds > 0)) {
                throw new IllegalArgumentException("a load is 1.." + Perftest.MAX_SIZE + " octets, 1.."
                        + Task.MAX_RATE + " messages a second, for a positive time");
            }
        }

        long iterations() {
            return Math.clamp(Math.round(rate * seconds), 1, Task.MAX_ITERATIONS);
        }

        /** As the table and charts name it. */
        String describe() {
            return String.format(Locale.ROOT, "%,d messages/s of %,d octets (%.2f MB/s) for %.3g s", rate, size,
                    (double) rate * size / (1 << 20), seconds);
        }
    }

    /**
     * What a point of many queue pairs adds to its Write bandwidth (the median of its runs): how many, how fast they
     * came up one after another, and what each added to the initiator's process (both ends' when it runs both) from
     * before its first data connection until the last was up, its memory registered.
     *
     * @param count             queue pairs
     * @param setupPerSecond    data connections set up a second
     * @param threadsEach       threads added, per queue pair
     * @param residentOctetsEach resident memory added, per queue pair (NaN where the system does not say)
     * @param directOctetsEach  direct buffers' memory added, per queue pair
     */
    record QueuePairs(int count, double setupPerSecond, double threadsEach, double residentOctetsEach,
            double directOctetsEach) {
        /** The median of {@code results}' setups, each figure on its own. */
        static QueuePairs of(int count, List<PerfResult.Scale> results) {
            return new QueuePairs(count, median(results, setup -> setup.qps() / (setup.nanos() / 1e9)),
                    median(results, setup -> (setup.after().threads() - setup.before().threads())
                            / (double) setup.qps()),
                    median(results, setup -> setup.before().residentOctets() < 0 ? Double.NaN
                            : (setup.after().residentOctets() - setup.before().residentOctets())
                                    / (double) setup.qps()),
                    median(results, setup -> (setup.after().directOctets() - setup.before().directOctets())
                            / (double) setup.qps()));
        }

        private static double median(List<PerfResult.Scale> results,
                java.util.function.ToDoubleFunction<org.rddp.cli.perftest.PerfSession.Setup> figure) {
            return PerfResult.median(results.stream().mapToDouble(result -> figure.applyAsDouble(result.setup()))
                    .toArray());
        }
    }

    /**
     * Many queue pairs to one peer: for each of {@code counts}, that many set up one after another, then RDMA Writes
     * of {@code size} octets on all of them, {@code messages} in all (each queue pair at least 100).
     */
    record Many(List<Integer> counts, int size, long messages) {
        /** Messages a point moves in all by default. */
        static final long MESSAGES = 200_000;

        Many {
            counts = List.copyOf(counts);
            if (counts.isEmpty() || counts.stream().anyMatch(n -> n < 1 || n > Task.MAX_QPS
                    || (long) n * size > Task.MAX_QP_OCTETS) || size < 1 || size > Perftest.MAX_SIZE || messages < 1) {
                throw new IllegalArgumentException("queue pairs are 1.." + Task.MAX_QPS + ", messages 1.."
                        + Perftest.MAX_SIZE + " octets, at most " + (Task.MAX_QP_OCTETS >> 20) + " MiB on all");
            }
        }

        /** What each of {@code qps} queue pairs moves: its share, at least 100, at most what a point may move. */
        long iterations(int qps) {
            return Math.min(Math.max(100, messages / qps), Task.MAX_ITERATIONS / qps);
        }
    }

    /**
     * One measurement to make, as the initiator asks the responder for it: a series, bandwidth, latency, load or many
     * queue pairs, a size, messages (bandwidth, load; for many queue pairs, each one's) or round trips (latency), for
     * a load the messages offered a second, and how many queue pairs (1 but for {@link #QPS}).
     */
    record Task(Series series, String kind, int size, long iterations, int rate, int qps) {
        /** The most messages or round trips one point may ask for. */
        static final long MAX_ITERATIONS = 10_000_000;
        /** The most messages a second a load may offer. */
        static final int MAX_RATE = 1_000_000;
        /** The most queue pairs one point may ask a responder for (each holds its buffers and a connection). */
        static final int MAX_QPS = 1000;
        /** The most octets of messages all of a point's queue pairs may ask for (each registers twice its size). */
        static final long MAX_QP_OCTETS = 64L << 20;

        Task {
            if (!kind.equals(BANDWIDTH) && !kind.equals(LATENCY) && !isLoad(kind) && !kind.equals(QPS)
                    && !kind.equals(FAILOVER)) {
                throw new IllegalArgumentException("a measure is " + BANDWIDTH + ", " + LATENCY + ", " + LOAD + ", "
                        + WRITE_LOAD + ", " + QPS + " or " + FAILOVER + ", not " + kind);
            }
            if (kind.equals(FAILOVER) && !Failover.measures(series)) {
                throw new IllegalArgumentException(series.label + " has no failover transfer");
            }
            if (kind.equals(FAILOVER) && (iterations > Failover.LONGEST.toSeconds()
                    || size < Failover.SMALLEST_MESSAGE)) {
                throw new IllegalArgumentException("a failover transfer lasts 1.." + Failover.LONGEST.toSeconds()
                        + " s (its iterations) with messages of at least " + Failover.SMALLEST_MESSAGE + " octets");
            }
            if (kind.equals(QPS) ? qps < 1 || qps > MAX_QPS || iterations * qps > MAX_ITERATIONS : qps != 1) {
                throw new IllegalArgumentException("many queue pairs are 1.." + MAX_QPS + ", at most " + MAX_ITERATIONS
                        + " messages in all, and only " + QPS + " has more than one, not " + qps);
            }
            if (kind.equals(QPS) && !series.rddp()) {
                throw new IllegalArgumentException(series.label + " has no queue pairs");
            }
            if (kind.equals(QPS) && (long) qps * size > MAX_QP_OCTETS) {
                throw new IllegalArgumentException(qps + " queue pairs of " + size + " octets are more than "
                        + (MAX_QP_OCTETS >> 20) + " MiB of messages");
            }
            if (size < 1 || size > Perftest.MAX_SIZE) {
                throw new IllegalArgumentException("size " + size + " outside 1.." + Perftest.MAX_SIZE);
            }
            if (iterations < 1 || iterations > MAX_ITERATIONS) {
                throw new IllegalArgumentException("iterations " + iterations + " outside 1.." + MAX_ITERATIONS);
            }
            if (isLoad(kind) ? rate < 1 || rate > MAX_RATE : rate != 0) {
                throw new IllegalArgumentException("a load offers 1.." + MAX_RATE + " messages a second, and only a "
                        + "load has a rate, not " + rate);
            }
            if (kind.equals(LOAD) && !series.loads() || kind.equals(WRITE_LOAD) && !series.rddp()) {
                throw new IllegalArgumentException(series.label + " is not measured under a " + kind);
            }
        }

        /** Bandwidth or latency: no rate. */
        Task(Series series, String kind, int size, long iterations) {
            this(series, kind, size, iterations, 0);
        }

        /** One queue pair. */
        Task(Series series, String kind, int size, long iterations, int rate) {
            this(series, kind, size, iterations, rate, 1);
        }

        /** Write bandwidth over {@code qps} queue pairs, set up one after another, each moving its share. */
        boolean scale() {
            return kind.equals(QPS);
        }

        boolean bandwidth() {
            return kind.equals(BANDWIDTH);
        }

        /**
         * A failover transfer: the server end sends messages for {@link #iterations} seconds, the client end receives
         * them and notes each one's arrival, while a path fails under them ({@link Failover}).
         */
        boolean failover() {
            return kind.equals(FAILOVER);
        }

        /** Under an offered load: of messages, or of RDMA Writes with their notifying Sends. */
        boolean load() {
            return isLoad(kind);
        }

        /** Under a load of RDMA Writes, each with a notifying Send. */
        boolean writes() {
            return kind.equals(WRITE_LOAD);
        }

        /**
         * As the control connection carries it: {@code SERIES kind size iterations}, and a load's rate or how many
         * queue pairs.
         */
        String encode() {
            return series.name() + " " + kind + " " + size + " " + iterations + (load() ? " " + rate : "")
                    + (scale() ? " " + qps : "");
        }

        /** The inverse of {@link #encode}; anything else is an {@link IllegalArgumentException} saying what. */
        static Task parse(String text) {
            String[] words = text.trim().split(" +");
            if (words.length != 4 && words.length != 5) {
                throw new IllegalArgumentException("a point is SERIES KIND SIZE ITERATIONS [RATE|QPS], not '" + text
                        + "'");
            }
            Series series;
            try {
                series = Series.valueOf(words[0]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("no series " + words[0] + "; there are "
                        + java.util.Arrays.toString(Series.values()));
            }
            try {
                int last = words.length == 5 ? Integer.parseInt(words[4]) : 0;
                boolean many = words[1].equals(QPS);
                return new Task(series, words[1], Integer.parseInt(words[2]), Long.parseLong(words[3]),
                        many ? 0 : last, many ? last : 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("size, iterations and rate are numbers, not '"
                        + String.join(" ", java.util.Arrays.asList(words).subList(2, words.length)) + "'");
            }
        }
    }

    /** Measures one point: both ends in this process, or the server end in a responder. */
    @FunctionalInterface
    interface Measure {
        PerfResult run(Task task) throws Exception;

        /** A {@linkplain Task#failover() failover} point, each message's arrival noted in {@code arrivals}. */
        default PerfResult failover(Task task, org.rddp.cli.perftest.Arrivals arrivals) throws Exception {
            throw new UnsupportedOperationException("this comparison measures no failover");
        }
    }

    /**
     * One point: a series at a size; {@code value} is the median of the runs, {@code min} and {@code max} their
     * spread, {@code runs} each run's value in order. A bandwidth point also has its message rate (perftest's
     * MsgRate[Mpps], the median run's) and the cores the process kept busy meanwhile (its CPU time over the point's
     * wall time, connection setup included, the median of the runs), null for latency. A load point's value is the
     * median round trip; it also has the 99th and 99.9th percentiles (each the median of the runs') and the
     * distribution of the run whose 99th percentile is the median, null for the others. {@code scenario} names the
     * network's conditions as set for the point (null: as it is).
     */
    record Point(String series, String kind, int bytes, long iterations, double value, double min, double max,
            String unit, List<Double> runs, Double messageRateMpps, Double busyCores, Double p99, Double p999,
            List<PerfResult.Percentile> percentiles, String scenario, QueuePairs queuePairs) {
        Point {
            runs = List.copyOf(runs);
            percentiles = percentiles == null ? null : List.copyOf(percentiles);
        }

        /** Not one of many queue pairs. */
        Point(String series, String kind, int bytes, long iterations, double value, double min, double max,
                String unit, List<Double> runs, Double messageRateMpps, Double busyCores, Double p99, Double p999,
                List<PerfResult.Percentile> percentiles, String scenario) {
            this(series, kind, bytes, iterations, value, min, max, unit, runs, messageRateMpps, busyCores, p99, p999,
                    percentiles, scenario, null);
        }

        /** A bandwidth or latency point. */
        Point(String series, String kind, int bytes, long iterations, double value, double min, double max,
                String unit, List<Double> runs, Double messageRateMpps, Double busyCores) {
            this(series, kind, bytes, iterations, value, min, max, unit, runs, messageRateMpps, busyCores, null, null,
                    null, null);
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

    /**
     * Everything measured under one scenario, for the table, the JSON and the charts; {@code setup} says where the
     * ends ran, {@code load} what load the load points offered (null: none), {@code scenario} the network's
     * conditions as set for the run (null: as it is).
     */
    record Results(String setup, String sctpStack, List<Integer> sizes, int repeat, List<Point> points, Load load,
            String scenario) {
        /** Without a load, on the network as it is. */
        Results(String setup, String sctpStack, List<Integer> sizes, int repeat, List<Point> points) {
            this(setup, sctpStack, sizes, repeat, points, null, null);
        }

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
    /** The most round trips a latency warm-up makes, in latency points. */
    static final int WARM_UP_LATENCY_POINTS = 20;
    /** The least share of a point's time a warm-up lasts when points are sized by time. */
    static final double WARM_UP_SHARE = 0.25;
    /** The most bandwidth runs one warm-up makes. */
    static final int WARM_UP_RUNS = 8;
    /** The most time one bandwidth warm-up runs, in points' time. */
    static final double WARM_UP_POINTS = 2;
    /** A warm-up run whose peak rate rose more than this over the run before's was still warming. */
    static final double WARM_UP_RISE = 1.2;
    /** A warm-up run whose average rate was less than this share of its peak sped up as it ran: still warming. */
    static final double WARM_UP_EVEN = 0.5;
    static final String LATENCY = "latency";
    /** Round trips at an offered load: a message due every 1/rate s, each echoed, timed from when it fell due. */
    static final String LOAD = "load";
    /**
     * Round trips at an offered load of RDMA Writes, each followed by a Send of no data that tells the peer it is
     * placed, and answered in kind (RDDP only: {@code write-lat --rate}).
     */
    static final String WRITE_LOAD = "write-load";

    /**
     * Write bandwidth over many queue pairs to one peer, set up one after another (RDDP only: {@code write-bw -q N}):
     * how fast they come up, what each costs this process, what they move together.
     */
    static final String QPS = "qps";

    /** A transfer while a path fails under it ({@link Failover}). */
    static final String FAILOVER = "failover";

    /** Whether {@code kind} is one measured under an offered load. */
    static boolean isLoad(String kind) {
        return kind.equals(LOAD) || kind.equals(WRITE_LOAD);
    }
    /** Where the in-process comparison runs. */
    static final String IN_PROCESS = "both ends in one process, loopback";

    private Compare() {
    }

    /** Both ends of every point in this process, on loopback, over these transports. */
    static Measure inProcess(CompareEnds.Transports transports) {
        return new Measure() {
            @Override
            public PerfResult run(Task task) throws Exception {
                return task.series().exs() ? exs(task) : CompareEnds.inProcess(task, transports, null);
            }

            @Override
            public PerfResult failover(Task task, org.rddp.cli.perftest.Arrivals arrivals) throws Exception {
                return CompareEnds.inProcess(task, transports, arrivals);
            }
        };
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
                    warmUpLatency(plan, measure, series, size);
                }
            }
        }
        Load load = plan.load();
        for (Series series : plan.series()) {
            for (String kind : load == null ? List.<String>of() : loads(series)) {
                // a quarter of a point, at least a second's worth
                measure.run(new Task(series, kind, load.size(), Math.min(load.iterations(), Math.max(load.rate(),
                        load.iterations() / 4)), load.rate()));
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
            for (Series series : plan.series()) {
                for (String kind : load == null ? List.<String>of() : loads(series)) {
                    progress.accept(String.format(Locale.ROOT, "compare:%s %s under a load of %s%s", plan.repeat() > 1
                            ? " run " + run + " of " + plan.repeat() + "," : "", series.label, load.describe(),
                            kind.equals(WRITE_LOAD) ? ", RDMA Writes with a notifying Send" : ""));
                    measured.computeIfAbsent(key(series, kind, load.size()), k -> new ArrayList<>())
                            .add(measure.run(new Task(series, kind, load.size(), load.iterations(), load.rate())));
                }
            }
            Many many = plan.many();
            for (Series series : plan.series()) {
                for (int qps : many == null || !series.rddp() ? List.<Integer>of() : many.counts()) {
                    progress.accept(String.format(Locale.ROOT, "compare:%s %s, %,d queue pairs, %d octets",
                            plan.repeat() > 1 ? " run " + run + " of " + plan.repeat() + "," : "", series.label, qps,
                            many.size()));
                    measured.computeIfAbsent(key(series, QPS, many.size()) + " " + qps, k -> new ArrayList<>())
                            .add(measure.run(new Task(series, QPS, many.size(), many.iterations(qps), 0, qps)));
                }
            }
        }
        List<Point> points = new ArrayList<>();
        measured.forEach((key, results) -> points.add(point(key, results, busy.get(key), plan.scenario())));
        return new Results(setup, plan.sctpStack() == null ? null : plan.sctpStack().name(), plan.sizes(),
                plan.repeat(), points, load, plan.scenario());
    }

    /**
     * Warms {@code series} up at {@code size} and returns the rate it reached, in octets a second. A first run moves
     * {@link #DEFAULT_BYTES}, or the points' volume when that is less (100..20,000 messages); when points are sized by
     * time, it runs again, longer, while its last run may still have been warming: the first (it starts cold); one
     * shorter than {@link #WARM_UP_SHARE} of a point (20,000 messages of 64 B take milliseconds, mostly start-up); one
     * faster than the run before, on average or at its peak, by more than {@link #WARM_UP_RISE}; one whose average
     * was under {@link #WARM_UP_EVEN} of its own peak (it sped up as it ran) -- up to {@link #WARM_UP_RUNS} runs and
     * {@link #WARM_UP_POINTS} points' time. On two cores with both ends busy the JIT's second tier finishes RDDP's
     * small-message path late: 40,000 and 80,000 Writes of 64 B ran at 15 MB/s each (a sixth of what they reach
     * warm) while their fastest eighth climbed from 36 to 53 MB/s; sized from them, the point lasted a sixth of a
     * second, not one.
     */
    static double warmUp(Plan plan, Measure measure, Series series, int size) throws Exception {
        // points of a given volume warm up with it, when it is less (at least 100 messages: the JIT's share)
        long bytes = plan.bandwidthBytes() > 0 ? Math.min(plan.bandwidthBytes(), DEFAULT_BYTES) : DEFAULT_BYTES;
        long iterations = Math.clamp(bytes / size, 100, 20_000);
        PerfResult.Bandwidth run = (PerfResult.Bandwidth) measure.run(new Task(series, BANDWIDTH, size, iterations));
        if (plan.bandwidthBytes() > 0) {
            return rate(run); // the points have a volume of their own
        }
        double goal = WARM_UP_SHARE * plan.secondsPerPoint();
        double spent = seconds(run);
        double peakBefore = Double.NaN;
        double averageBefore = Double.NaN;
        for (int runs = 1; runs < WARM_UP_RUNS && iterations < Task.MAX_ITERATIONS
                && spent < WARM_UP_POINTS * plan.secondsPerPoint(); runs++) {
            boolean brief = seconds(run) < goal;
            boolean climbing = runs == 1 || run.peakMbps() > WARM_UP_RISE * peakBefore
                    || run.averageMbps() > WARM_UP_RISE * averageBefore
                    || run.averageMbps() < WARM_UP_EVEN * run.peakMbps();
            if (!brief && !climbing) {
                break;
            }
            double peak = run.peakMbps() * (1 << 20);
            iterations = Math.min(Task.MAX_ITERATIONS, Math.max(brief ? 2 * iterations : iterations,
                    (long) (peak * goal / size))); // long enough at the pace of its fastest part
            peakBefore = run.peakMbps();
            averageBefore = run.averageMbps();
            run = (PerfResult.Bandwidth) measure.run(new Task(series, BANDWIDTH, size, iterations));
            spent += seconds(run);
        }
        return rate(run);
    }

    /** How long a bandwidth run took, in seconds. */
    private static double seconds(PerfResult.Bandwidth run) {
        return run.iterations() * (double) run.bytes() / (run.averageMbps() * (1 << 20));
    }

    /**
     * Warms {@code series}'s round trips up at {@code size}: {@value #WARM_UP_ROUND_TRIPS} of them (fewer when a point
     * makes fewer); when points are sized by time, then as many more as last {@link #WARM_UP_SHARE} of a point at the
     * round trip time they showed, up to {@value #WARM_UP_LATENCY_POINTS} points' worth. A few hundred round trips
     * leave the code of one compiled by the JIT's first tier only (its second compiles a method after some ten
     * thousand calls): the first two of three runs of 1,000 round trips then measured RDDP's and the RFC floor's
     * round trips 15-25 % slower than the third, and their ratio swung with whichever finished compiling first.
     */
    static void warmUpLatency(Plan plan, Measure measure, Series series, int size) throws Exception {
        long iterations = Math.min(WARM_UP_ROUND_TRIPS, plan.latencyIterations());
        PerfResult first = measure.run(new Task(series, LATENCY, size, iterations));
        if (plan.bandwidthBytes() > 0 || !(first instanceof PerfResult.Latency latency)
                || !(latency.averageUsec() > 0)) {
            return; // points of a given volume warm up briefly, as their bandwidth does
        }
        double roundTripSeconds = 2e-6 * latency.averageUsec();
        long more = Math.min((long) WARM_UP_LATENCY_POINTS * plan.latencyIterations(),
                (long) (WARM_UP_SHARE * plan.secondsPerPoint() / roundTripSeconds));
        if (more > iterations) {
            measure.run(new Task(series, LATENCY, size, more));
        }
    }

    /** A bandwidth result's rate in octets a second. */
    private static double rate(PerfResult result) {
        return ((PerfResult.Bandwidth) result).averageMbps() * (1 << 20);
    }

    /** The loads {@code series} is measured under: messages (RDDP: Sends), and RDDP's Writes too. */
    private static List<String> loads(Series series) {
        return series.rddp() ? List.of(LOAD, WRITE_LOAD) : series.loads() ? List.of(LOAD) : List.of();
    }

    private static String key(Series series, String kind, int size) {
        return series.name() + " " + kind + " " + size;
    }

    /**
     * The point of {@code key}'s runs: their median and spread; {@code busy}, each bandwidth run's busy cores; under
     * {@code scenario} (null: none).
     */
    private static Point point(String key, List<PerfResult> results, List<Double> busy, String scenario) {
        String[] words = key.split(" ");
        Series series = Series.valueOf(words[0]);
        if (words[1].equals(QPS)) { // SERIES qps SIZE COUNT
            List<PerfResult.Scale> scales = results.stream().map(PerfResult.Scale.class::cast).toList();
            double[] values = scales.stream().mapToDouble(scale -> scale.bandwidth().averageMbps()).toArray();
            return new Point(series.label, QPS, Integer.parseInt(words[2]), results.stream()
                    .mapToLong(PerfResult::iterations).max().orElse(0), PerfResult.median(values),
                    java.util.Arrays.stream(values).min().orElse(Double.NaN), java.util.Arrays.stream(values).max()
                            .orElse(Double.NaN), "MB/sec (all queue pairs)", java.util.Arrays.stream(values).boxed()
                            .toList(), PerfResult.median(scales.stream().mapToDouble(scale -> scale.bandwidth()
                                    .messageRateMpps()).toArray()), null, null, null, null, scenario,
                    QueuePairs.of(Integer.parseInt(words[3]), scales));
        }
        boolean bandwidth = words[1].equals(BANDWIDTH);
        double[] values = results.stream().mapToDouble(result -> bandwidth
                ? ((PerfResult.Bandwidth) result).averageMbps() : ((PerfResult.Latency) result).typicalUsec())
                .toArray();
        long iterations = results.stream().mapToLong(PerfResult::iterations).max().orElse(0);
        Double rate = bandwidth ? PerfResult.median(results.stream().mapToDouble(result ->
                ((PerfResult.Bandwidth) result).messageRateMpps()).toArray()) : null;
        double[] measuredCores = busy == null ? new double[0] : busy.stream().mapToDouble(Double::doubleValue)
                .filter(cores -> !Double.isNaN(cores)).toArray();
        Double cores = bandwidth && measuredCores.length > 0 ? PerfResult.median(measuredCores) : null;
        double min = java.util.Arrays.stream(values).min().orElse(Double.NaN);
        double max = java.util.Arrays.stream(values).max().orElse(Double.NaN);
        List<Double> runs = java.util.Arrays.stream(values).boxed().toList();
        if (!isLoad(words[1])) {
            return new Point(series.label, words[1], Integer.parseInt(words[2]), iterations,
                    PerfResult.median(values), min, max, bandwidth ? "MB/sec" : "usec", runs, rate, cores, null, null,
                    null, scenario);
        }
        List<PerfResult.Latency> loads = results.stream().map(PerfResult.Latency.class::cast)
                .sorted(java.util.Comparator.comparingDouble(PerfResult.Latency::p99Usec)).toList();
        return new Point(series.label, words[1], Integer.parseInt(words[2]), iterations, PerfResult.median(values), min,
                max, "usec (round trip)", runs, null, null, PerfResult.median(loads.stream()
                        .mapToDouble(PerfResult.Latency::p99Usec).toArray()), PerfResult.median(loads.stream()
                        .mapToDouble(PerfResult.Latency::p999Usec).toArray()),
                loads.get((loads.size() - 1) / 2).percentiles(), scenario);
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

    /**
     * The load points as a table: per series the round trip's median, 99th and 99.9th percentiles and slowest, in
     * usec, and the 99th percentile's ratio to the baseline's; empty without a load.
     */
    static String loadTable(Results results, List<Series> all) {
        Load load = results.load();
        List<Point> points = java.util.stream.Stream.of(LOAD, WRITE_LOAD).flatMap(kind -> all.stream()
                .map(each -> results.point(each, kind, load == null ? 0 : load.size())))
                .filter(java.util.Objects::nonNull).toList();
        if (points.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("Round trips under an offered load of " + load.describe()
                + ", in usec, each timed from when it fell due (at most " + Load.WINDOW + " unanswered); RDDP's "
                + "messages are Sends, or RDMA Writes each with a notifying Send (" + WRITES + "); the p99 ratio is to "
                + "the socket's" + (results.repeat() > 1 ? "; median of " + results.repeat() + " runs" : "") + "\n");
        int width = Math.max(all.stream().mapToInt(Compare::width).max().orElse(16), points.stream()
                .mapToInt(point -> loadLabel(point).length()).max().orElse(0));
        out.append(String.format(Locale.ROOT, "%-" + width + "s %10s %10s %10s %10s %9s%n", "series", "p50", "p99",
                "p99.9", "max", "p99 ratio"));
        for (Point point : points) {
            Series series = Series.labelled(point.series());
            Point base = series.baseline == null ? null : results.point(series.baseline, LOAD, point.bytes());
            List<PerfResult.Percentile> distribution = point.percentiles();
            out.append(String.format(Locale.ROOT, "%-" + width + "s %10.1f %10.1f %10.1f %10.1f %9s%n",
                    loadLabel(point), point.value(), point.p99(), point.p999(), distribution.getLast().usec(),
                    base == null ? "" : String.format(Locale.ROOT, "%.2f", point.p99() / base.p99())));
        }
        return out.append('\n').toString();
    }

    /**
     * The points of many queue pairs as a table: per series and count, how fast the data connections came up one
     * after another, the Write bandwidth of all together, and what each queue pair added to this process; empty
     * without them.
     */
    static String queuePairTable(Results results) {
        List<Point> points = results.points().stream().filter(point -> point.queuePairs() != null).toList();
        if (points.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("Many queue pairs to one peer, set up one after another, then RDMA Writes"
                + " of " + String.format(Locale.ROOT, "%,d", points.getFirst().bytes()) + " octets on all; each "
                + "queue pair's cost to this process (" + (results.setup().startsWith(IN_PROCESS) ? "both ends" : "the "
                        + "initiator's end") + ") from before the first data connection to the last one up"
                + (results.repeat() > 1 ? "; median of " + results.repeat() + " runs" : "") + "\n");
        out.append(String.format(Locale.ROOT, "%-16s %7s %10s %12s %9s %14s %14s%n", "series", "QPs", "setup/s",
                "MB/sec", "threads", "resident KiB", "direct KiB"));
        for (Point point : points) {
            QueuePairs each = point.queuePairs();
            out.append(String.format(Locale.ROOT, "%-16s %7d %10.0f %12.2f %9.3f %14.1f %14.1f%n", point.series(),
                    each.count(), each.setupPerSecond(), point.value(), each.threadsEach(),
                    each.residentOctetsEach() / 1024, each.directOctetsEach() / 1024));
        }
        return out.append('\n').toString();
    }

    /** How the load table and chart name a load point's line: its series, and {@link #WRITES} for Writes. */
    static String loadLabel(Point point) {
        return point.kind().equals(WRITE_LOAD) ? point.series() + ", " + WRITES : point.series();
    }

    /** What a Write load's line is called beside its series. */
    static final String WRITES = "Writes";

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
     * backend, the network's conditions (the scenario set for the run, or as it is), the machine, the Java, rddp's
     * version and commit (from the launcher's {@code rddp.commit}), the date, and how many runs each point is the
     * median of.
     */
    static String conditions(Results results) {
        String os = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        return results.setup() + (results.sctpStack() == null ? "" : "; SCTP " + results.sctpStack().toLowerCase(
                Locale.ROOT).replace('_', '-')) + "; network: " + (results.scenario() == null
                        ? "as it is (no loss or delay added)" : results.scenario()) + tcpCongestionControl()
                + ("kernel".equalsIgnoreCase(results.sctpStack()) ? socketBufferCaps() : "") + "; "
                + Runtime.getRuntime().availableProcessors() + " processors, " + os + ", Java "
                + Runtime.version().feature() + "; rddp " + org.rddp.cli.Version.NUMBER + ", commit " + commit()
                + ", " + java.time.LocalDate.now(java.time.ZoneOffset.UTC) + "; " + (results.repeat() > 1
                        ? "median of " + results.repeat() + " runs, band: smallest to largest" : "one run");
    }

    /**
     * ", TCP congestion control NAME" as this host's network namespace sets it for new connections (Linux), or "":
     * under loss it decides much of what TCP and MPA do (BBR, for one, falls to a window of one packet in recovery),
     * and on loopback too: BBR paces a connection at the bandwidth it estimated, and there held the socket's 1 MiB
     * stream at 3.4-3.8 GB/s where CUBIC let it reach 5.4-6.1, while RDDP over MPA moved 3.6-4.2 GB/s under either.
     */
    static String tcpCongestionControl() {
        try {
            return ", TCP congestion control " + Files.readString(Path.of(
                    "/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }

    /**
     * ", socket buffers up to R/W octets" as net.core.rmem_max and wmem_max cap what a socket may ask (Linux), or "":
     * kernel SCTP does not tune its buffers as TCP does, so over a long round trip its window is what they allow.
     */
    static String socketBufferCaps() {
        try {
            return ", socket buffers up to " + Files.readString(Path.of("/proc/sys/net/core/rmem_max")).strip() + "/"
                    + Files.readString(Path.of("/proc/sys/net/core/wmem_max")).strip() + " octets (rmem/wmem_max)";
        } catch (IOException | SecurityException e) {
            return "";
        }
    }

    /**
     * "; MTU N" of the interface {@code local} is on (the path a comparison's packets take from this side; loopback's
     * for one process), or "" when the system does not say: a condition every result depends on.
     */
    static String mtu(java.net.InetAddress local) {
        try {
            java.net.NetworkInterface nic = java.net.NetworkInterface.getByInetAddress(local);
            return nic == null ? "" : "; MTU " + nic.getMTU();
        } catch (IOException e) {
            return "";
        }
    }

    /** The commit the launcher ({@code ./rddp}) ran at, from its {@code rddp.commit}; "unknown" otherwise. */
    static String commit() {
        return System.getProperty("rddp.commit", "unknown");
    }

    /**
     * What {@link #write} writes and the console prints of one scenario's results: the tables, then the load's.
     */
    static String tables(Results results, List<Series> all) {
        return (results.scenario() == null ? "" : "== network: " + results.scenario() + "\n\n")
                + table(results, all) + messageRates(results, all) + loadTable(results, all)
                + queuePairTable(results);
    }

    /**
     * Writes {@code compare.json} (every point of every scenario, each naming its scenario), per scenario a
     * bandwidth, a latency and, with a load, a round-trip percentile chart ({@code bandwidth.png}, {@code latency.png},
     * {@code load.png}; under scenarios each name takes the scenario's, as {@code load-loss-0.01.png}), with several
     * scenarios the bandwidth at the largest size and the load's 99th percentile across them
     * ({@code scenarios-bandwidth.png}, {@code scenarios-load.png}), and
     * {@code report.html} (the tables and charts in one self-contained page, to hand to someone else) into
     * {@code folder}.
     */
    static List<Path> write(List<Results> scenarios, List<Series> all, Path folder) throws IOException {
        Files.createDirectories(folder);
        Results first = scenarios.getFirst();
        boolean named = scenarios.size() > 1 || first.scenario() != null;
        String conditions = named ? conditions(first).replace("network: " + (first.scenario() == null
                ? "as it is (no loss or delay added)" : first.scenario()), "network: " + String.join("; ",
                        scenarios.stream().map(Compare::scenario).toList())) : conditions(first);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("tool", "rddp compare");
        document.put("conditions", conditions);
        document.put("version", org.rddp.cli.Version.NUMBER);
        document.put("commit", commit());
        document.put("setup", first.setup());
        document.put("sctpStack", first.sctpStack());
        document.put("java", Runtime.version().toString());
        document.put("processors", Runtime.getRuntime().availableProcessors());
        document.put("sizes", first.sizes());
        document.put("repeat", first.repeat());
        if (first.load() != null) {
            document.put("load", first.load());
        }
        if (named) {
            document.put("scenarios", scenarios.stream().map(each -> Map.of("scenario", scenario(each),
                    "conditions", conditions(each))).toList());
        }
        document.put("points", scenarios.stream().flatMap(each -> each.points().stream()).toList());
        Path json = folder.resolve("compare.json");
        PerfReport.JSON.writeValue(json.toFile(), document);
        List<Path> written = new ArrayList<>(List.of(json));
        List<Report.Figure> figures = new ArrayList<>();
        if (scenarios.size() > 1) { // how each transport holds up from one scenario to the next
            int largest = first.sizes().stream().mapToInt(Integer::intValue).max().orElseThrow();
            String title = BANDWIDTH_TITLE.replace(" vs message size", "") + " at " + largest + " octets, by network";
            figures.add(chart(folder.resolve("scenarios-bandwidth.png"), title, Chart.acrossScenarios(scenarios,
                    BANDWIDTH, largest, title, "MB/sec", conditions), written));
            if (first.load() != null) {
                title = "99th percentile round trip under a load of " + first.load().describe() + ", by network";
                figures.add(chart(folder.resolve("scenarios-load.png"), title, Chart.acrossScenarios(scenarios, LOAD,
                        first.load().size(), title, "usec (round trip, p99)", conditions), written));
            }
        }
        StringBuilder tables = new StringBuilder();
        for (Results each : scenarios) {
            String suffix = named ? "-" + scenario(each).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.]+", "-") : "";
            String where = named ? ", network: " + scenario(each) : "";
            String said = conditions(each);
            figures.add(chart(folder.resolve("bandwidth" + suffix + ".png"), BANDWIDTH_TITLE + where,
                    Chart.png(each, BANDWIDTH, BANDWIDTH_TITLE + where, "MB/sec", said), written));
            figures.add(chart(folder.resolve("latency" + suffix + ".png"), LATENCY_TITLE + where,
                    Chart.png(each, LATENCY, LATENCY_TITLE + where, "usec (half round trip)", said), written));
            if (each.points().stream().anyMatch(point -> isLoad(point.kind()))) {
                String title = LOAD_TITLE + each.load().describe() + where;
                figures.add(chart(folder.resolve("load" + suffix + ".png"), title, Chart.percentiles(each, title,
                        said), written));
            }
            tables.append(tables(each, all));
        }
        Path report = folder.resolve("report.html");
        Files.writeString(report, Report.html(conditions, tables.toString(), figures));
        written.add(report);
        return written;
    }

    /** Writes {@code png} to {@code file}, which joins {@code written}; the figure for the page. */
    private static Report.Figure chart(Path file, String title, byte[] png, List<Path> written) throws IOException {
        Files.write(file, png);
        written.add(file);
        return new Report.Figure(title, png);
    }

    /** The scenario {@code results} ran under, as named. */
    private static String scenario(Results results) {
        return results.scenario() == null ? "as it is" : results.scenario();
    }

    private static final String BANDWIDTH_TITLE = "RDMA Write bandwidth vs message size";
    private static final String LATENCY_TITLE = "Send ping-pong latency vs message size";
    private static final String LOAD_TITLE = "Round trip by percentile, Sends or Writes (TCP: messages) echoed, ";
}
