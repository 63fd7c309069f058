package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rddp.loop.Loop;

/**
 * usrsctp as a protocol engine for the whole process: it runs without threads of its own
 * ({@code usrsctp_init_nothreads}), received packets go in through {@code usrsctp_conninput} ({@link #input}), and
 * outgoing ones arrive whole in one buffer at {@code conn_output} ({@link #output}), which sends them along their
 * {@link Links.Link}.
 *
 * <p>Threads: each endpoint belongs to one loop, whose epoll watches it and whose thread reads it and feeds usrsctp.
 * usrsctp's clock ({@code usrsctp_handle_timers}: retransmissions, heartbeats, delayed SACKs) is driven by the loops
 * that own endpoints, as a {@linkplain Loop#schedule deadline} every {@value #TICK_MILLIS} ms of each; whichever comes
 * first claims the tick, so the clock runs while any such loop runs, and no thread of its own does. usrsctp is one
 * stack for the whole process, so with several loops its calls still come from several threads, and two guards
 * remain, both for usrsctp's sake: its timer path and its socket teardown race its input path (usrsctp issues 673
 * and 676), so a tick, a close and a shutdown take {@link #LOCK} for writing while {@code conninput} and
 * {@code register_address} take it for reading ({@code usrsctp_sendv} and {@code recvv} run under usrsctp's own
 * socket locks and take none); and a tick's packets leave through endpoints of other loops, so an endpoint's send
 * is guarded against its own loop's. {@link #finish} takes the write lock so that nothing is inside usrsctp when
 * the stack stops. {@code conn_output} runs on the thread that called into usrsctp, and sends through the link's
 * endpoint.
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // invokeExact declares Throwable; upcall stub
final class UsrsctpRuntime {
    static final int TICK_MILLIS = 10;
    private static final int EIO = 5;
    private static final int EHOSTUNREACH = 113;
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);

    static final MemorySegment OUTPUT_STUB;
    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock();
    private static final AtomicInteger LARGEST_PACKET = new AtomicInteger();
    private static final AtomicLong PACKETS_SENT = new AtomicLong();
    private static volatile boolean running;
    /** When usrsctp's clock last advanced ({@link System#nanoTime}), up to the whole milliseconds it advanced by. */
    private static final AtomicLong LAST_TICK = new AtomicLong(System.nanoTime());
    private static final AtomicLong TICKS = new AtomicLong();

    static {
        MemorySegment stub = MemorySegment.NULL;
        if (Usrsctp.unavailable() == null) {
            try {
                stub = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(UsrsctpRuntime.class,
                        "output", MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class,
                                long.class, byte.class, byte.class)),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_BYTE, JAVA_BYTE),
                        Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        OUTPUT_STUB = stub;
    }

    private UsrsctpRuntime() {
    }

    /**
     * Starts usrsctp without threads of its own; the loops that own endpoints drive its clock. usrsctp's own
     * messages (what it finds wrong with itself or a peer, and the reason before it aborts the process) go to standard
     * error through libc's {@code warnx}, whose signature is the {@code printf}-like one usrsctp calls.
     */
    static void start() throws IOException {
        MemorySegment warnx = Linker.nativeLinker().defaultLookup().find("warnx").orElse(MemorySegment.NULL);
        try {
            Usrsctp.INIT_NOTHREADS.invokeExact((short) 0, OUTPUT_STUB, warnx);
            Usrsctp.ENABLE_CRC32C_OFFLOAD.invokeExact(); // Checksums does it, with the JDK's intrinsic
        } catch (Throwable e) {
            throw new IOException("usrsctp_init_nothreads failed", e);
        }
        running = true;
        LAST_TICK.set(System.nanoTime());
    }

    /**
     * Has {@code loop} look at usrsctp's clock every {@value #TICK_MILLIS} ms, while {@code endpoint} is open: a
     * deadline of the loop's that sets the next. Loop thread.
     */
    static void tickOn(Loop loop, Links.Endpoint endpoint) {
        if (endpoint.open()) {
            loop.schedule(System.nanoTime() + TICK_NANOS, () -> {
                tick();
                tickOn(loop, endpoint);
            });
        }
    }

    /**
     * Advances usrsctp's clock by the whole milliseconds since the last tick, if at least {@value #TICK_MILLIS} have
     * passed and no other loop claimed them first. Alone in usrsctp: its timer emulation races its input path
     * (usrsctp issues 673 and 676). A loop's thread.
     */
    static void tick() {
        long last = LAST_TICK.get();
        int elapsed = (int) TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last);
        if (elapsed < TICK_MILLIS || !LAST_TICK.compareAndSet(last, last + TimeUnit.MILLISECONDS.toNanos(elapsed))) {
            return;
        }
        TICKS.incrementAndGet();
        LOCK.writeLock().lock();
        try {
            if (running) {
                Usrsctp.HANDLE_TIMERS.invokeExact(elapsed);
            }
        } catch (Throwable e) {
            // usrsctp reports nothing from its timers; the next tick tries again
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /** Ticks of usrsctp's clock so far, by every loop. */
    static long ticks() {
        return TICKS.get();
    }

    /**
     * Stops usrsctp ({@code usrsctp_finish}, which refuses while any socket exists). Returns whether it stopped;
     * after that no packet or tick reaches it.
     */
    static boolean finish() {
        LOCK.writeLock().lock();
        try {
            if (!running) {
                return true;
            }
            int status = (int) Usrsctp.FINISH.invokeExact();
            if (status == 0) {
                running = false;
            }
            return status == 0;
        } catch (Throwable e) {
            return false;
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /**
     * Closes a usrsctp socket while no packet and no timer is inside usrsctp: libusrsctp2
     * 0.9.5 frees a socket twice, or writes to it once freed, when its close races with the timer or input
     * path tearing down the same association (seen as heap corruption; usrsctp issue 676).
     */
    static void close(MemorySegment socket) throws Throwable {
        LOCK.writeLock().lock();
        try {
            Usrsctp.CLOSE.invokeExact(socket);
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /**
     * {@code usrsctp_shutdown(SHUT_WR)}, alone in usrsctp like {@link #close}: it stops the association's timers and
     * queues its SHUTDOWN, the same teardown path. Returns usrsctp's status (0: shutting down).
     */
    static int shutdown(MemorySegment socket, int how) throws Throwable {
        LOCK.writeLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            return (int) Usrsctp.SHUTDOWN.invokeExact(Usrsctp.captureState(arena), socket, how);
        } finally {
            LOCK.writeLock().unlock();
        }
    }

    /** Has usrsctp know {@code handle} as an address of its {@code AF_CONN} family. */
    static void registerAddress(MemorySegment handle) throws IOException {
        LOCK.readLock().lock();
        try {
            if (running) {
                Usrsctp.REGISTER_ADDRESS.invokeExact(handle);
            }
        } catch (Throwable e) {
            throw new IOException("usrsctp_register_address failed", e);
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /** Hands usrsctp a received packet that came along the link usrsctp knows by {@code handle}. A loop's thread. */
    static void input(MemorySegment handle, MemorySegment packet, int length) {
        LOCK.readLock().lock();
        try {
            if (running) {
                Usrsctp.CONNINPUT.invokeExact(handle, packet, (long) length, (byte) 0);
            }
        } catch (Throwable e) {
            // a packet usrsctp could not take is a lost packet; SCTP retransmits
        } finally {
            LOCK.readLock().unlock();
        }
    }

    /** SCTP packets sent so far, by every association of the process. */
    static long packetsSent() {
        return PACKETS_SENT.get();
    }

    /** The largest SCTP packet sent so far, in octets (common header and chunks). */
    static int largestPacketSent() {
        return LARGEST_PACKET.get();
    }

    /** usrsctp's {@code conn_output}: on usrsctp's caller's thread, with the whole packet in {@code buffer}. */
    @SuppressWarnings("unused") // called from native code
    private static int output(MemorySegment handle, MemorySegment buffer, long length, byte tos, byte setDf) {
        try {
            Links.Link link = Links.link(handle.address());
            if (link == null) {
                return EHOSTUNREACH;
            }
            int size = (int) length;
            link.lastActive = System.nanoTime();
            PACKETS_SENT.incrementAndGet();
            if (size > LARGEST_PACKET.get()) {
                LARGEST_PACKET.accumulateAndGet(size, Math::max);
            }
            MemorySegment packet = buffer.reinterpret(length);
            Checksums.put(packet, size);
            link.endpoint.send(packet, link); // Don't Fragment as long as the path takes it (Links.Endpoint.send)
            return 0;
        } catch (Throwable e) {
            return EIO; // nothing may escape an upcall; SCTP treats the packet as lost
        }
    }
}
