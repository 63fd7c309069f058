package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.List;

/**
 * Where the suites that run inside the VM find each other (interop-tests' {@code vm/two-hosts.sh} sets it up):
 * host A, with the kernel's SCTP, and host B, with usrsctp over raw IP, as two network namespaces joined by a
 * veth pair. B's kernel has SCTP too, so its answers to usrsctp's packets are dropped there by a firewall rule
 * (kernel sockets own no process): two SCTP stacks on one host would each abort the other's associations.
 */
final class GuestHosts {
    /** Host A: kernel SCTP. */
    static final String KERNEL_NAMESPACE = "rddp-a";
    static final String KERNEL_ADDRESS = "10.99.0.1";
    /** Host B: usrsctp over raw IP. */
    static final String USRSCTP_NAMESPACE = "rddp-b";
    static final String USRSCTP_ADDRESS = "10.99.0.2";

    private GuestHosts() {
    }

    /** The command prefix that runs a program on the host in {@code namespace}. */
    static List<String> in(String namespace) {
        return List.of("ip", "netns", "exec", namespace);
    }

    static InetAddress address(String text) throws IOException {
        return InetAddress.getByName(text);
    }

    /** The largest DDP segment on the link holding {@code local}: its MTU less IP, SCTP, DATA and DDP-SCTP headers. */
    static int mulpdu(InetAddress local) throws IOException {
        NetworkInterface link = NetworkInterface.getByInetAddress(local);
        if (link == null) {
            throw new IOException(local + " is on no interface of this host: did vm/two-hosts.sh run?");
        }
        return link.getMTU() - 20 - 12 - 16 - 2;
    }
}
