package org.rddp.transport.mpa;

import java.net.InetAddress;
import org.rddp.loop.Progress;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.spi.TransportProvider;

/** TCP/MPA as the transport named {@code mpa}, with the default options: it runs wherever TCP does. */
public final class MpaTransportProvider implements TransportProvider {
    /** The URI scheme. */
    public static final String SCHEME = "mpa";

    /** The provider, as {@link java.util.ServiceLoader} makes it. */
    public MpaTransportProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public String unavailable() {
        return null;
    }

    @Override
    public ConnectionManager open(InetAddress localAddress, Progress progress) {
        return new MpaConnectionManager(MpaOptions.defaults(), localAddress, progress);
    }
}
