package org.rddp.transport.mpa;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Who may hold a connection in startup on the responder side (RFC 5044 §7.1: a connection is not in Full Operation,
 * and costs a socket and a startup, until its Request is answered): at most {@link MpaOptions#maxStartupsPerSource}
 * from one address; and when every one of the {@link MpaOptions#maxStartups} slots is taken, a connection still
 * waiting for its Request makes room for the new one: the oldest of the address that has the most such silent
 * connections. A flood of silent connections then only displaces itself, from one address or from many: a client
 * sends its Request within a round trip of connecting, long before a flood has gone round every slot, and a client
 * that opens a thousand connections at once (a thousand queue pairs) is not taken for one.
 *
 * <p>The acceptor's loop admits and chooses; each startup's loop reports its Request and its end. The book is shared
 * by the manager's loops, and is kept under this object's monitor: it changes only as connections are set up, never
 * on the data path.
 */
final class StartupAdmission {
    private final MpaOptions options;
    /** Connections in startup from each address: an entry only while there is one. */
    private final Map<InetAddress, Integer> bySource = new HashMap<>();
    /** The connections of each address still waiting for their Request, oldest first. */
    private final Map<InetAddress, ArrayDeque<MpaStartup>> silent = new HashMap<>();

    StartupAdmission(MpaOptions options) {
        this.options = options;
    }

    /** Admits one more accepted connection from {@code source}, counting it; or says why not (nothing counted). */
    synchronized String admit(InetAddress source) {
        int now = bySource.getOrDefault(source, 0);
        if (now >= options.maxStartupsPerSource()) {
            return "too many connections in startup from " + source.getHostAddress() + ": "
                    + options.maxStartupsPerSource() + " (MpaOptions.withStartupsPerSource)";
        }
        bySource.put(source, now + 1);
        return null;
    }

    /** A connection admitted from {@code source} is no longer in startup (handed over, or ended). */
    synchronized void left(InetAddress source) {
        bySource.computeIfPresent(source, (address, count) -> count <= 1 ? null : count - 1);
    }

    /** {@code startup}, from {@code source}, waits for its Request now. Its loop. */
    synchronized void waiting(InetAddress source, MpaStartup startup) {
        silent.computeIfAbsent(source, address -> new ArrayDeque<>()).addLast(startup);
    }

    /** {@code startup} no longer waits for its Request (it came, or the startup ended). Its loop. */
    synchronized void spoke(InetAddress source, MpaStartup startup) {
        ArrayDeque<MpaStartup> waiting = silent.get(source);
        if (waiting != null && waiting.remove(startup) && waiting.isEmpty()) {
            silent.remove(source);
        }
    }

    /**
     * The connection to reset to make room, taken off the book: the oldest still waiting for its Request of the
     * address with the most such; null when none waits. The acceptor's loop.
     */
    synchronized MpaStartup evictable() {
        InetAddress most = null;
        int count = 0;
        for (Map.Entry<InetAddress, ArrayDeque<MpaStartup>> entry : silent.entrySet()) {
            if (entry.getValue().size() > count) {
                count = entry.getValue().size();
                most = entry.getKey();
            }
        }
        if (most == null) {
            return null;
        }
        ArrayDeque<MpaStartup> waiting = silent.get(most);
        MpaStartup oldest = waiting.pollFirst();
        if (waiting.isEmpty()) {
            silent.remove(most);
        }
        return oldest;
    }

    /** Connections in startup from {@code source} now (tests). */
    synchronized int from(InetAddress source) {
        return bySource.getOrDefault(source, 0);
    }
}
