package org.rddp.interop.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.rddp.interop.PackagedRddp;

/**
 * Issue 34, RFC 5043 §9: usrsctp follows the path MTU down, on this machine (usrsctp needs no kernel SCTP). The VM's
 * topology ({@code interop-tests/vm/pmtu.sh}) as network namespaces here: host A on a 1,500-octet link, a router, host
 * B behind a 1,280-octet hop that A learns of only from the router's ICMP. A 64 KiB {@code write-bw --verify} from A
 * to B over usrsctp's SCTP over UDP and straight over IP: the kernel refuses the first datagram larger than the MTU it
 * learned; that one and the others already made go fragmented by IP, and the association makes the rest to fit. Both
 * ends verify every octet; of the some 9,000 packets, only those in flight when A learned of the hop are fragmented
 * (before, usrsctp kept the MTU it started with and the kernel refused its every larger packet). Over MPA, TCP follows
 * the path: no fragment. Kernel SCTP's run is the VM's ({@code PathMtuVmTest}).
 */
@Isolated("its namespaces are named as NamespaceFaultsTest's")
class PathMtuHostTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void usrsctpFollowsASmallerHopWithoutFragmentingWhatItMakesAfter() throws Exception {
        String size = " -s 65536 -n 200";
        List<String> command = new ArrayList<>(List.of("env", "RDDP=" + String.join(" ", PackagedRddp.java())
                + " -m org.rddp.cli/org.rddp.cli.Main", PackagedRddp.ROOT.resolve("interop-tests/vm/pmtu.sh")
                .toString()));
        command.addAll(List.of("usrsctp-udp:-t sctp --sctp-stack usrsctp-udp --udp-port 9899 --peer-udp-port 9899"
                + size, "usrsctp-raw:-t sctp --sctp-stack usrsctp-native" + size, "mpa:-t mpa" + size));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        output.lines().filter(line -> line.startsWith("PMTU") && !line.contains(" server: ")
                && !line.contains(" client: ")).forEach(System.out::println);
        assertThat(status).as(output).isZero();
        assertThat(output).as(output).contains("PMTU mpa client=0 server=0 fragments: router=0 b=0");
        for (String sctp : List.of("usrsctp-udp", "usrsctp-raw")) {
            Matcher run = Pattern.compile("PMTU " + sctp + " client=0 server=0 fragments: router=(\\d+) b=\\d+")
                    .matcher(output);
            assertThat(run.find()).as(output).isTrue();
            // what was in flight when A learned of the hop (tens of packets here), not the ~9,000 packets of the
            // transfer, ~18,000 fragments had they all been cut
            assertThat(Integer.parseInt(run.group(1))).as("IP fragments over " + sctp).isLessThan(1_500);
            assertThat(output).as("A learned the smaller hop from the router")
                    .contains("PMTU " + sctp + " A's path MTU to B: mtu 1280");
            System.out.printf("PMTU: over %s %s IP fragments passed the router%n", sctp, run.group(1));
        }
    }
}
