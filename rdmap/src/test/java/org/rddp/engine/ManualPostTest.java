package org.rddp.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rddp.engine.EnginePair.fill;
import static org.rddp.engine.EnginePair.send;
import static org.rddp.engine.StagResolver.LOCAL_WRITE;

import org.rddp.work.WorkOpcode;
import org.rddp.work.WcStatus;
import org.junit.jupiter.api.Test;
import org.rddp.engine.TestQueues.ReceiveDone;
import org.rddp.engine.TestQueues.SendDone;
import org.rddp.rdmap.RdmapOpcode;

/**
 * Posts from the thread that drives a manual loop ({@link RdmapEngine#wakeup}): over a stream that gathers its writes
 * (MPA) the posts of one turn are drained together at the loop's next duty cycle and leave in one write; over one that
 * does not (SCTP) each is sent as it is posted. Both engines' loops are this thread's, so what has been sent is known
 * exactly at every step.
 */
class ManualPostTest {
    private static final int POSTS = 5;
    private static final int SIZE = 64;

    @Test
    void thePostsOfOneTurnLeaveInOneWriteAtTheNextDutyCycle() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged source = prepare(pair);
            long sent = pair.a.end.segmentsSent();
            long writes = pair.a.end.writes();

            for (int i = 0; i < POSTS; i++) {
                pair.a.post(send(i, source, 0, SIZE));
            }
            assertThat(pair.a.end.segmentsSent()).as("sent before the loop's next duty cycle").isEqualTo(sent);

            pair.a.loop.invoke();
            assertThat(pair.a.end.segmentsSent() - sent).as("segments sent by the cycle").isEqualTo(POSTS);
            assertThat(pair.a.end.writes() - writes).as("writes they took").isEqualTo(1);
            assertThat(pair.a.end.bursts().getLast()).as("the burst the LLP was told of").isEqualTo(POSTS);
            received(pair);
        }
    }

    @Test
    void aStreamThatDoesNotGatherSendsEachPostAtOnce() {
        try (EnginePair pair = EnginePair.clientServer(4, 4)) {
            TestMemory.Tagged source = prepare(pair);
            pair.a.end.sendEachAtOnce();
            long sent = pair.a.end.segmentsSent();
            long writes = pair.a.end.writes();

            for (int i = 1; i <= POSTS; i++) {
                pair.a.post(send(i - 1, source, 0, SIZE));
                assertThat(pair.a.end.segmentsSent() - sent).as("segments sent after post %d", i).isEqualTo(i);
                assertThat(pair.a.end.writes() - writes).as("writes after post %d", i).isEqualTo(i);
            }
            received(pair);
        }
    }

    /** The responder's receives posted, both engines started; the initiator's source of {@value #SIZE} octets. */
    private static TestMemory.Tagged prepare(EnginePair pair) {
        TestMemory.Tagged inbox = pair.b.memory.region((long) POSTS * SIZE, LOCAL_WRITE);
        for (int i = 0; i < POSTS; i++) {
            pair.b.postReceive(i, inbox, (long) i * SIZE, SIZE);
        }
        TestMemory.Tagged source = pair.a.memory.region(SIZE, 0);
        fill(source.memory(), 15);
        pair.start();
        return source;
    }

    /** Every Send arrived whole, and completed on the initiator, in order. */
    private static void received(EnginePair pair) {
        pair.settle();
        for (int i = 0; i < POSTS; i++) {
            assertThat(pair.b.queues.receivesDone.get(i)).isEqualTo(new ReceiveDone(i, WcStatus.SUCCESS, SIZE,
                    RdmapOpcode.SEND, 0));
            assertThat(pair.a.queues.sendsDone.get(i)).isEqualTo(new SendDone(i, WorkOpcode.SEND, WcStatus.SUCCESS,
                    SIZE));
        }
        assertThat(pair.b.queues.receivesDone).hasSize(POSTS);
        assertThat(pair.a.queues.sendsDone).hasSize(POSTS);
    }
}
