package org.rddp.exs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One queue's events as a test takes them: the next one of a type, the others kept for later. */
final class KeptEvents {
    private final ExsQueue queue;
    private final Duration bound;
    private final List<ExsEvent> kept = new ArrayList<>();

    KeptEvents(ExsQueue queue, Duration bound) {
        this.queue = queue;
        this.bound = bound;
    }

    /** The next event of {@code type}, dequeuing (and keeping the others) for up to the bound. */
    ExsEvent next(ExsEvent.Type type) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        ExsEvent[] into = new ExsEvent[8];
        while (true) {
            for (int i = 0; i < kept.size(); i++) {
                if (kept.get(i).type() == type) {
                    return kept.remove(i);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + type + " event within " + bound + "; kept " + kept);
            }
            int taken = queue.dequeue(into, 1, Duration.ofNanos(left));
            kept.addAll(Arrays.asList(into).subList(0, taken));
        }
    }
}
