package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The one upcall stub every usrsctp socket registers ({@code usrsctp_set_upcall}), and the table from the
 * upcall's argument (a small integer) to the hook it runs. Upcalls run on usrsctp's own threads: a hook must
 * only hand off, and nothing may escape (an exception leaving an upcall would kill the JVM).
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // see above; creating an upcall stub is restricted
final class Upcalls {
    private static final AtomicReferenceArray<Runnable> HOOKS = new AtomicReferenceArray<>(1 << 16);
    /** The stub; global, so it outlives every socket and usrsctp_finish. */
    static final MemorySegment STUB;

    static {
        MemorySegment stub = MemorySegment.NULL;
        if (Usrsctp.unavailable() == null) {
            try {
                stub = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(Upcalls.class, "upcall",
                        MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class, int.class)),
                        FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, JAVA_INT), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        STUB = stub;
    }

    private Upcalls() {
    }

    /** Claims an argument value for {@code hook}. */
    static int register(Runnable hook) {
        for (int i = 1; i < HOOKS.length(); i++) {
            if (HOOKS.compareAndSet(i, null, hook)) {
                return i;
            }
        }
        throw new IllegalStateException("more than 65535 usrsctp sockets");
    }

    /**
     * Makes {@code socket} non-blocking and has its upcall run {@code hook}: returns the hook's argument value, to
     * {@link #release} when the socket goes. Fails, with nothing left registered, if usrsctp refuses either.
     */
    static int attach(MemorySegment socket, Runnable hook, String what) throws java.io.IOException {
        int id = register(hook);
        try {
            int status = (int) Usrsctp.SET_NON_BLOCKING.invokeExact(socket, 1);
            int upcall = (int) Usrsctp.SET_UPCALL.invokeExact(socket, STUB, MemorySegment.ofAddress(id));
            if (status != 0 || upcall != 0) {
                throw new java.io.IOException("could not make the " + what + " socket non-blocking with an upcall");
            }
            return id;
        } catch (java.io.IOException | RuntimeException | Error e) {
            release(id);
            throw e;
        } catch (Throwable e) {
            release(id);
            throw new java.io.IOException(e);
        }
    }

    /** Points {@code id} at another hook. */
    static void replace(int id, Runnable hook) {
        HOOKS.set(id, hook);
    }

    /** Frees {@code id}; later upcalls with it do nothing. */
    static void release(int id) {
        HOOKS.set(id, null);
    }

    @SuppressWarnings("unused") // called from native code
    private static void upcall(MemorySegment socket, MemorySegment arg, int flags) {
        try {
            long id = arg.address();
            Runnable hook = id > 0 && id < HOOKS.length() ? HOOKS.get((int) id) : null;
            if (hook != null) {
                hook.run();
            }
        } catch (Throwable e) {
            // nothing may escape an upcall: the next call on the socket reports what went wrong
        }
    }
}
