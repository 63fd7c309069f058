package org.rddp.transport.sctp.io;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.posix.Posix;

/**
 * The I/O of an SCTP loop: one epoll instance over the descriptors of that loop (usrsctp's UDP or raw IP socket,
 * kernel SCTP sockets), and an eventfd that wakes it. A duty cycle asks epoll without waiting and runs each ready
 * descriptor's handler; an idle loop blocks in {@code epoll_wait} until a descriptor is ready or a command wakes it.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
public final class EpollPoller implements Poller {
    /** What a registered descriptor runs when it is ready; on the loop thread. */
    public interface Handler {
        /** The descriptor is ready: {@code events} are epoll's bits. */
        void ready(int events);
    }

    /** A descriptor the loop reads itself every duty cycle ({@link #registerDirect}); on the loop thread. */
    public interface DirectRead {
        /**
         * Reads without blocking, if anything is there.
         *
         * @return the work done: 0 when nothing was read
         */
        int read();
    }

    /** A direct reader and its registration. */
    private record Direct(int id, DirectRead read) {
    }

    private static final int MAX_EVENTS = 64;
    private static final int WAKE_ID = 0;

    /** Freed with the poller by the collector: a wake-up from another thread may still touch it after close. */
    private final Arena arena = Arena.ofAuto();
    private final int epoll;
    private final int eventfd;
    private final MemorySegment events = arena.allocate(Posix.EPOLL_EVENT_SIZE * MAX_EVENTS, 4);
    private final MemorySegment state = Posix.captureState(arena);
    private final MemorySegment counter = arena.allocate(JAVA_LONG);
    private final MemorySegment one = arena.allocate(JAVA_LONG);
    /** errno of wake-ups, which any thread makes and nobody reads. */
    private final MemorySegment wakeState = Posix.captureState(arena);
    private final AtomicReferenceArray<Handler> handlers = new AtomicReferenceArray<>(1 << 16);
    private Loop loop;
    private final List<Runnable> onClose = new ArrayList<>();
    /** The descriptors read directly every cycle; copied on write. */
    private volatile Direct[] direct = {};
    /** Registrations only epoll watches; while there are none, a cycle with direct readers does not ask it. */
    private volatile int watched;
    /** Events an {@link #await} saw, for the next {@link #poll} to run (edge-triggered ones are not reported again). */
    private int awaited;
    private volatile boolean signalled;
    private volatile boolean closed;

    /** Opens the epoll instance and its eventfd. */
    public EpollPoller() {
        one.set(JAVA_LONG, 0, 1L);
        try {
            epoll = (int) Posix.EPOLL_CREATE1.invokeExact(state, Posix.SOCK_CLOEXEC);
            if (epoll < 0) {
                throw new IOException("epoll_create1 failed: " + Posix.describeErrno(state));
            }
            eventfd = (int) Posix.EVENTFD.invokeExact(state, 0, Posix.EFD_NONBLOCK | Posix.EFD_CLOEXEC);
            if (eventfd < 0) {
                Posix.closeQuietly(epoll);
                throw new IOException("eventfd failed: " + Posix.describeErrno(state));
            }
            control(Posix.EPOLL_CTL_ADD, eventfd, Posix.EPOLLIN, WAKE_ID);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open an epoll instance for an SCTP loop", e);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Watches {@code fd} for {@code interest} (epoll bits, {@link Posix#EPOLLET} for edge-triggered); returns the
     * registration, for {@link #deregister}. Any thread.
     */
    public synchronized int register(int fd, int interest, Handler handler) throws IOException {
        int id = add(fd, interest, handler);
        watched++;
        return id;
    }

    /**
     * Watches {@code fd} as {@link #register} does, for an idle loop's wait, and has every duty cycle {@code read}
     * it directly: a busily polled loop whose descriptors are all read so spends no {@code epoll_wait} per cycle,
     * and a packet is read by the first look after it came (a non-blocking read costs one system call; asking
     * epoll, then reading, two). For a loop's own UDP or raw IP socket. Any thread.
     */
    public synchronized int registerDirect(int fd, int interest, Handler handler, DirectRead read) throws IOException {
        int id = add(fd, interest, handler);
        Direct[] now = Arrays.copyOf(direct, direct.length + 1);
        now[now.length - 1] = new Direct(id, read);
        direct = now;
        return id;
    }

    private int add(int fd, int interest, Handler handler) throws IOException {
        int id = 1;
        while (id < handlers.length() && handlers.get(id) != null) {
            id++;
        }
        if (id == handlers.length()) {
            throw new IOException("more than " + (handlers.length() - 1) + " descriptors on one SCTP loop");
        }
        handlers.set(id, handler);
        try {
            control(Posix.EPOLL_CTL_ADD, fd, interest, id);
        } catch (IOException e) {
            handlers.set(id, null);
            throw e;
        }
        return id;
    }

    /**
     * Stops watching: the handler is not run again. {@code fd} is taken out of the epoll set if still open (a
     * closed descriptor leaves it by itself); pass -1 when it is closed already. Any thread.
     */
    public synchronized void deregister(int id, int fd) {
        if (handlers.get(id) == null) {
            return; // deregistered already
        }
        handlers.set(id, null);
        Direct[] now = Arrays.stream(direct).filter(entry -> entry.id != id).toArray(Direct[]::new);
        if (now.length == direct.length) {
            watched--;
        } else {
            direct = now;
        }
        if (fd >= 0 && !closed) {
            try (Arena local = Arena.ofConfined()) {
                int ignored = (int) Posix.EPOLL_CTL.invokeExact(Posix.captureState(local), epoll, Posix.EPOLL_CTL_DEL,
                        fd, local.allocate(Posix.EPOLL_EVENT_SIZE, 4));
            } catch (Throwable e) {
                // not registered any more: nothing to undo
            }
        }
    }

    /** Whether it is still open. */
    public boolean open() {
        return !closed;
    }

    /** Runs {@code action} when the poller closes, on the loop thread (per-loop sockets close with their loop). */
    public synchronized void onClose(Runnable action) {
        onClose.add(action);
    }

    private void control(int operation, int fd, int interest, int id) throws IOException {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment event = local.allocate(Posix.EPOLL_EVENT_SIZE, 4);
            event.set(JAVA_INT, 0, interest);
            event.set(Posix.EPOLL_DATA, 4, id);
            MemorySegment errno = Posix.captureState(local);
            int status = (int) Posix.EPOLL_CTL.invokeExact(errno, epoll, operation, fd, event);
            if (status != 0) {
                throw new IOException("epoll_ctl failed: " + Posix.describeErrno(errno));
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    @Override
    public int poll() {
        int ready = awaited;
        awaited = 0;
        Direct[] reads = direct;
        if (ready == 0 && (reads.length == 0 || watched > 0)) {
            ready = waitFor(0);
        }
        int work = 0;
        for (Direct entry : reads) {
            try {
                work += entry.read.read();
            } catch (Throwable e) {
                report(e);
            }
        }
        for (int i = 0; i < ready; i++) {
            long offset = i * Posix.EPOLL_EVENT_SIZE;
            int id = (int) events.get(Posix.EPOLL_DATA, offset + 4);
            int bits = events.get(JAVA_INT, offset);
            if (id == WAKE_ID) {
                drainWakeups();
                continue;
            }
            Handler handler = id > 0 && id < handlers.length() ? handlers.get(id) : null;
            if (handler != null) {
                work++;
                try {
                    handler.ready(bits);
                } catch (Throwable e) {
                    report(e);
                }
            }
        }
        return work;
    }

    @Override
    public void ownedBy(Loop owner) {
        this.loop = owner;
    }

    /**
     * A descriptor's handler threw: the loop hears of it, and the other descriptors are still served. The handlers
     * only read a socket and hand its readiness on (the associations' own steps run as commands, which end their
     * association when they fail).
     */
    private void report(Throwable error) {
        if (loop != null) {
            loop.reportError(error);
        }
    }

    @Override
    public void await(long timeoutNanos) {
        if (awaited > 0) {
            return; // events wait to be run
        }
        int millis = timeoutNanos < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, Math.ceilDiv(timeoutNanos, 1_000_000));
        awaited = waitFor(millis);
    }

    private int waitFor(int millis) {
        if (closed) {
            return 0;
        }
        try {
            int ready = (int) Posix.EPOLL_WAIT.invokeExact(state, epoll, events, MAX_EVENTS, millis);
            if (ready < 0) {
                if (Posix.errno(state) == Posix.EINTR) {
                    return 0;
                }
                throw new UncheckedIOException(new IOException("epoll_wait failed: " + Posix.describeErrno(state)));
            }
            return ready;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Resets the eventfd; the flag first, so that a wake-up after this read writes again. */
    private void drainWakeups() {
        signalled = false;
        try {
            long ignored = (long) Posix.READ.invokeExact(state, eventfd, counter, 8L);
        } catch (Throwable e) {
            // nothing to read: already reset
        }
    }

    @Override
    public void wakeup() {
        if (signalled || closed) {
            return;
        }
        signalled = true;
        try {
            long ignored = (long) Posix.WRITE.invokeExact(wakeState, eventfd, one, 8L);
        } catch (Throwable e) {
            // the counter is saturated, or the poller closed meanwhile: the loop wakes or is gone anyway
        }
    }

    @Override
    public void close() {
        List<Runnable> actions;
        synchronized (this) {
            closed = true;
            actions = List.copyOf(onClose);
            onClose.clear();
        }
        actions.forEach(Runnable::run);
        Posix.closeQuietly(eventfd);
        Posix.closeQuietly(epoll);
    }
}
