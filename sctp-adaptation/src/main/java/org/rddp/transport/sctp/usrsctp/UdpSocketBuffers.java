package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Raises the socket buffers of usrsctp's own UDP socket. usrsctp leaves them at the kernel default (about
 * 200 KiB), which large SCTP packets overrun as soon as two stacks exchange data at speed: datagrams are dropped
 * (UDP RcvbufErrors) and SCTP waits for retransmission timeouts. usrsctp offers no option for it, so the socket
 * is found in /proc by its port and set with libc's setsockopt.
 */
@SuppressWarnings({"checkstyle:IllegalCatch", "restricted"}) // invokeExact declares Throwable; libc through FFM
final class UdpSocketBuffers {
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;

    private UdpSocketBuffers() {
    }

    /** Best effort: sets SO_RCVBUF and SO_SNDBUF of the UDP sockets bound to {@code port} in this process. */
    static void raise(int port, int bytes) {
        try {
            List<Long> inodes = inodes(port);
            if (inodes.isEmpty()) {
                return;
            }
            Linker linker = Linker.nativeLinker();
            MethodHandle setsockopt = linker.downcallHandle(linker.defaultLookup().find("setsockopt").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
            try (Arena arena = Arena.ofConfined(); Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                MemorySegment value = arena.allocate(JAVA_INT);
                value.set(JAVA_INT, 0, bytes);
                for (Path fd : (Iterable<Path>) fds::iterator) {
                    String target;
                    try {
                        target = Files.readSymbolicLink(fd).toString();
                    } catch (IOException e) {
                        continue; // closed meanwhile
                    }
                    for (long inode : inodes) {
                        if (target.equals("socket:[" + inode + "]")) {
                            int number = Integer.parseInt(fd.getFileName().toString());
                            int ignored = (int) setsockopt.invokeExact(number, SOL_SOCKET, SO_RCVBUF, value, 4);
                            ignored |= (int) setsockopt.invokeExact(number, SOL_SOCKET, SO_SNDBUF, value, 4);
                        }
                    }
                }
            }
        } catch (Throwable e) {
            // best effort: without it SCTP still works, only slower under load
        }
    }

    /** Inodes of the UDP sockets bound to {@code port}, from /proc/net/udp and udp6. */
    private static List<Long> inodes(int port) throws IOException {
        String hexPort = ":" + String.format(Locale.ROOT, "%04X", port);
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(Path.of("/proc/net/udp")));
        Path udp6 = Path.of("/proc/net/udp6");
        if (Files.exists(udp6)) {
            lines.addAll(Files.readAllLines(udp6));
        }
        List<Long> inodes = new java.util.ArrayList<>();
        for (String line : lines) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length > 9 && fields[1].endsWith(hexPort)) {
                inodes.add(Long.parseLong(fields[9]));
            }
        }
        return inodes;
    }
}
