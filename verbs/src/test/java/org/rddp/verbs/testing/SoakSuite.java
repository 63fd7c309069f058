package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.work.QpEvent;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * Connect, move checksummed data, disconnect, over and over, over one transport: at the end the process has as many
 * threads and file descriptors as after the warm-up, and its heap has not grown. {@value #SMOKE} cycles in the
 * default run; {@code -Drddp.soak.cycles=10000} (or more) for the soak, with {@code -Drddp.test.fork-timeout=0} if
 * it runs past half an hour. A transport's test extends it.
 */
public abstract class SoakSuite {
    /** Cycles in the default run. */
    static final int SMOKE = 300;
    private static final int CYCLES = Integer.getInteger("rddp.soak.cycles", SMOKE);
    private static final int WARM_UP = 30;
    private static final int SIZE = 16 * 1024;
    /** Heap the cycles may leave behind, after a collection: a leak of one object per cycle would show. */
    private static final long HEAP_SLACK = 16L << 20;

    /** The transport the cycles run over; closed at the end. */
    protected abstract TransportFixture createTransport() throws Exception;

    @Test
    @Timeout(value = 2, unit = TimeUnit.HOURS)
    void connectTransferDisconnectCyclesLeaveNothingBehind() throws Exception {
        try (TransportFixture transport = createTransport()) {
            for (int i = 0; i < WARM_UP; i++) {
                cycle(transport, i);
            }
            Resources before = Resources.settled(null);
            long started = System.nanoTime();
            for (int i = 0; i < CYCLES; i++) {
                try {
                    cycle(transport, WARM_UP + i);
                } catch (Exception | AssertionError e) {
                    throw new AssertionError("cycle " + i + " of " + CYCLES + " failed", e);
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            Resources after = Resources.settled(before);
            System.out.printf("soak: %d cycles in %.1f s (%.0f per second); threads %d -> %d, fds %d -> %d, heap "
                    + "%d -> %d MiB%n", CYCLES, seconds, CYCLES / seconds, before.threads, after.threads, before.fds,
                    after.fds, before.heap >> 20, after.heap >> 20);
            assertThat(after.threads).as("threads").isLessThanOrEqualTo(before.threads);
            assertThat(after.fds).as("file descriptors").isLessThanOrEqualTo(before.fds);
            assertThat(after.heap).as("heap after a collection").isLessThanOrEqualTo(before.heap + HEAP_SLACK);
        }
    }

    /** One connection: a Send of checksummed data, checked where it landed, then a graceful disconnect. */
    private static void cycle(TransportFixture transport, int seed) throws Exception {
        try (Peers peers = new Peers(transport, 4)) {
            MemoryRegion sink = peers.responder.region(SIZE, Access.LOCAL_WRITE);
            peers.responder.postReceive(sink, 0, SIZE, seed);
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region(SIZE);
            ScenarioSuite.fill(source, SIZE, seed);
            peers.initiator.post(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(seed).sge(0, source, 0, SIZE));
            WorkCompletion received = peers.responder.next();
            assertThat(received.status()).as("cycle %d: %s", seed, received).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.byteLength()).isEqualTo(SIZE);
            assertThat(crc(sink)).as("cycle %d: the data", seed).isEqualTo(crc(source));
            assertThat(peers.initiator.next().status()).isEqualTo(WcStatus.SUCCESS);
            peers.initiatorConnection.disconnect();
            peers.initiator.awaitAny(QpEvent.DISCONNECTED, QpEvent.CONNECTION_LOST);
            peers.responder.awaitAny(QpEvent.DISCONNECTED, QpEvent.CONNECTION_LOST);
        }
    }

    private static long crc(MemoryRegion region) {
        CRC32C crc = new CRC32C();
        crc.update(region.memory().asByteBuffer());
        return crc.getValue();
    }

    /** What the process holds: threads, open file descriptors, heap in use after a collection. */
    private record Resources(int threads, long fds, long heap) {
        /**
         * What the process holds once what the cycles started has wound down: looked at until it is no more than
         * {@code limit} (if given), for up to 30 s (closes finish on loops, threads end after their last task).
         */
        static Resources settled(Resources limit) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Resources now = now();
            while (limit != null && (now.threads > limit.threads || now.fds > limit.fds
                    || now.heap > limit.heap + HEAP_SLACK) && System.nanoTime() - deadline < 0) {
                Thread.sleep(100); // not synchronisation: resources are polled until they settle or time runs out
                now = now();
            }
            return now;
        }

        static Resources now() throws IOException {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            memory.gc();
            long fds;
            try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
                fds = open.count();
            }
            return new Resources(Thread.getAllStackTraces().size(), fds, memory.getHeapMemoryUsage().getUsed());
        }
    }
}
