package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

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
}
