package org.rddp.exs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.testing.TransportFixture;

/** The real transports on loopback, as fixtures for the EXS suite: two managers of one kind. */
final class Transports implements TransportFixture {
    /** Listener ports of this JVM, below the ephemeral range, one counter so that no two tests share one. */
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + ThreadLocalRandom.current().nextInt(5000));

    private final ConnectionManager initiator;
    private final ConnectionManager responder;

    private Transports(ConnectionManager initiator, ConnectionManager responder) {
        this.initiator = initiator;
        this.responder = responder;
    }

    /** TCP/MPA with the default options. */
    static Transports mpa() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new Transports(new MpaConnectionManager(MpaOptions.defaults(), loopback),
                new MpaConnectionManager(MpaOptions.defaults(), loopback));
    }

    /** SCTP on this process's usrsctp stack over UDP. */
    static Transports usrsctp() throws IOException {
        UsrsctpStack stack = UsrsctpStack.udp();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new Transports(new SctpConnectionManager(stack, loopback), new SctpConnectionManager(stack, loopback));
    }

    @Override
    public ConnectionManager initiator() {
        return initiator;
    }

    @Override
    public ConnectionManager responder() {
        return responder;
    }

    @Override
    public SocketAddress nextAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), PORTS.incrementAndGet());
    }

    @Override
    public int mulpdu() {
        throw new UnsupportedOperationException("EXS does not size its messages by the MULPDU");
    }

    @Override
    public void close() {
        try {
            initiator.close();
            responder.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
