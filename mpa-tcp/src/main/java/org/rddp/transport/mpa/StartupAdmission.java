package org.rddp.transport.mpa;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Who may hold a connection in startup on the responder side (RFC 5044 §7.1: a connection is not in Full Operation,
 * and costs a socket and a startup, until its Request is answered): at most {@link MpaOptions#maxStartupsPerSource}
 * from one address, and when every one of the {@link MpaOptions#maxStartups} slots is taken, the oldest connection
 * still waiting for its Request makes room for the new one. A flood of silent connections then only displaces itself:
 * a client sends its Request within a round trip of connecting, long before a flood has gone round every slot. The
 * acceptor's loop admits; each startup's loop reports its Request and its end; counts are shared.
 */
final class StartupAdmission {
    private final MpaOptions options;
    /** Connections in startup from each address: an entry only while there is one (at most the startups held). */
    private final ConcurrentHashMap<InetAddress, Integer> bySource = new ConcurrentHashMap<>();
    /** Responder startups waiting for their Request, oldest first. */
    private final ConcurrentLinkedDeque<MpaStartup> waiting = new ConcurrentLinkedDeque<>();

    StartupAdmission(MpaOptions options) {
        this.options = options;
    }

    /**
     * Admits one more accepted connection from {@code source}, counting it; or says why not (nothing counted).
     * Acceptor's loop.
     */
    String admit(InetAddress source) {
        boolean[] refused = new boolean[1];
        bySource.compute(source, (address, count) -> {
            int now = count == null ? 0 : count;
            if (now >= options.maxStartupsPerSource()) {
                refused[0] = true;
                return count;
            }
            return now + 1;
        });
        return refused[0] ? "too many connections in startup from " + source.getHostAddress() + ": "
                + options.maxStartupsPerSource() + " (MpaOptions.withStartupsPerSource)" : null;
    }

    /** A connection admitted from {@code source} is no longer in startup (its Request was answered, or it ended). */
    void left(InetAddress source) {
        bySource.computeIfPresent(source, (address, count) -> count <= 1 ? null : count - 1);
    }

    /** {@code startup} waits for its Request now. Its loop. */
    void waiting(MpaStartup startup) {
        waiting.addLast(startup);
    }

    /** {@code startup} no longer waits for its Request (it came, or the startup ended). Its loop. */
    void done(MpaStartup startup) {
        waiting.remove(startup);
    }

    /** The oldest startup still waiting for its Request, taken off the list, or null. Any loop. */
    MpaStartup oldestWaiting() {
        return waiting.pollFirst();
    }

    /** Connections in startup from {@code source} now (tests). */
    int from(InetAddress source) {
        return bySource.getOrDefault(source, 0);
    }
}
