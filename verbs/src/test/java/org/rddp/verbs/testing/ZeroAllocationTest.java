package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;

/**
 * Posting a work request and polling its completion allocate nothing in steady state: the consumer's thread
 * is measured with the JVM's per-thread allocation counter (bytes, not time).
 */
class ZeroAllocationTest {

    @Test
    void postAndPollAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (WriteLoop loop = WriteLoop.connect(64)) {
            SendWorkRequest write = loop.write();
            WorkCompletion completion = new WorkCompletion();
            long[] failures = new long[1];
            Runnable cycle = () -> {
                if (loop.queuePair().postSend(write) != PostStatus.OK) {
                    failures[0]++;
                    return;
                }
                while (!loop.completionQueue().poll(completion)) {
                    Thread.onSpinWait();
                }
                if (completion.status() != WcStatus.SUCCESS) {
                    failures[0]++;
                }
            };
            for (int i = 0; i < 200_000; i++) {
                cycle.run(); // warm up: JIT, queue growth
            }
            // a window may still see a JIT deoptimization, which puts back on the heap objects that escape
            // analysis had removed; steady state is a window of 10,000 cycles that allocates nothing at all
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
            assertThat(failures[0]).isZero();
            assertThat(clean).as("a window of 10,000 post/poll cycles that allocates nothing; bytes per window: %s",
                    java.util.Arrays.toString(windows)).isTrue();
        }
    }
}
