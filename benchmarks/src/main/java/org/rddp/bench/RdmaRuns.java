package org.rddp.bench;

import java.time.Duration;
import java.util.Arrays;
import org.rddp.engine.WcStatus;
import org.rddp.engine.WorkOpcode;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/** What the transport benchmarks measure the same way over any connected queue pair. */
final class RdmaRuns {
    /** Octets of the Send that follows the Writes, and of the ping-pong messages. */
    static final int SMALL_MESSAGE = 8;
    /** RDMA Writes kept outstanding. */
    static final int WINDOW = 32;

    private RdmaRuns() {
    }

    /**
     * RDMA Writes of {@code size} octets, 32 outstanding, for {@code seconds}; MiB/s of completed Writes, up to
     * the moment a Send posted behind them is received. When the window is full the poster sleeps on the
     * completion queue's notification, once per half window, rather than spin: on two cores a spinning poster
     * would take the CPU the transport's own threads need.
     */
    static double writeBandwidth(QueuePair initiator, CompletionQueue cq, CompletionQueue responderCq,
            MemoryRegion sink, MemoryRegion source, int size, double seconds) throws InterruptedException {
        WorkCompletion completion = new WorkCompletion();
        SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(true)
                .remote(sink.rkey(), 0).sge(0, source, 0, size);
        int outstanding = 0;
        long bytes = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        while (System.nanoTime() < end || outstanding > 0) {
            if (outstanding < WINDOW && System.nanoTime() < end && initiator.postSend(write) == 0) {
                outstanding++;
                continue;
            }
            boolean completed = cq.poll(completion);
            if (!completed && outstanding >= WINDOW) {
                cq.requestNotification(WINDOW / 2); // wake for a batch, not for every completion
                completed = cq.poll(completion);
                if (!completed) {
                    cq.awaitNotification(Duration.ofMillis(10));
                }
            }
            if (completed) {
                check(completion);
                outstanding--;
                bytes += size;
            }
        }
        // a Send behind the Writes: when it is received, every Write before it is placed (RFC 5040 §5.5)
        initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).sge(0, source, 0, SMALL_MESSAGE));
        awaitReceive(responderCq, completion);
        double elapsed = (System.nanoTime() - start) / 1e9;
        await(cq, completion);
        return bytes / elapsed / (1 << 20);
    }

    static void check(WorkCompletion completion) {
        if (completion.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("failed: " + completion);
        }
    }

    static void await(CompletionQueue cq, WorkCompletion into) {
        while (!cq.poll(into)) {
            Thread.onSpinWait();
        }
        check(into);
    }

    /** Waits for a receive completion, passing over send completions. */
    static void awaitReceive(CompletionQueue cq, WorkCompletion into) {
        do {
            await(cq, into);
        } while (into.opcode() != WcOpcode.RECV);
    }

    /** The value {@code fraction} of the way up the sorted values (0.5: the median). */
    static double percentile(long[] values, double fraction) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * fraction))];
    }
}
