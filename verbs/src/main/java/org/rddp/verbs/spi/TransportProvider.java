package org.rddp.verbs.spi;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.rddp.loop.Progress;
import org.rddp.verbs.ConnectionManager;

/**
 * A transport that makes connection managers, found by its URI scheme ({@code mpa}, {@code sctp}) through
 * {@link ServiceLoader}: what a transport module provides. Users pick a transport by name through
 * {@link org.rddp.verbs.Transports}, without depending on any.
 */
public interface TransportProvider {
    /** The URI scheme that names this transport. */
    String scheme();

    /** Why this transport cannot run on this machine, or null when it can. */
    String unavailable();

    /** A connection manager whose connections leave from {@code localAddress}, on one loop with a thread of its own. */
    default ConnectionManager open(InetAddress localAddress) throws IOException {
        return open(localAddress, Progress.automatic());
    }

    /**
     * A connection manager whose connections leave from {@code localAddress}, its loops driven as {@code progress}
     * says ({@link Progress#manual()}: by the calling thread, whenever it polls or waits on a completion queue).
     */
    ConnectionManager open(InetAddress localAddress, Progress progress) throws IOException;

    /** The transports installed, in the order the service loader finds them. */
    static List<TransportProvider> installed() {
        List<TransportProvider> providers = new ArrayList<>();
        ServiceLoader.load(TransportProvider.class, TransportProvider.class.getClassLoader())
                .forEach(providers::add);
        return providers;
    }

    /**
     * The installed transport named {@code scheme}.
     *
     * @throws IllegalArgumentException when none is, naming those that are
     */
    static TransportProvider forScheme(String scheme) {
        List<String> names = new ArrayList<>();
        for (TransportProvider provider : installed()) {
            if (provider.scheme().equalsIgnoreCase(scheme)) {
                return provider;
            }
            names.add(provider.scheme());
        }
        throw new IllegalArgumentException("no transport '" + scheme + "' is installed; there are " + names);
    }
}
