package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 34, RFC 5043 §13 (an implementation MUST support IPsec for SCTP as for TCP; RFC 5042, RFC 7146): RDDP over
 * kernel SCTP, over usrsctp's SCTP over UDP and over MPA between two hosts in the VM, each {@code write-bw --verify}
 * in the clear and then with the hosts' traffic protected by ESP in transport mode ({@code vm/ipsec.sh}, {@code ip
 * xfrm} with AES-GCM). While protected, each host drops any packet to or from the other that is neither ESP nor came
 * out of ESP, and counts it: the count must be 0 (the wire carried only ESP) and both ends verify every octet. What
 * IPsec costs is printed: the protected run's average bandwidth as a ratio to the clear one's (emulated CPU, so the
 * ratio, not the figures, is what carries over); and, with {@code -Drddp.vm.full=true}, {@code rddp compare} between
 * the two hosts (RDDP over MPA and over kernel SCTP, each next to its socket) in the clear and over ESP, every point as
 * a ratio of the two.
 */
@Execution(ExecutionMode.CONCURRENT)
class IpsecVmTest {
    private static final Pattern AVERAGE = Pattern.compile(
            "IPSEC (\\S+) (clear|esp) client:\\s+65536\\s+\\d+\\s+([\\d.]+)\\s+([\\d.]+)");

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void everyTransportRunsOverEspInTransportModeAndTheWireCarriesOnlyEsp() throws Exception {
        List<String> rddp = Vm.rddp();
        String size = " -s 65536 -n 300";
        boolean full = Boolean.getBoolean("rddp.vm.full");
        List<String> command = List.of("env", "RDDP=" + String.join(" ", rddp), "COMPARE=" + (full ? "-t mpa,sctp "
                + "--sctp-stack kernel --sizes 65536 --mib-per-point 1 --latency-iters 50" : ""),
                Vm.script("ipsec.sh").toString(),
                "kernel-sctp:-t sctp --sctp-stack kernel" + size,
                "usrsctp-udp:-t sctp --sctp-stack usrsctp-udp --udp-port 9899 --peer-udp-port 9899" + size,
                "mpa:-t mpa" + size);
        Vm.Outcome outcome = Vm.run("ipsec", List.of("--load", "sctp,esp4,xfrm_user", "--smp", "2"), command);
        outcome.output().lines().filter(line -> line.startsWith("IPSEC") && !line.contains(" server: ")
                && !line.contains(" client: ")).forEach(System.out::println);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        for (String transport : List.of("kernel-sctp", "usrsctp-udp", "mpa")) {
            for (String mode : List.of("clear", "esp")) {
                assertThat(outcome.output()).as(outcome.tail())
                        .contains("IPSEC " + transport + " " + mode + " client=0 server=0");
            }
        }
        assertThat(outcome.output()).as("nothing went in the clear while protected")
                .contains("IPSEC cleartext dropped: a=0 b=0");
        if (!full) {
            return; // compare over ESP takes the emulated VM minutes: -Drddp.vm.full=true runs it
        }
        Map<String, Double> clearPoints = comparePoints(outcome.output(), "clear");
        Map<String, Double> espPoints = comparePoints(outcome.output(), "esp");
        assertThat(espPoints.keySet()).as("compare measured the same points over ESP")
                .isEqualTo(clearPoints.keySet()).hasSize(9); // the RFC floor: latency only
        clearPoints.forEach((point, clear) -> System.out.printf(Locale.ROOT,
                "IPSEC compare: %s %.1f clear, %.1f over ESP: %.2fx%n", point, clear, espPoints.get(point),
                espPoints.get(point) / clear));
        Map<String, Double> averages = new HashMap<>();
        Matcher row = AVERAGE.matcher(outcome.output());
        while (row.find()) {
            averages.put(row.group(1) + " " + row.group(2), Double.parseDouble(row.group(4)));
        }
        for (String transport : List.of("kernel-sctp", "usrsctp-udp", "mpa")) {
            Double clear = averages.get(transport + " clear");
            Double esp = averages.get(transport + " esp");
            assertThat(clear).as(transport + " measured in the clear").isNotNull();
            assertThat(esp).as(transport + " measured over ESP").isNotNull();
            System.out.printf(Locale.ROOT, "IPSEC cost: %s 64 KiB write-bw %.1f MB/s clear, %.1f MB/s over ESP: "
                    + "%.2fx%n", transport, clear, esp, esp / clear);
        }
    }

    /** {@code rddp compare}'s points of one phase ({@code COMPARE label:} lines): series, kind and size to value. */
    private static Map<String, Double> comparePoints(String output, String label) throws Exception {
        String prefix = "COMPARE " + label + ": ";
        String json = output.lines().filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length())).collect(java.util.stream.Collectors.joining("\n"));
        assertThat(json).as("compare's JSON, " + label).isNotBlank();
        Map<String, Double> points = new java.util.TreeMap<>();
        for (com.fasterxml.jackson.databind.JsonNode point : new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json).get("points")) {
            double value = point.get("value").asDouble();
            assertThat(value).as("%s", point).isPositive();
            points.put(point.get("series").asText() + " " + point.get("kind").asText() + " "
                    + point.get("bytes").asInt(), value);
        }
        return points;
    }
}
