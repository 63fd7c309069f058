package org.rddp.transport.sctp;

import java.time.Duration;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.WorkCompletion;

/** How a test thread takes completions: polling, which drives the thread's manual loops, within a bound. */
final class CompletionPolling {
    private CompletionPolling() {
    }

    /** The next completion of {@code cq}; fails the test if none comes within {@code bound}. */
    static WorkCompletion next(CompletionQueue cq, Duration bound) {
        WorkCompletion completion = new WorkCompletion();
        long deadline = System.nanoTime() + bound.toNanos();
        while (!cq.poll(completion)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within " + bound);
            }
        }
        return completion;
    }
}
