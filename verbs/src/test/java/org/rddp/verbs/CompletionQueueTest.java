package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import org.rddp.work.WcStatus;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;

class CompletionQueueTest {
    private final CompletionQueue cq = new RdmaDevice("test").createCompletionQueue(4);
    private final WorkCompletion completion = new WorkCompletion();

    @Test
    void solicitedOnlyWakesForSolicitedOrFailedCompletions() throws InterruptedException {
        cq.requestNotification(true);
        cq.push(1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).isFalse();
        cq.push(2, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, true);
        assertThat(cq.awaitNotification(Duration.ZERO)).isTrue();
        cq.push(3, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, true);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("one notification per request").isFalse();
        cq.requestNotification(true);
        cq.push(4, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("failures wake solicited-only waiters").isTrue();
    }

    @Test
    void nextWakesForAnyCompletion() throws InterruptedException {
        cq.requestNotification(false);
        cq.push(1, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).isTrue();
    }

    @Test
    void moderationWakesOncePerBatchOrAtAFailure() throws InterruptedException {
        cq.requestNotification(3);
        cq.push(1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 1, 0, false);
        cq.push(2, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("two of three").isFalse();
        cq.push(3, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("the third").isTrue();
        while (cq.poll(completion)) {
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
        }
        cq.requestNotification(3);
        cq.push(4, WcStatus.WR_FLUSH_ERR, WcOpcode.RDMA_WRITE, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("a failure does not wait for the batch").isTrue();
        cq.requestNotification(false);
        cq.push(5, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, false);
        assertThat(cq.awaitNotification(Duration.ZERO)).as("plain arming is back to one").isTrue();
    }

    @Test
    void pollsInOrderAndCountsOverruns() {
        for (int i = 0; i < 5; i++) {
            cq.push(i, WcStatus.SUCCESS, WcOpcode.SEND, i, 1, 0, false);
        }
        assertThat(cq.overruns()).isEqualTo(1);
        WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        assertThat(cq.poll(batch)).isEqualTo(3);
        assertThat(batch[2].wrId()).isEqualTo(2);
        assertThat(cq.poll(completion)).isTrue();
        assertThat(completion.byteLength()).isEqualTo(3);
        assertThat(cq.poll(completion)).isFalse();
    }

    @Test
    void aBatchPollRunsTheCallersLoopsOnceAndOnlyWhenNothingIsReady() {
        AtomicInteger cycles = new AtomicInteger();
        Poller completing = new Poller() { // each duty cycle "reads" two completions
            @Override
            public int poll() {
                int cycle = cycles.incrementAndGet();
                cq.push(2 * cycle, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, false);
                cq.push(2 * cycle + 1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, false);
                return 2;
            }

            @Override
            public void await(long timeoutNanos) {
            }

            @Override
            public void wakeup() {
            }

            @Override
            public void close() {
            }
        };
        try (Loop loop = Loop.manual("one-cycle", completing)) {
            WorkCompletion[] batch = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            assertThat(cq.poll(batch)).as("what one cycle made, not a second cycle for the third slot").isEqualTo(2);
            assertThat(cycles).hasValue(1);
            cq.push(99, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, false);
            assertThat(cq.poll(batch)).as("what is ready, without a cycle").isEqualTo(1);
            assertThat(batch[0].wrId()).isEqualTo(99);
            assertThat(cycles).hasValue(1);
            assertThat(cq.poll(batch)).isEqualTo(2);
            assertThat(cycles).hasValue(2);
        }
    }

    @Test
    void aWaitThatMayEndOnWorkReturnsAfterTheFirstCycleThatWorked() throws InterruptedException {
        int[] script = {0, 1, 2}; // nothing; data that completes nothing; data that completes a receive
        AtomicInteger polls = new AtomicInteger();
        AtomicInteger awaits = new AtomicInteger();
        Poller scripted = new Poller() {
            @Override
            public int poll() {
                int step = script[Math.min(polls.getAndIncrement(), script.length - 1)];
                if (step == 2) {
                    cq.push(7, WcStatus.SUCCESS, WcOpcode.RECV, 0, 1, 0, false);
                }
                return Math.min(step, 1);
            }

            @Override
            public void await(long timeoutNanos) {
                awaits.incrementAndGet();
            }

            @Override
            public void wakeup() {
            }

            @Override
            public void close() {
            }
        };
        try (Loop loop = Loop.manual("scripted", scripted)) {
            cq.requestNotification(false);
            assertThat(cq.awaitNotificationOrWork(Duration.ofSeconds(30))).as("woken by data, no notification")
                    .isFalse();
            assertThat(awaits).as("it blocked in the poller while nothing came").hasValue(1);
            assertThat(polls).hasValue(2);
            assertThat(cq.awaitNotificationOrWork(Duration.ofSeconds(30))).as("the completion's notification")
                    .isTrue();
            assertThat(polls).hasValue(3);
            assertThat(cq.poll(completion)).isTrue();
            assertThat(completion.wrId()).isEqualTo(7);
        }
    }

    @Test
    void withoutManualLoopsAWaitThatMayEndOnWorkIsAPlainWait() throws InterruptedException {
        cq.requestNotification(false);
        assertThat(cq.awaitNotificationOrWork(Duration.ZERO)).isFalse();
        cq.push(1, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, false);
        assertThat(cq.awaitNotificationOrWork(Duration.ZERO)).isTrue();
    }
}
