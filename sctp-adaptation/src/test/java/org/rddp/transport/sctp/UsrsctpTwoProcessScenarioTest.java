package org.rddp.transport.sctp;

import java.net.InetAddress;
import org.junit.jupiter.api.AfterAll;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite, unchanged, with its two ends on two usrsctp stacks in two processes: the
 * responder's SCTP socket lives in another process ({@link SctpProxyServer}), SCTP runs over UDP between the two
 * processes' stacks, and the responder's DDP engine stays in this one, where the suite can reach it.
 *
 * <p>This suite found the reason usrsctp runs in AF_CONN mode with its packets carried in Java: libusrsctp2
 * 0.9.5's own UDP output silently drops any packet whose mbuf chain exceeds 32 entries, and the 16 MiB RDMA Read
 * through the proxy stalled on it (see {@code Links}).
 */
class UsrsctpTwoProcessScenarioTest extends ScenarioSuite {
    private static RemoteSctpStack remote;

    @Override
    protected TransportFixture createTransport() throws Exception {
        synchronized (UsrsctpTwoProcessScenarioTest.class) {
            if (remote == null) {
                remote = RemoteSctpStack.start();
            }
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new SctpTransport(UsrsctpStack.udp(remote.udpPort()), loopback, remote, loopback,
                UsrsctpStack.udp().maxMessage() - 2);
    }

    @AfterAll
    static void stopTheOtherProcess() {
        if (remote != null) {
            remote.close();
            remote = null;
        }
    }
}
