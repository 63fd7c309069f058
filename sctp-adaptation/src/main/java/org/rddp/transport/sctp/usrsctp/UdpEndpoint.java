package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;

/**
 * SCTP over UDP (RFC 6951): a UDP socket on the stack's port, bound to one local address (or the wildcard). All
 * of a process's UDP endpoints share the port with SO_REUSEADDR, so the kernel hands a datagram to the most
 * specific one: a socket bound to an address hears exactly what was sent to that address. Datagrams leave with
 * the Don't Fragment bit where the JDK can set it: the path MTU is chosen so that nothing needs fragmenting
 * (RFC 5043 §9).
 */
final class UdpEndpoint extends Links.Endpoint {
    private static final int LARGEST_DATAGRAM = 65535;

    private final DatagramChannel channel;
    private final InetAddress destination;
    private volatile boolean open = true;

    private UdpEndpoint(InetAddress local, DatagramChannel channel) {
        super(local, true);
        this.channel = channel;
        this.destination = local.isAnyLocalAddress() ? null : local;
    }

    /** Binds {@code local}:{@code port} and starts receiving. */
    static UdpEndpoint open(InetAddress local, int port, int socketBuffer) throws IOException {
        DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, socketBuffer);
            dontFragment(channel);
            channel.bind(new InetSocketAddress(local, port));
        } catch (IOException e) {
            channel.close();
            throw new IOException("cannot bind UDP " + local.getHostAddress() + ":" + port + " for SCTP over UDP "
                    + "(RFC 6951): " + e.getMessage(), e);
        }
        UdpEndpoint endpoint = new UdpEndpoint(local, channel);
        Thread.ofPlatform().daemon().name("usrsctp-udp-" + local.getHostAddress()).start(endpoint::receive);
        return endpoint;
    }

    @SuppressWarnings("unchecked")
    private static void dontFragment(DatagramChannel channel) throws IOException {
        for (SocketOption<?> option : channel.supportedOptions()) {
            if (option.name().equals("IP_DONTFRAGMENT") && option.type() == Boolean.class) {
                channel.setOption((SocketOption<Boolean>) option, true);
            }
        }
    }

    private void receive() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(LARGEST_DATAGRAM);
        MemorySegment segment = MemorySegment.ofBuffer(buffer);
        while (open) {
            buffer.clear();
            InetSocketAddress from;
            try {
                from = (InetSocketAddress) channel.receive(buffer);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                continue; // an ICMP error reported on the socket: UDP carries on
            }
            try {
                Links.input(Links.udpLink(from, this), segment, buffer.position(), destination);
            } catch (IOException e) {
                continue; // too many peers: this one's packets are dropped
            }
        }
    }

    @Override
    void send(MemorySegment packet, Links.Link link) throws IOException {
        channel.send(packet.asByteBuffer(), link.remote);
    }

    @Override
    public void close() {
        open = false;
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing left to do with it
        }
    }
}
