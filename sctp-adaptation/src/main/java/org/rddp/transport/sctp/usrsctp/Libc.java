package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The few libc socket calls the raw-IP link needs (the JDK has no raw sockets), through {@code java.lang.foreign},
 * with errno captured.
 */
@SuppressWarnings("restricted") // native access is the point of this class
final class Libc {
    static final int SOCK_RAW = 3;
    static final int SOL_SOCKET = 1;
    static final int SO_RCVBUF = 8;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVTIMEO = 20;
    static final int EINTR = 4;
    static final int EPERM = 1;
    static final int EACCES = 13;

    static final MethodHandle SOCKET = handle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT));
    static final MethodHandle BIND = handle("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SETSOCKOPT = handle("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SENDTO = handle("sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle RECVFROM = handle("recvfrom", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc lacks " + name));
        return linker.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }
}
