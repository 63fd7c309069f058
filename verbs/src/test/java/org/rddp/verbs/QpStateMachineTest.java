package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.rddp.work.QpState;
import org.rddp.work.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QpStateMachineTest {

    /** Every (from, to) pair and whether the consumer may ask for it (RDMAC verbs §6.2). */
    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @CsvSource({
        "IDLE, IDLE, false", "IDLE, RTS, false", "IDLE, CLOSING, false", "IDLE, TERMINATE, false",
        "IDLE, ERROR, true",
        "RTS, IDLE, false", "RTS, RTS, false", "RTS, CLOSING, true", "RTS, TERMINATE, false", "RTS, ERROR, true",
        "CLOSING, IDLE, false", "CLOSING, RTS, false", "CLOSING, CLOSING, false", "CLOSING, TERMINATE, false",
        "CLOSING, ERROR, true",
        "TERMINATE, IDLE, false", "TERMINATE, RTS, false", "TERMINATE, CLOSING, false",
        "TERMINATE, TERMINATE, false", "TERMINATE, ERROR, true",
        "ERROR, IDLE, true", "ERROR, RTS, false", "ERROR, CLOSING, false", "ERROR, TERMINATE, false",
        "ERROR, ERROR, false",
    })
    void consumerTransitions(QpState from, QpState to, boolean allowed) {
        assertThat(QueuePair.allowed(from, to)).isEqualTo(allowed);
    }

    @Test
    void anIdleQueuePairGoesToErrorFlushingItsReceivesAndBackToIdle() {
        RdmaDevice device = new RdmaDevice("test");
        CompletionQueue cq = device.createCompletionQueue(8);
        QueuePair qp = device.allocateProtectionDomain().createQueuePair(QpAttributes.of(cq, 4, 1));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).wrId(3).noSge();
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.OK);
        assertThat(qp.postSend(new SendWorkRequest(1))).isEqualTo(PostStatus.NOT_RTS);
        assertThatThrownBy(() -> qp.modify(QpState.RTS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("IDLE -> RTS");
        qp.modify(QpState.ERROR);
        assertThat(qp.state()).isEqualTo(QpState.ERROR);
        WorkCompletion completion = new WorkCompletion();
        assertThat(cq.poll(completion)).isTrue();
        assertThat(completion.wrId()).isEqualTo(3);
        assertThat(completion.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.NOT_RTS);
        qp.modify(QpState.IDLE);
        assertThat(qp.state()).isEqualTo(QpState.IDLE);
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.OK);
    }

    @Test
    void aFullQueueSaysSo() {
        RdmaDevice device = new RdmaDevice("test");
        CompletionQueue cq = device.createCompletionQueue(8);
        QueuePair qp = device.allocateProtectionDomain().createQueuePair(QpAttributes.of(cq, 2, 1));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).noSge();
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.OK);
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.OK);
        assertThat(qp.postReceive(receive)).isEqualTo(PostStatus.QUEUE_FULL);
        assertThatThrownBy(() -> qp.postReceive(new ReceiveWorkRequest(2).sge(1, 0, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
