package org.rddp.verbs;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import org.rddp.loop.Progress;
import org.rddp.verbs.spi.TransportProvider;

/**
 * The transports installed ({@code mpa}: TCP/MPA, RFC 5044; {@code sctp}: the SCTP adaptation, RFC 5043), by the
 * URI scheme that names each: a program picks one by name without depending on its module.
 */
public final class Transports {
    private Transports() {
    }

    /** The schemes of the transports installed, in the order the service loader finds them. */
    public static List<String> schemes() {
        return TransportProvider.installed().stream().map(TransportProvider::scheme).toList();
    }

    /**
     * Why the transport {@code scheme} cannot run on this machine, or null when it can.
     *
     * @throws IllegalArgumentException when none is installed by that name, naming those that are
     */
    public static String unavailable(String scheme) {
        return TransportProvider.forScheme(scheme).unavailable();
    }

    /**
     * A connection manager of the transport {@code scheme} whose connections leave from {@code localAddress}, on one
     * loop with a thread of its own.
     *
     * @throws IllegalArgumentException when no transport of that name is installed, naming those that are
     * @throws IOException              when it cannot run here (saying why) or cannot start
     */
    public static ConnectionManager open(String scheme, InetAddress localAddress) throws IOException {
        return open(scheme, localAddress, Progress.automatic());
    }

    /**
     * A connection manager of the transport {@code scheme} whose connections leave from {@code localAddress}, its
     * loops driven as {@code progress} says ({@link Progress#manual()}: by the calling thread, whenever it polls or
     * waits on a completion queue).
     *
     * @throws IllegalArgumentException when no transport of that name is installed, naming those that are
     * @throws IOException              when it cannot run here (saying why) or cannot start
     */
    public static ConnectionManager open(String scheme, InetAddress localAddress, Progress progress)
            throws IOException {
        TransportProvider provider = TransportProvider.forScheme(scheme);
        String unavailable = provider.unavailable();
        if (unavailable != null) {
            throw new IOException("the " + scheme + " transport cannot run here: " + unavailable);
        }
        return provider.open(localAddress, progress);
    }
}
