package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * Posting a work request and polling its completion allocate nothing in steady state: the consumer's thread
 * is measured with the JVM's per-thread allocation counter (bytes, not time).
 */
class ZeroAllocationTest {
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void postAndPollAllocateNothing() throws Exception {
        try (WriteLoop loop = WriteLoop.connect(64)) {
            SendWorkRequest write = loop.write();
            WorkCompletion completion = new WorkCompletion();
            long[] failures = new long[1];
            assertAllocatesNothing(() -> {
                if (loop.queuePair().postSend(write) != PostStatus.OK) {
                    failures[0]++;
                    return;
                }
                failures[0] += poll(loop, completion);
            }, "post/poll cycles");
            assertThat(failures[0]).isZero();
        }
    }

    @Test
    void bindingAndInvalidatingAWindowAllocateNothing() throws Exception {
        try (WriteLoop loop = WriteLoop.connect(64)) {
            Side side = loop.peers.initiator;
            MemoryRegion region = side.region(4096, Access.LOCAL_WRITE, Access.MW_BIND);
            MemoryWindow window = side.pd.allocateWindow();
            Set<Access> rights = EnumSet.of(Access.REMOTE_READ);
            SendWorkRequest bind = new SendWorkRequest(1).wrId(2).signaled(true);
            SendWorkRequest invalidate = new SendWorkRequest(1).wrId(3).opcode(WorkOpcode.LOCAL_INVALIDATE)
                    .signaled(true).noSge();
            WorkCompletion completion = new WorkCompletion();
            long[] failures = new long[1];
            int[] key = {1};
            assertAllocatesNothing(() -> {
                key[0] = key[0] % 255 + 1; // a new key with every bind (RFC 5042 §5)
                if (loop.queuePair().postSend(bind.bind(window, region, 0, 4096, 0, rights, key[0]))
                        != PostStatus.OK) {
                    failures[0]++;
                    return;
                }
                failures[0] += poll(loop, completion);
                if (loop.queuePair().postSend(invalidate.localInvalidate(window.stag())) != PostStatus.OK) {
                    failures[0]++;
                    return;
                }
                failures[0] += poll(loop, completion);
            }, "bind/invalidate cycles");
            assertThat(failures[0]).isZero();
            assertThat(window.bound()).isFalse();
        }
    }

    /** Spins for the next completion, up to {@link Side#TIMEOUT} (a lost post fails, never hangs); 1 if it failed. */
    private static int poll(WriteLoop loop, WorkCompletion completion) {
        long deadline = System.nanoTime() + Side.TIMEOUT.toNanos();
        while (!loop.completionQueue().poll(completion)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within " + Side.TIMEOUT + "; " + loop.queuePair());
            }
            Thread.onSpinWait();
        }
        return completion.status() == WcStatus.SUCCESS ? 0 : 1;
    }

    /**
     * Runs {@code cycle} 200,000 times to warm up (JIT, queue growth), then in windows of 10,000 until one allocates
     * nothing at all: a window may still see a JIT deoptimization, which puts back on the heap objects that escape
     * analysis had removed.
     */
    private void assertAllocatesNothing(Runnable cycle, String what) {
        for (int i = 0; i < 200_000; i++) {
            cycle.run();
        }
        long[] windows = new long[5];
        boolean clean = false;
        for (int w = 0; w < windows.length && !clean; w++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                cycle.run();
            }
            windows[w] = threads.getCurrentThreadAllocatedBytes() - before;
            clean = windows[w] == 0;
        }
        assertThat(clean).as("a window of 10,000 %s that allocates nothing; bytes per window: %s", what,
                java.util.Arrays.toString(windows)).isTrue();
    }
}
