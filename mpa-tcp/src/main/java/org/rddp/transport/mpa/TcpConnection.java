package org.rddp.transport.mpa;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.List;
import org.rddp.llp.LlpPath;

/**
 * The TCP connection under an {@link MpaStream}: its channel, what it runs (TCP, or Multipath TCP over the subflows
 * the kernel's path manager made: {@link Mptcp}), this end's address as the stream names itself by, and its close.
 * Made when the stream enters Full Operation; everything after runs on the stream's loop.
 */
final class TcpConnection {
    final SocketChannel channel;
    private final boolean mptcpAsked;
    private final Mptcp.Protocol protocol;
    /** The socket's descriptor, found once when MPTCP was asked for (its subflows are read through it); else -1. */
    private final int descriptor;
    /** " from ADDRESS:PORT", this end (what ss, a capture or a firewall rule names it by), or "". */
    private final String from;

    /**
     * The connection on {@code channel}, connected; {@code mptcpAsked} if this end opened it (or listened) as
     * Multipath TCP.
     */
    TcpConnection(SocketChannel channel, boolean mptcpAsked) throws IOException {
        this.channel = channel;
        this.mptcpAsked = mptcpAsked;
        this.descriptor = mptcpAsked ? Mptcp.descriptor(channel) : -1;
        this.protocol = mptcpAsked ? Mptcp.protocol(descriptor) : Mptcp.Protocol.TCP;
        this.from = local(channel);
    }

    /** What it runs. */
    Mptcp.Protocol protocol() {
        return protocol;
    }

    /**
     * What it runs, to follow the stream's name: nothing for TCP where TCP was asked for, ", MPTCP", or why it runs TCP
     * where MPTCP was asked for.
     */
    String describe() {
        if (!mptcpAsked) {
            return "";
        }
        return switch (protocol) {
            case MPTCP -> ", MPTCP";
            case TCP -> ", TCP: the client did not ask for MPTCP";
            case TCP_FALLBACK -> ", TCP: the peer answered MPTCP with plain TCP";
        };
    }

    /** " from ADDRESS:PORT", or "". */
    String from() {
        return from;
    }

    /**
     * Its paths now: a Multipath TCP connection's subflows (the kernel's scheduler sends on every established one, so
     * one is primary only when it is the only one), else its one path to the peer.
     */
    List<LlpPath> paths() {
        try {
            if (protocol == Mptcp.Protocol.MPTCP) {
                List<Mptcp.Subflow> subflows = Mptcp.subflows(descriptor);
                boolean alone = subflows.stream().filter(Mptcp.Subflow::established).count() == 1;
                return subflows.stream().map(subflow -> new LlpPath(subflow.remote(),
                        subflow.established() ? LlpPath.State.ACTIVE : LlpPath.State.INACTIVE,
                        alone && subflow.established(), subflow.rto(), subflow.local())).toList();
            }
            return channel.getRemoteAddress() instanceof InetSocketAddress peer
                    ? List.of(new LlpPath(peer, LlpPath.State.UNKNOWN, true, null,
                            (InetSocketAddress) channel.getLocalAddress()))
                    : List.of();
        } catch (IOException e) {
            return List.of(); // closed: it has none
        }
    }

    /** Closes it, with a reset if {@code reset}. */
    void close(boolean reset) {
        try {
            if (reset && channel.isOpen()) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static String local(SocketChannel channel) {
        try {
            return channel.getLocalAddress() instanceof InetSocketAddress local ? " from "
                    + (local.getAddress() instanceof Inet6Address ? "[" + local.getAddress().getHostAddress()
                            + "]" : local.getAddress().getHostAddress()) + ":" + local.getPort() : "";
        } catch (IOException e) {
            return "";
        }
    }
}
