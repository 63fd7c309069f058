package org.rddp.transport.mpa;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.rddp.rdmap.RtrType;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite over TCP/MPA for every combination of Markers on/off and CRC on/off with each
 * setup model: revision 1, revision 2 client-server, and revision 2 peer-to-peer with each RTR type; and two of
 * them with FPDUs cut for a 1500-octet path rather than the loopback's 64 KiB.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("configurations")
class MpaConfigurationsScenarioTest extends ScenarioSuite {
    @Parameter
    Configuration configuration;

    /** One way to run MPA, the same on both sides. */
    record Configuration(String name, MpaOptions options) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Configuration> configurations() {
        List<Configuration> all = new ArrayList<>();
        for (boolean markers : new boolean[] {false, true}) {
            for (boolean crc : new boolean[] {false, true}) {
                MpaOptions base = MpaOptions.defaults().withMarkers(markers).withCrc(crc);
                String flags = (markers ? "markers" : "no markers") + ", " + (crc ? "CRC" : "no CRC");
                all.add(new Configuration("rev 1, " + flags, base.withRevision(1)));
                all.add(new Configuration("rev 2 client-server, " + flags, base));
                for (RtrType rtr : new RtrType[] {RtrType.SEND, RtrType.WRITE, RtrType.READ}) {
                    all.add(new Configuration("rev 2 peer-to-peer " + rtr + " RTR, " + flags,
                            base.withPeerToPeer(rtr)));
                }
            }
        }
        // an Ethernet path: messages cut into FPDUs of about 1.4 KiB, which the stream holds and writes together
        all.add(new Configuration("rev 2 client-server, no markers, CRC, MTU 1500",
                MpaOptions.defaults().withMtu(1500)));
        all.add(new Configuration("rev 2 peer-to-peer READ RTR, markers, CRC, MTU 1500",
                MpaOptions.defaults().withMarkers(true).withPeerToPeer(RtrType.READ).withMtu(1500)));
        return all;
    }

    @Override
    protected TransportFixture createTransport() {
        return new MpaTransport(configuration.options());
    }
}
