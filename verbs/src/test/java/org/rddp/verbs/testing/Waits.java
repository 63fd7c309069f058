package org.rddp.verbs.testing;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import org.rddp.loop.Loop;

/**
 * How a test thread waits: one that drives manual loops ({@link org.rddp.loop.Progress#manual()}) runs them while it
 * waits, since nobody else will; one that drives none just waits.
 */
final class Waits {
    private Waits() {
    }

    /** {@code future}'s value, within {@link Side#TIMEOUT}. */
    static <T> T join(CompletableFuture<T> future) throws Exception {
        return Loop.joinOwned(future, Side.TIMEOUT);
    }

    /** The next element of {@code queue} within {@code nanos}, or null. */
    static <T> T poll(BlockingQueue<T> queue, long nanos) throws InterruptedException {
        return Loop.pollOwned(queue, nanos);
    }

    /** One step of a wait for something with no event of its own: the loops run, or the thread yields. */
    static void step() {
        if (Loop.invokeOwned() == 0) {
            Thread.yield();
        }
    }
}
