package org.rddp.transport.sctp.kernel;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One epoll instance and thread per process for every kernel SCTP socket: edge-triggered, it runs a socket's
 * ready hook whenever the socket may have become readable or writable (the hooks only hand off, like usrsctp's
 * upcalls). A closed descriptor leaves the epoll set by itself; its hook slot is freed by {@link #release}.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // invokeExact declares Throwable
final class Poller {
    private static final int MAX_EVENTS = 64;
    private static Poller instance;

    private final int epoll;
    private final AtomicReferenceArray<Runnable> hooks = new AtomicReferenceArray<>(1 << 16);
    private final MemorySegment state = Native.captureState(Arena.global());

    private Poller(int epoll) {
        this.epoll = epoll;
    }

    /** The process's poller, started on first use. */
    static synchronized Poller get() throws IOException {
        if (instance == null) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment errno = Native.captureState(arena);
                int fd = (int) Native.EPOLL_CREATE1.invokeExact(errno, Native.SOCK_CLOEXEC);
                if (fd < 0) {
                    throw new IOException("epoll_create1 failed: " + Native.describeErrno(errno));
                }
                instance = new Poller(fd);
            } catch (IOException e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException(e);
            }
            Thread.ofPlatform().daemon().name("kernel-sctp-poller").start(instance::run);
        }
        return instance;
    }

    /** Watches {@code fd}; {@code hook} runs on the poller's thread whenever the socket may be ready. */
    synchronized int register(int fd, Runnable hook) throws IOException {
        int id = 1;
        while (id < hooks.length() && hooks.get(id) != null) {
            id++;
        }
        if (id == hooks.length()) {
            throw new IOException("more than " + (hooks.length() - 1) + " kernel SCTP sockets");
        }
        hooks.set(id, hook);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = arena.allocate(Native.EPOLL_EVENT_SIZE, 4);
            event.set(JAVA_INT, 0, Native.EPOLLIN | Native.EPOLLOUT | Native.EPOLLRDHUP | Native.EPOLLET);
            event.set(Native.EPOLL_DATA, 4, id);
            int status = (int) Native.EPOLL_CTL.invokeExact(state, epoll, Native.EPOLL_CTL_ADD, fd, event);
            if (status != 0) {
                hooks.set(id, null);
                throw new IOException("epoll_ctl failed: " + Native.describeErrno(state));
            }
            return id;
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            hooks.set(id, null);
            throw new IOException(e);
        }
    }

    /** Frees a registration once its descriptor is closed. */
    void release(int id) {
        hooks.set(id, null);
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment events = arena.allocate(Native.EPOLL_EVENT_SIZE * MAX_EVENTS, 4);
            MemorySegment errno = Native.captureState(arena);
            while (true) {
                int ready;
                try {
                    ready = (int) Native.EPOLL_WAIT.invokeExact(errno, epoll, events, MAX_EVENTS, -1);
                } catch (Throwable e) {
                    return;
                }
                for (int i = 0; i < ready; i++) {
                    long id = events.get(Native.EPOLL_DATA, i * Native.EPOLL_EVENT_SIZE + 4);
                    Runnable hook = id > 0 && id < hooks.length() ? hooks.get((int) id) : null;
                    if (hook != null) {
                        try {
                            hook.run();
                        } catch (RuntimeException e) {
                            // a hook only hands off; one that fails must not stop the others
                        }
                    }
                }
            }
        }
    }
}
