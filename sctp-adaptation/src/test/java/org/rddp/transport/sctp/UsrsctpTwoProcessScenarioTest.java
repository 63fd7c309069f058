package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.AfterAll;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.ScenarioSuite;
import org.rddp.verbs.testing.TransportFixture;

/**
 * The engine's scenario suite, unchanged, with its two ends on two usrsctp stacks in two processes: the
 * responder's SCTP socket lives in another process ({@link SctpProxyServer}), SCTP runs over UDP between the two
 * processes' stacks, and the responder's DDP engine stays in this one, where the suite can reach it.
 *
 * <p>Not in the default run yet: 83 to 85 of the 85 cases pass. The 16 MiB RDMA Read (and at times the 40 Reads
 * within ORD 2) can stall: the other process's association goes down mid-transfer. The cause is libusrsctp2
 * 0.9.5's UDP output path, which silently drops any packet whose mbuf chain exceeds 32 entries; a
 * retransmission bundled the same way is dropped again until the association gives up. A smaller path MTU makes
 * it rarer (8 KiB: 85 of 85 in some runs) but not impossible. The remedy is to drive usrsctp in AF_CONN mode
 * and do the UDP I/O in Java, where the whole packet arrives in one buffer. Run it with {@code -Ptwo-process}.
 */
class UsrsctpTwoProcessScenarioTest extends ScenarioSuite {
    private static RemoteSctpStack remote;

    @Override
    protected TransportFixture createTransport() throws Exception {
        synchronized (UsrsctpTwoProcessScenarioTest.class) {
            if (remote == null) {
                remote = RemoteSctpStack.start(UsrsctpStack.udp().maxMessage());
            }
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        SctpConnectionManager initiator = new SctpConnectionManager(UsrsctpStack.udp(remote.udpPort()), loopback);
        SctpConnectionManager responder = new SctpConnectionManager(remote, loopback);
        return new TransportFixture() {
            @Override
            public SctpConnectionManager initiator() {
                return initiator;
            }

            @Override
            public SctpConnectionManager responder() {
                return responder;
            }

            @Override
            public SocketAddress nextAddress() {
                return new InetSocketAddress(loopback, TestPorts.next());
            }

            @Override
            public int mulpdu() {
                try {
                    return UsrsctpStack.udp().maxMessage() - 2;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void close() {
                initiator.close();
                responder.close();
            }
        };
    }

    @AfterAll
    static void stopTheOtherProcess() {
        if (remote != null) {
            remote.close();
            remote = null;
        }
    }
}
