package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.testing.TransportFixture;

/** The SCTP adaptation over usrsctp (UDP encapsulation, one process) as a scenario-suite transport. */
final class UsrsctpTransport implements TransportFixture {
    private final SctpConnectionManager initiator;
    private final SctpConnectionManager responder;

    private final UsrsctpStack stack;

    /** Two managers on this process's usrsctp stack, over UDP. */
    UsrsctpTransport() throws IOException {
        this(UsrsctpStack.udp());
    }

    /** Two managers on {@code stack}. */
    UsrsctpTransport(UsrsctpStack stack) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        this.stack = stack;
        initiator = new SctpConnectionManager(stack, loopback);
        responder = new SctpConnectionManager(stack, loopback);
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
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), TestPorts.next());
    }

    @Override
    public int mulpdu() {
        return stack.maxMessage() - 2;
    }

    @Override
    public void close() {
        initiator.close();
        responder.close();
    }
}
