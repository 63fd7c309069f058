package org.rddp.transport.sctp.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A socket buffer is asked for only where that makes it larger: Linux caps and doubles the request. */
class SocketBufferTest {

    @Test
    void aRequestThatWouldShrinkTheDefaultIsNotMadeOneThatGrowsItIs() throws Throwable {
        long cap = Long.parseLong(Files.readString(Path.of("/proc/sys/net/core/rmem_max")).trim());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Posix.captureState(arena);
            int fd = (int) Posix.SOCKET.invokeExact(state, Posix.AF_INET, Posix.SOCK_DGRAM, 0);
            assertThat(fd).isNotNegative();
            try {
                int standard = Posix.growBuffer(state, fd, Posix.SO_RCVBUF, 1); // 2 octets: less than any default
                assertThat(standard).isPositive();
                // a plain setsockopt would leave 2 × 1024 octets
                assertThat(Posix.growBuffer(state, fd, Posix.SO_RCVBUF, 1024)).isEqualTo(standard);
                int asked = 4 << 20;
                int grown = Posix.growBuffer(state, fd, Posix.SO_RCVBUF, asked);
                assertThat(grown).isEqualTo((int) Math.max(standard, 2 * Math.min(asked, cap)));
            } finally {
                Posix.closeQuietly(fd);
            }
        }
    }
}
