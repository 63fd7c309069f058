package org.rddp.transport.sctp;

import java.io.IOException;
import java.net.InetAddress;
import org.rddp.loop.Progress;
import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.spi.TransportProvider;

/**
 * SCTP as the transport named {@code sctp}, on the machine's preferred backend ({@link SctpStacks#preferred}): the
 * kernel's SCTP where it has one, else usrsctp over UDP.
 */
public final class SctpTransportProvider implements TransportProvider {
    /** The URI scheme. */
    public static final String SCHEME = "sctp";

    /** The provider, as {@link java.util.ServiceLoader} makes it. */
    public SctpTransportProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public String unavailable() {
        String kernel = KernelSctpStack.unavailable();
        String usrsctp = kernel == null ? null : UsrsctpStack.unavailable();
        return kernel == null || usrsctp == null ? null : kernel + "; " + usrsctp;
    }

    @Override
    public ConnectionManager open(InetAddress localAddress, Progress progress) throws IOException {
        return new SctpConnectionManager(SctpStacks.preferred(), localAddress, ChunkTap.NONE, progress);
    }
}
