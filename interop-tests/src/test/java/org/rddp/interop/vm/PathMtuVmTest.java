package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 34, RFC 5043 §9 and RFC 5044 §4.5: the path MTU followed. In the VM, host A reaches host B through a router
 * whose link to B takes 1,280 octets, while A's own takes 1,500 ({@code vm/pmtu.sh}): A learns the smaller hop only
 * from the router's ICMP (path MTU discovery). A 64 KiB {@code write-bw --verify} from A to B over kernel SCTP
 * (whose association re-reads the fragmentation point and sizes its DDP segments by it), over usrsctp's SCTP over UDP
 * (the kernel refuses a datagram larger than the path MTU it learned; the association takes that MTU and sizes its
 * segments by it) and over MPA (TCP follows the path MTU): both ends verify every octet. Over MPA no IP fragment
 * passes the router; over SCTP only packets that were in flight when A learned of the hop do (their DATA chunks
 * cannot be cut again, RFC 9260 §6.9), not the rest of the transfer.
 */
@Execution(ExecutionMode.CONCURRENT)
class PathMtuVmTest {
    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void aSmallerHopOnTheWayIsFollowedWithoutIpFragments() throws Exception {
        String size = " -s 65536 -n 200";
        List<String> command = List.of("env", "RDDP=" + String.join(" ", Vm.rddp()), Vm.script("pmtu.sh")
                .toString(), "kernel-sctp:-t sctp --sctp-stack kernel" + size, "usrsctp-udp:-t sctp --sctp-stack "
                + "usrsctp-udp --udp-port 9899 --peer-udp-port 9899" + size, "mpa:-t mpa" + size);
        Vm.Outcome outcome = Vm.run("pmtu", List.of("--load", "sctp", "--smp", "2"), command);
        outcome.output().lines().filter(line -> line.startsWith("PMTU") && !line.contains(" server: ")
                && !line.contains(" client: ")).forEach(System.out::println);
        assertThat(outcome.status()).as(outcome.tail()).isZero();
        assertThat(outcome.output()).as(outcome.tail()).contains("PMTU mpa client=0 server=0 fragments: router=0 b=0");
        for (String sctp : List.of("kernel-sctp", "usrsctp-udp")) {
            Matcher run = Pattern.compile("PMTU " + sctp + " client=0 server=0 fragments: router=(\\d+) b=\\d+")
                    .matcher(outcome.output());
            assertThat(run.find()).as(outcome.tail()).isTrue();
            // what was in flight when A learned of the hop (usrsctp in the VM: 312), not the ~9,000 packets of the
            // transfer, ~18,000 fragments had they all been cut
            assertThat(Integer.parseInt(run.group(1))).as("IP fragments over " + sctp).isLessThan(1_500);
            System.out.printf("PMTU: over %s %s IP fragments passed the router, all before A knew the hop%n", sctp,
                    run.group(1));
            assertThat(outcome.output()).as("over " + sctp + " A learned the smaller hop from the router")
                    .contains("PMTU " + sctp + " A's path MTU to B: mtu 1280");
        }
    }
}
