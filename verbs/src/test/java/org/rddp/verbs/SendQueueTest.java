package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.rddp.engine.SendWork;
import org.rddp.verbs.testing.Side;

/** The send queue's ring: full at its depth, in order, nothing lost or shown twice when several threads post. */
class SendQueueTest {

    @Test
    void isFullAtItsDepthAndTakesOnlyWhatWasPublished() {
        SendQueue queue = new SendQueue(3, () -> new SendWork(1));
        long a = queue.claim();
        long b = queue.claim();
        long c = queue.claim();
        assertThat(queue.claim()).as("three of three claimed").isEqualTo(-1);
        queue.slot(a).wrId = 10;
        queue.slot(b).wrId = 11;
        queue.slot(c).wrId = 12;
        queue.publish(b);
        assertThat(queue.take()).as("the first claimed is not published yet: it holds up the second").isNull();
        queue.publish(a);
        SendWork first = queue.take();
        SendWork second = queue.take();
        assertThat(first.wrId).isEqualTo(10);
        assertThat(second.wrId).isEqualTo(11);
        assertThat(queue.take()).isNull();
        assertThat(queue.claim()).as("taken is not free").isEqualTo(-1);
        queue.free(first);
        long d = queue.claim();
        assertThat(d).isEqualTo(3);
        assertThat(queue.slot(d)).as("a depth of 3 rounds up to 4 slots: the fourth is new").isNotSameAs(first);
        queue.publish(c);
        queue.publish(d);
        assertThat(queue.take().wrId).isEqualTo(12);
        assertThat(queue.take()).isSameAs(queue.slot(d));
    }

    @Test
    void aDepthOfZeroRefusesEveryPost() {
        assertThat(new SendQueue(0, () -> new SendWork(1)).claim()).isEqualTo(-1);
    }

    @Test
    void workCompletedOutOfOrderIsABug() {
        SendQueue queue = new SendQueue(4, () -> new SendWork(1));
        for (int i = 0; i < 2; i++) {
            queue.publish(queue.claim());
        }
        SendWork first = queue.take();
        SendWork second = queue.take();
        assertThatThrownBy(() -> queue.free(second)).isInstanceOf(IllegalStateException.class);
        queue.free(first);
        queue.free(second);
        assertThatThrownBy(() -> queue.free(second)).as("nothing taken is left to free")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void severalPostersLoseNothingAndEachKeepsItsOrder() throws InterruptedException {
        int posters = 4;
        int each = 50_000;
        SendQueue queue = new SendQueue(64, () -> new SendWork(1));
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < posters; p++) {
            long poster = p;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each;) {
                    long sequence = queue.claim();
                    if (sequence < 0) {
                        if (Thread.currentThread().isInterrupted()) {
                            return; // the taker gave up
                        }
                        Thread.onSpinWait();
                        continue;
                    }
                    queue.slot(sequence).wrId = poster << 32 | i++;
                    queue.publish(sequence);
                }
            }));
        }
        start.countDown();
        long[] next = new long[posters];
        Set<Long> seen = new HashSet<>();
        long deadline = System.nanoTime() + Side.TIMEOUT.toNanos();
        for (int taken = 0; taken < posters * each;) {
            SendWork work = queue.take();
            if (work == null) {
                if (System.nanoTime() - deadline > 0) {
                    threads.forEach(Thread::interrupt);
                    throw new AssertionError(taken + " of " + posters * each + " posts taken within " + Side.TIMEOUT
                            + ": a published post was lost");
                }
                Thread.onSpinWait();
                continue;
            }
            long wrId = work.wrId;
            int poster = (int) (wrId >>> 32);
            assertThat(wrId & 0xFFFF_FFFFL).as("poster %d's posts in its order", poster).isEqualTo(next[poster]++);
            assertThat(seen.add(wrId)).isTrue();
            queue.free(work);
            taken++;
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(queue.take()).isNull();
    }
}
