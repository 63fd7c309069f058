package org.rddp.transport.sctp.io;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.rddp.loop.IdleStrategy;
import org.rddp.loop.Loop;

/**
 * The loops, one per SCTP backend and process, that run the sockets nobody gave a loop of their own (raw sockets
 * of tests and interop checks, and a tool's sockets that wait for their connect). Each
 * has a daemon thread of its own and lives as long as the process.
 */
public final class SharedLoops {
    private static final Map<String, Loop> LOOPS = new ConcurrentHashMap<>();

    private SharedLoops() {
    }

    /** The shared loop called {@code name}, started with an {@link EpollPoller} on first use. */
    public static Loop of(String name) {
        return LOOPS.computeIfAbsent(name, key -> Loop.start(key, new EpollPoller(), IdleStrategy.BLOCKING));
    }
}
