package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.InProcess.Run;
import org.rddp.cli.InProcess;

/**
 * {@code rddp compare} on a small sweep: every transport and baseline, the table, the JSON and the charts; in one
 * process, and as a responder and an initiator (two runs of the command in this JVM, talking over loopback).
 */
class CompareCommandTest {

    @Test
    void comparesEveryTransportWithItsBaselineAndWritesJsonAndCharts(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "--sizes", "256,65536", "--mib-per-point", "2",
                "--latency-iters", "50", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertTableAndFiles(run, out);
        assertThat(new ObjectMapper().readTree(out.resolve("compare.json").toFile()).get("setup").asText())
                .isEqualTo("both ends in one process, loopback; MTU " + java.net.NetworkInterface.getByInetAddress(
                        InetAddress.getLoopbackAddress()).getMTU() + "; SCTP profile default: "
                        + org.rddp.transport.sctp.ProtocolParameters.defaults().describe());
        // the congestion control decides the TCP figures on loopback: the banner says which one the sockets get
        assertThat(run.out()).contains("loopback, both ends in this process" + Compare.tcpCongestionControl() + "\n");
        assertThat(Compare.tcpCongestionControl()).isEqualTo(", TCP congestion control "
                + Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip());
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void comparesBetweenAResponderAndAnInitiatorOverBothTransports(@TempDir Path out) throws Exception {
        String port = Integer.toString(InProcess.freePort());
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Run> responder = CompletableFuture.supplyAsync(() -> InProcess.rddp(listening,
                "compare", "--serve", "-B", "127.0.0.1", "-p", port, "--once"));
        listening.get(60, TimeUnit.SECONDS);
        Run initiator = InProcess.rddp("compare", "--peer", "127.0.0.1:" + port, "--sctp-stack", "usrsctp",
                "--sctp-profile", "fast-failover", "--sizes", "256,65536", "--mib-per-point", "2", "--latency-iters",
                "50", "-o", out.toString());
        Run served = responder.get(60, TimeUnit.SECONDS);
        assertThat(initiator.status()).as(initiator.err()).isZero();
        assertThat(initiator.out()).contains("(SCTP: usrsctp-udp); initiator here, responder at 127.0.0.1:" + port);
        assertTableAndFiles(initiator, out);
        assertThat(new ObjectMapper().readTree(out.resolve("compare.json").toFile()).get("setup").asText())
                .startsWith("two processes: initiator 127.0.0.1, responder 127.0.0.1:" + port);
        assertThat(served.status()).as(served.err()).isZero();
        // a warm-up pass of 4 series x 2 measures and the RFC floor's latency at each of the 2 sizes, then the same
        // measured
        assertThat(served.out()).contains("(SCTP: usrsctp-udp on UDP port ").contains(" done, 36 points");
        // issue 51: both ends run the profile the initiator named, and the conditions say which
        assertThat(served.out()).contains(", profile fast-failover)");
        assertThat(new ObjectMapper().readTree(out.resolve("compare.json").toFile()).get("conditions").asText())
                .contains("SCTP profile fast-failover: RTO 200/20/1000 ms");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aResponderServesOneComparisonAfterAnotherUntilClosed(@TempDir Path out) throws Exception {
        java.io.StringWriter said = new java.io.StringWriter();
        PrintWriter print = new PrintWriter(said, true);
        CompareResponder responder = new CompareResponder(InetAddress.getLoopbackAddress(), 0, List.of(), print, print);
        int port = Integer.parseInt(said.toString().replaceAll("(?s).*listening on 127.0.0.1:(\\d+).*", "$1"));
        CompletableFuture<Integer> serving = CompletableFuture.supplyAsync(() -> {
            try {
                return responder.serve(false);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        for (int round = 0; round < 2; round++) {
            Run initiator = InProcess.rddp("compare", "--peer", "127.0.0.1:" + port, "-t", "mpa", "--sizes",
                    "1024", "--mib-per-point", "1", "--latency-iters", "20", "-o", out.toString(), "--json");
            assertThat(initiator.status()).as(initiator.err()).isZero();
            assertThat(initiator.out()).contains("RDDP over MPA").contains("two processes: initiator 127.0.0.1");
        }
        responder.close();
        assertThat(serving.get(30, TimeUnit.SECONDS)).as(said.toString()).isZero();
        // each time the warm-up and one size: 2 series x 2 measures and the RFC floor's latency, twice
        assertThat(said.toString().split(" done, 10 points", -1)).hasSize(3);
    }

    /** Starts {@code rddp compare --serve --once} on loopback at {@code port}; returns once it listens. */
    private static CompletableFuture<Run> onceResponder(String port) throws Exception {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Run> responder = CompletableFuture.supplyAsync(() -> InProcess.rddp(listening,
                "compare", "--serve", "-B", "127.0.0.1", "-p", port, "--once"));
        listening.get(60, TimeUnit.SECONDS);
        return responder;
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aBadRequestIsAnsweredWithWhyAndTheComparisonGoesOn() throws Exception {
        String port = Integer.toString(InProcess.freePort());
        CompletableFuture<Run> responder = onceResponder(port);
        try (Socket control = new Socket("127.0.0.1", Integer.parseInt(port))) {
            control.setSoTimeout(60_000);
            CompareResponder.Lines lines = new CompareResponder.Lines(control);
            lines.write("rddp-compare 1 sctp=none");
            assertThat(lines.read()).isEqualTo("rddp-compare 1 udp-port=none");
            lines.write("point UDP_SOCKET bandwidth 64 10");
            assertThat(lines.read()).startsWith("error bad request: no series UDP_SOCKET; there are [TCP_SOCKET,");
            lines.write("point TCP_SOCKET bandwidth 0 10");
            assertThat(lines.read()).isEqualTo("error bad request: size 0 outside 1..8388608");
            lines.write("point TCP_SOCKET bandwidth many 10");
            assertThat(lines.read())
                    .isEqualTo("error bad request: size, iterations and rate are numbers, not 'many 10'");
            lines.write("point TCP_SOCKET load 64 10 100000000");
            assertThat(lines.read()).startsWith("error bad request: a load offers 1..1000000 messages a second");
            lines.write("point RDDP_MPA write-load 64 10 100000000");
            assertThat(lines.read()).startsWith("error bad request: a load offers 1..1000000 messages a second");
            lines.write("point RDDP_MPA qps 4096 100 1001"); // a queue pair more than a responder holds
            assertThat(lines.read()).startsWith("error bad request: many queue pairs are 1..1000");
            lines.write("point RDDP_SCTP qps 1048576 100 65"); // 65 MiB of registered messages, past the 64
            assertThat(lines.read()).startsWith("error bad request: 65 queue pairs of 1048576 octets are more than 64 "
                    + "MiB of messages");
            lines.write("point SCTP_SOCKET latency 64 10");
            assertThat(lines.read())
                    .isEqualTo("error SCTP_SOCKET latency 64 10: SCTP was not agreed on for this comparison");
            lines.write("point NETTY_SCTP_SOCKET latency 64 10"); // its echo would buffer what a stranger sends
            assertThat(lines.read()).isEqualTo("error NETTY_SCTP_SOCKET latency 64 10: Netty SCTP (NIO) runs with "
                    + "both ends in one process only");
            lines.write("measure everything");
            assertThat(lines.read()).isEqualTo("error bad request 'measure everything': expected point or bye");
            lines.write("point TCP_SOCKET latency 64 10"); // and a good one still runs
            String ready = lines.read();
            assertThat(ready).startsWith("ready ");
            try (SocketChannel data = SocketChannel.open(new InetSocketAddress("127.0.0.1",
                    Integer.parseInt(ready.substring("ready ".length()))))) {
                assertThat(Baselines.tcpPing(data, 64, 10, CompareEnds.TIMEOUT).iterations()).isEqualTo(10);
            }
            assertThat(lines.read()).isEqualTo("done");
            lines.write("bye");
        }
        Run served = responder.get(60, TimeUnit.SECONDS);
        assertThat(served.status()).isOne(); // the comparison had errors
        assertThat(served.err()).contains("bad request: no series UDP_SOCKET");
        assertThat(served.out()).contains(" done, 1 point");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void somethingElseOnTheControlPortIsToldWhatItReached() throws Exception {
        String port = Integer.toString(InProcess.freePort());
        CompletableFuture<Run> responder = onceResponder(port);
        try (Socket control = new Socket("127.0.0.1", Integer.parseInt(port))) {
            control.setSoTimeout(60_000);
            CompareResponder.Lines lines = new CompareResponder.Lines(control);
            lines.write("GET / HTTP/1.0");
            assertThat(lines.read()).isEqualTo("error not an rddp compare initiator (it said 'GET / HTTP/1.0'; this "
                    + "responder speaks rddp-compare 1)");
            assertThat(lines.read()).isNull(); // and it hangs up
        }
        Run served = responder.get(60, TimeUnit.SECONDS);
        assertThat(served.status()).isOne();
    }

    @Test
    void readsThePeerAsHostOrHostAndPort() throws Exception {
        assertThat(CompareCommand.responder("127.0.0.1", 18516)).isEqualTo(new InetSocketAddress("127.0.0.1", 18516));
        assertThat(CompareCommand.responder("127.0.0.1:7000", 18516))
                .isEqualTo(new InetSocketAddress("127.0.0.1", 7000));
        assertThat(CompareCommand.responder("[::1]:7000", 18516)).isEqualTo(new InetSocketAddress("::1", 7000));
        assertThat(CompareCommand.responder("::1", 18516)).isEqualTo(new InetSocketAddress("::1", 18516));
    }

    private static void assertTableAndFiles(Run run, Path out) throws Exception {
        assertThat(run.out()).contains("TCP socket, RDDP over MPA, MPA hop, RFC floor, SCTP socket, RDDP over SCTP")
                .contains("RDMA Write bandwidth vs socket streaming").contains("Send ping-pong vs socket ping-pong")
                .contains("MsgRate[Mpps]");
        List<String[]> rows = run.out().lines().filter(line -> line.matches("\\s+\\d+ .*"))
                .map(line -> line.trim().split("\\s+")).toList();
        assertThat(rows).hasSize(6); // two sizes, three tables
        for (String[] row : rows) {
            // bandwidth: size, TCP, MPA, ratio, SCTP, RDDP over SCTP, ratio; latency: the RFC floor and RDDP over
            // MPA's ratio to it too; message rate: size and each bandwidth series' rate, per core, Gbit/s per core
            assertThat(row.length).isIn(7, 9, 13);
            for (int i = 1; i < row.length; i++) {
                if (row.length == 13 && i % 3 != 1 && row[i].equals("-")) {
                    continue; // per core: a point too short for the process's CPU clock (ticks) has none
                }
                assertThat(Double.parseDouble(row[i])).as("%s%n%s", String.join(" ", row), run.out()).isPositive();
            }
        }
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("sizes").size()).isEqualTo(2);
        Set<String> seen = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).isPositive();
            assertThat(point.get("iterations").asLong()).isPositive();
            seen.add(point.get("series").asText() + "/" + point.get("kind").asText() + "/" + point.get("bytes"));
        }
        assertThat(seen).hasSize(18).contains("RDDP over SCTP/latency/65536", "TCP socket/bandwidth/256",
                "MPA hop, RFC floor/latency/256").doesNotContain("MPA hop, RFC floor/bandwidth/256");
        for (String chart : List.of("bandwidth.png", "latency.png")) {
            BufferedImage image = ImageIO.read(out.resolve(chart).toFile());
            assertThat(image.getWidth()).isEqualTo(Chart.WIDTH);
            assertThat(image.getHeight()).isEqualTo(Chart.HEIGHT);
        }
        // issue 35: the conditions travel with the figures, and one page holds the tables and both charts
        String conditions = json.get("conditions").asText();
        assertThat(conditions).contains(json.get("setup").asText()).contains("processors").contains("commit ")
                .contains("no loss or delay added").contains(", TCP congestion control "
                        + Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip() + ";");
        String page = Files.readString(out.resolve("report.html"));
        assertThat(page).startsWith("<!DOCTYPE html>").contains(Report.escape(conditions))
                .contains("RDMA Write bandwidth vs socket streaming").contains("MsgRate[Mpps]");
        java.util.regex.Matcher images = java.util.regex.Pattern.compile(
                "src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"").matcher(page);
        int pictures = 0;
        while (images.find()) {
            BufferedImage image = ImageIO.read(new java.io.ByteArrayInputStream(java.util.Base64.getDecoder()
                    .decode(images.group(1))));
            assertThat(image.getWidth()).isEqualTo(Chart.WIDTH);
            pictures++;
        }
        assertThat(pictures).isEqualTo(2);
    }

    @Test
    void comparesOneTransportAndPrintsJson(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "-t", "mpa", "--sizes", "1024", "--mib-per-point", "1",
                "--latency-iters", "20", "-o", out.toString(), "--json");
        assertThat(run.status()).as(run.err()).isZero();
        String printed = run.out().substring(run.out().indexOf('{'));
        JsonNode json = new ObjectMapper().readTree(printed);
        Set<String> series = new HashSet<>();
        json.get("points").forEach(point -> series.add(point.get("series").asText()));
        assertThat(series).containsExactlyInAnyOrder("TCP socket", "RDDP over MPA", "MPA hop, RFC floor");
        assertThat(Files.readString(out.resolve("compare.json"))).isEqualTo(printed.strip());
        for (JsonNode point : json.get("points")) { // issue 36: perftest's message rate, and the cores kept busy
            boolean bandwidth = point.get("kind").asText().equals("bandwidth");
            assertThat(point.get("messageRateMpps").isNull()).as("%s", point).isEqualTo(!bandwidth);
            if (bandwidth) {
                assertThat(point.get("messageRateMpps").asDouble()).as("%s", point).isCloseTo(
                        point.get("value").asDouble() * (1 << 20) / 1024 / 1e6, org.assertj.core.data.Percentage
                                .withPercentage(1));
                // the process's CPU time comes in clock ticks: a point this short may show none (null)
                assertThat(point.get("busyCores").isNull() || point.get("busyCores").asDouble() > 0).as("%s", point)
                        .isTrue();
            }
        }
    }

    @Test
    void timesRoundTripsUnderAnOfferedLoadUnderEachScenarioItSets(@TempDir Path out) throws Exception {
        Path said = out.resolve("said.txt");
        Path command = out.resolve("set.sh");
        Files.writeString(command, "#!/bin/sh\necho \"$*\" >> " + said + "\n");
        command.toFile().setExecutable(true);
        Run run = InProcess.rddp("compare", "-t", "mpa", "--sizes", "1024", "--mib-per-point", "1",
                "--latency-iters", "20", "--load-rate", "2000", "--load-seconds", "0.25", "--load-size", "512",
                "--scenarios", "loss 0;loss 0.01", "--scenario-command", command.toString(), "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(Files.readAllLines(said)).containsExactly("loss 0", "loss 0.01", "clear");
        assertThat(run.err()).contains("compare: 1 of 2 scenarios written to " + out); // kept if stopped
        assertThat(run.out()).contains("== network: loss 0\n").contains("== network: loss 0.01\n")
                .contains("Round trips under an offered load of 2,000 messages/s of 512 octets");
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("load").get("rate").asInt()).isEqualTo(2000);
        assertThat(json.get("scenarios").size()).isEqualTo(2);
        assertThat(json.get("scenarios").get(1).get("conditions").asText())
                .contains("network: loss 0.01, TCP congestion control ");
        Set<String> loaded = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("scenario").asText()).isIn("loss 0", "loss 0.01");
            if (!point.get("kind").asText().endsWith("load")) {
                continue;
            }
            loaded.add(point.get("series").asText() + " / " + point.get("kind").asText() + " / "
                    + point.get("scenario").asText());
            assertThat(point.get("bytes").asInt()).isEqualTo(512);
            assertThat(point.get("iterations").asLong()).isEqualTo(500); // 2000 a second for a quarter second
            double p50 = point.get("value").asDouble();
            assertThat(p50).isPositive().isLessThanOrEqualTo(point.get("p99").asDouble());
            assertThat(point.get("p99").asDouble()).isLessThanOrEqualTo(point.get("p999").asDouble());
            double last = 0;
            for (JsonNode at : point.get("percentiles")) { // a distribution: never falls
                assertThat(at.get("usec").asDouble()).isGreaterThanOrEqualTo(last);
                last = at.get("usec").asDouble();
            }
            assertThat(point.get("percentiles").get(point.get("percentiles").size() - 1).get("percent").asDouble())
                    .isEqualTo(100);
        }
        assertThat(loaded).containsExactlyInAnyOrder("TCP socket / load / loss 0", "RDDP over MPA / load / loss 0",
                "RDDP over MPA / write-load / loss 0", "TCP socket / load / loss 0.01",
                "RDDP over MPA / load / loss 0.01", "RDDP over MPA / write-load / loss 0.01");
        assertThat(run.out()).containsPattern("RDDP over MPA, Writes +[0-9.]+ ");
        for (String chart : List.of("load-loss-0.png", "load-loss-0.01.png", "bandwidth-loss-0.01.png",
                "scenarios-bandwidth.png", "scenarios-load.png")) {
            BufferedImage image = ImageIO.read(out.resolve(chart).toFile());
            assertThat(image.getWidth()).as(chart).isEqualTo(Chart.WIDTH);
        }
        assertThat(Files.readString(out.resolve("report.html"))).contains("network: loss 0.01")
                .contains("Round trip by percentile");
    }

    @Test
    void measuresManyQueuePairsToOnePeerOnEachTransport(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "--sizes", "1024", "--mib-per-point", "1", "--latency-max", "0",
                "--qps", "1,20", "--qp-size", "256", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("Many queue pairs to one peer").containsPattern(
                "RDDP over MPA +20 +[0-9]+ +[0-9.]+ ").containsPattern("RDDP over SCTP +20 +[0-9]+ +[0-9.]+ ");
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        Set<String> measured = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            if (!point.get("kind").asText().equals("qps")) {
                assertThat(point.get("queuePairs").isNull()).isTrue();
                continue;
            }
            JsonNode each = point.get("queuePairs");
            measured.add(point.get("series").asText() + " / " + each.get("count").asInt());
            assertThat(point.get("bytes").asInt()).isEqualTo(256);
            assertThat(point.get("value").asDouble()).isPositive(); // MB/s of all together
            assertThat(point.get("iterations").asLong()).isEqualTo(200_000); // their shares, all completed
            assertThat(each.get("setupPerSecond").asDouble()).isPositive();
            assertThat(each.get("threadsEach").isNumber()).isTrue(); // the JVM's own threads come and go
        }
        assertThat(measured).containsExactlyInAnyOrder("RDDP over MPA / 1", "RDDP over MPA / 20",
                "RDDP over SCTP / 1", "RDDP over SCTP / 20");
    }

    @Test
    void aScenarioThatCannotBeSetEndsTheComparisonSayingWhy(@TempDir Path out) throws Exception {
        Path command = out.resolve("fail.sh");
        Files.writeString(command, "#!/bin/sh\necho \"no such fault: $1\"\nexit 3\n");
        command.toFile().setExecutable(true);
        Run run = InProcess.rddp("compare", "-t", "mpa", "--sizes", "1024", "--scenarios", "jam 1",
                "--scenario-command", command.toString(), "-o", out.toString());
        assertThat(run.status()).isNotZero();
        assertThat(run.err()).contains("failed (exit 3): no such fault: jam");
        assertThat(InProcess.rddp("compare", "--scenarios", "loss 0;loss 0.01").err())
                .contains("several --scenarios need a --scenario-command");
    }

    @Test
    void repeatsEveryPointAndShowsTheMedianTheSpreadAndTheRatioOfEachRun(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "-t", "mpa", "--sizes", "1024", "--mib-per-point", "1",
                "--latency-iters", "20", "--repeat", "3", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("median of 3 runs").contains("%");
        assertThat(run.err()).contains("run 3 of 3");
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("repeat").asInt()).isEqualTo(3);
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("runs").size()).isEqualTo(3);
            List<Double> runs = new java.util.ArrayList<>();
            point.get("runs").forEach(value -> runs.add(value.asDouble()));
            java.util.Collections.sort(runs);
            assertThat(point.get("value").asDouble()).isEqualTo(runs.get(1)); // the median
            assertThat(point.get("min").asDouble()).isEqualTo(runs.get(0));
            assertThat(point.get("max").asDouble()).isEqualTo(runs.get(2));
        }
    }

    @Test
    void addsTheExsSeriesOverEachTransportWhenAsked(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "--exs", "--sizes", "4096", "--mib-per-point", "1",
                "--latency-iters", "20", "-o", out.toString(), "--json");
        assertThat(run.status()).as(run.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        Set<String> exs = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            if (point.get("series").asText().startsWith("EXS")) {
                exs.add(point.get("series").asText() + " " + point.get("kind").asText());
                assertThat(point.get("value").asDouble()).as(point.toString()).isPositive();
            }
        }
        assertThat(exs).containsExactlyInAnyOrder("EXS over MPA bandwidth", "EXS over MPA latency",
                "EXS over SCTP bandwidth", "EXS over SCTP latency");
        Run remote = InProcess.rddp("compare", "--exs", "--peer", "127.0.0.1", "-o", out.toString());
        assertThat(remote.status()).isOne();
        assertThat(remote.err()).contains("--exs runs EXS in this process");
    }

    /** Issue 34: IPv6's figures next to IPv4's, in one run: every transport's series again over {@code ::1}. */
    @Test
    void addsEachSeriesOverIpv6NextToIpv4WhenAsked(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "--ipv6", "--sctp-stack", "usrsctp-udp", "--sizes", "4096",
                "--mib-per-point", "1", "--latency-iters", "20", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        Set<String> measured = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).as(point.toString()).isPositive();
            measured.add(point.get("series").asText() + " " + point.get("kind").asText());
        }
        for (String series : List.of("TCP socket", "RDDP over MPA", "SCTP socket", "RDDP over SCTP")) {
            for (String kind : List.of("bandwidth", "latency")) {
                assertThat(measured).contains(series + " " + kind, series + " v6 " + kind);
            }
        }
        assertThat(run.out()).contains("RDDP over SCTP v6", "RDDP over MPA v6");
        Run remote = InProcess.rddp("compare", "--ipv6", "--peer", "127.0.0.1", "-o", out.toString());
        assertThat(remote.status()).isOne();
        assertThat(remote.err()).contains("--ipv6 runs both ends in this process");
    }

    /** Issue 51: --mptcp adds the TCP socket and RDDP over MPA over Multipath TCP, each beside its TCP series. */
    @Test
    void addsEachTcpSeriesOverMultipathTcpNextToItWhenAsked(@TempDir Path out) throws Exception {
        Run run = InProcess.rddp("compare", "-t", "mpa", "--mptcp", "--sizes", "4096", "--mib-per-point", "1",
                "--latency-iters", "20", "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("rddp compare: TCP socket, TCP socket over MPTCP, RDDP over MPA, RDDP over MPA "
                + "over MPTCP, MPA hop, RFC floor;");
        JsonNode json = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
        assertThat(json.get("conditions").asText()).contains("; MPTCP here: path manager ");
        Set<String> measured = new HashSet<>();
        for (JsonNode point : json.get("points")) {
            assertThat(point.get("value").asDouble()).as(point.toString()).isPositive();
            measured.add(point.get("series").asText() + " " + point.get("kind").asText());
        }
        assertThat(measured).contains("TCP socket over MPTCP bandwidth", "TCP socket over MPTCP latency",
                "RDDP over MPA over MPTCP bandwidth", "RDDP over MPA over MPTCP latency");
    }

    /**
     * Issue 51: a failover scenario runs a transfer per series, the scenario command failing the path in the middle
     * of it (here a stand-in that fails nothing and says when it did), and writes what each transfer did: every
     * message checked, each failure's outcome, a chart with every series, the page.
     */
    @Test
    void aFailoverScenarioRunsATransferPerSeriesAndFailsThePathInTheMiddleOfEach(@TempDir Path out)
            throws Exception {
        Path said = out.resolve("said.txt");
        Path command = out.resolve("fail.sh");
        Files.writeString(command, "#!/bin/sh\necho \"$*\" >> " + said + "\n[ \"$1\" = fail ] || exit 0\n"
                + "echo \"failed $(date +%s.%N)\"\nsleep \"$3\"\necho \"restored $(date +%s.%N)\"\n"
                + "echo 'fail.sh: nothing dropped'\n");
        command.toFile().setExecutable(true);
        Run run = InProcess.rddp("compare", "-t", "mpa,sctp", "--sctp-stack", "usrsctp", "--scenarios",
                "failover blackhole 0.5", "--scenario-command", command.toString(), "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(Files.readAllLines(said)).as("cleared before, failed once a series, cleared after").containsExactly(
                "fail blackhole 0.500", "fail blackhole 0.500", "fail blackhole 0.500", "fail blackhole 0.500",
                "clear");
        assertThat(run.out()).contains("== network: failover: the first path blackholed (link up) for 0.5 s",
                "fail.sh: nothing dropped");
        JsonNode json = new ObjectMapper().readTree(out.resolve("failover.json").toFile());
        JsonNode scenario = json.get("failover").get(0);
        assertThat(scenario.get("conditions").asText()).contains("network: the first path blackholed");
        List<String> series = new ArrayList<>();
        for (JsonNode each : scenario.get("series")) {
            series.add(each.get("series").asText());
            assertThat(each.get("error").isNull()).as("%s", each).isTrue();
            assertThat(each.get("messages").asLong()).as("%s", each).isPositive();
            JsonNode failure = each.get("failures").get(0);
            assertThat(failure.get("resumed").asBoolean()).as("%s", each).isTrue();
            assertThat(failure.get("mbpsBefore").asDouble()).as("%s", each).isPositive();
            assertThat(each.get("goodput").get("mbps").size()).as("%s", each).isPositive();
        }
        assertThat(series).containsExactly("TCP socket", "RDDP over MPA", "SCTP socket", "RDDP over SCTP");
        assertThat(ImageIO.read(out.resolve("failover-blackhole-0.500.png").toFile()).getWidth())
                .isEqualTo(Chart.WIDTH);
        assertThat(Files.readString(out.resolve("failover.html"))).contains("A transfer of 16 KiB messages while");
    }

    /**
     * Issue 51: an idle connection's failover scenario sends a request every 500 ms, each echoed, through the same
     * failure, and tells of each request's round trip instead of a transfer's goodput.
     */
    @Test
    void anIdleFailoverScenarioTimesEachRequestThroughTheFailure(@TempDir Path out) throws Exception {
        Path command = out.resolve("fail.sh");
        Files.writeString(command, "#!/bin/sh\n[ \"$1\" = fail ] || exit 0\n"
                + "echo \"failed $(date +%s.%N)\"\nsleep \"$3\"\necho \"restored $(date +%s.%N)\"\n");
        command.toFile().setExecutable(true);
        Run run = InProcess.rddp("compare", "-t", "mpa", "--scenarios", "failover idle blackhole 1.2",
                "--scenario-command", command.toString(), "-o", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("== network: failover: the first path blackholed (link up) for 1.2 s, an idle "
                + "connection: a 1 KiB request every 500 ms, echoed", "first request sent while down");
        JsonNode scenario = new ObjectMapper().readTree(out.resolve("failover.json").toFile()).get("failover").get(0);
        List<String> series = new ArrayList<>();
        for (JsonNode each : scenario.get("series")) {
            series.add(each.get("series").asText());
            assertThat(each.get("error").isNull()).as("%s", each).isTrue();
            // 2 s before, 1.2 down, 1.2 + 3 after, 1 to fail: 9 s, two requests a second
            assertThat(each.get("requests").asInt()).as("%s", each).isEqualTo(18);
            JsonNode failure = each.get("failures").get(0);
            assertThat(failure.get("sentWhileDown").asInt()).as("nothing was failed: %s", each).isBetween(2, 3);
            assertThat(failure.get("answeredWhileDown").asInt()).as("%s", each).isEqualTo(failure.get(
                    "sentWhileDown").asInt());
            assertThat(failure.get("firstAnsweredWhileDown").asBoolean()).as("%s", each).isTrue();
            assertThat(failure.get("roundTripBeforeMs").asDouble()).as("%s", each).isPositive();
            assertThat(each.get("roundTrips").get("ms").size()).as("%s", each).isEqualTo(18);
        }
        assertThat(series).containsExactly("TCP socket", "RDDP over MPA");
        assertThat(ImageIO.read(out.resolve("failover-idle-blackhole-1.200.png").toFile()).getWidth())
                .isEqualTo(Chart.WIDTH);
        assertThat(Files.readString(out.resolve("failover.html"))).contains("Round trips of 1 KiB requests every 500 "
                + "ms while the first path blackholed");
    }

    @Test
    void anUnknownTransportIsRefused(@TempDir Path out) {
        Run run = InProcess.rddp("compare", "-t", "udp", "-o", out.toString());
        assertThat(run.status()).isOne();
        assertThat(run.err()).contains("a transport is mpa or sctp, not udp");
    }
}
