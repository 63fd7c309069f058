package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Progress;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * Issue 34: the engine's scenario suite over TCP/MPA on IPv6's loopback ({@code ::1}), and a MULPDU that leaves room
 * for IPv6's 40-octet header.
 */
class MpaIpv6ScenarioTest extends ScenarioSuite {
    private static final InetAddress IPV6_LOOPBACK = TransportFixture.ipv6Loopback();

    @Override
    protected TransportFixture createTransport() {
        return new MpaTransport(MpaOptions.defaults(), MpaOptions.defaults(), Progress.automatic(), IPV6_LOOPBACK);
    }

    @Test
    void theMulpduOverIpv6LeavesRoomForItsLongerHeader() throws Exception {
        InetAddress v4 = InetAddress.getByName("127.0.0.1");
        assertThat(MpaConnectionManager.mulpdu(IPV6_LOOPBACK, false, 1500))
                .isEqualTo(MpaConnectionManager.mulpdu(v4, false, 1500) - 20);
        assertThat(MpaConnectionManager.mulpdu(IPV6_LOOPBACK, false, 1280)).as("IPv6's smallest MTU, RFC 8200")
                .isEqualTo(1280 - 40 - 20 - 12 - 6);
    }
}
