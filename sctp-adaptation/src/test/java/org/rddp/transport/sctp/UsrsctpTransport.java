package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.TransportFixture;

/** The SCTP adaptation over usrsctp (UDP encapsulation, one process) as a scenario-suite transport. */
final class UsrsctpTransport implements TransportFixture {
    private static final AtomicInteger PORTS = new AtomicInteger(20000 + ThreadLocalRandom.current().nextInt(20000));

    private final SctpConnectionManager initiator;
    private final SctpConnectionManager responder;

    /** Two managers on this process's usrsctp stack. */
    UsrsctpTransport() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        initiator = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
        responder = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
    }

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
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), PORTS.incrementAndGet());
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
}
