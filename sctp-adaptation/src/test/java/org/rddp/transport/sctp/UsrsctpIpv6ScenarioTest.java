package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Issue 34: the scenario suite over usrsctp on IPv6's loopback ({@code ::1}), SCTP over UDP over IPv6 (RFC 6951);
 * and SCTP straight over IPv6, which this backend's raw socket does not carry, refused saying so.
 */
class UsrsctpIpv6ScenarioTest extends ScenarioSuite {
    static final InetAddress IPV6_LOOPBACK = TransportFixture.ipv6Loopback();

    @Override
    protected TransportFixture createTransport() throws Exception {
        return SctpTransport.at(UsrsctpStack.udp(), IPV6_LOOPBACK);
    }

    @Test
    void theAssociationRunsBetweenIpv6AddressesAndItsMessagesFitIpv6Packets() throws Exception {
        assertThat(IPV6_LOOPBACK).isInstanceOf(Inet6Address.class);
        int overIpv6 = SctpTransport.probeMaxMessage(UsrsctpStack.udp(), IPV6_LOOPBACK);
        int overIpv4 = SctpTransport.probeMaxMessage(UsrsctpStack.udp(), InetAddress.getByName("127.0.0.1"));
        assertThat(overIpv6).as("IPv6's header is 20 octets longer than IPv4's").isLessThan(overIpv4);
    }

    @Test
    void sctpStraightOverIpv6IsRefusedSayingWhy() {
        assertThatThrownBy(() -> UsrsctpStack.nativeIp().listen(new InetSocketAddress(IPV6_LOOPBACK, 0), 1,
                DdpSctp.ADAPTATION_INDICATION)).hasMessageContaining("not supported")
                .hasMessageContaining("SCTP over UDP");
    }
}
