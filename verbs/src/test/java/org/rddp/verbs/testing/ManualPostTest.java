package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rddp.loop.Progress;
import org.rddp.testing.InMemoryLlp;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;

/**
 * Posts from the thread that drives a manual loop: over a stream that gathers its writes (MPA) the posts of one turn
 * are drained together at the loop's next duty cycle and leave in one write; over one that does not (SCTP) each is
 * sent as it is posted. Both ends' loops are this thread's, so what has been sent is known exactly at every step.
 */
class ManualPostTest {
    private static final int POSTS = 5;
    private static final int SIZE = 64;

    @Test
    void thePostsOfOneTurnLeaveInOneWriteAtTheNextDutyCycle() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(1024, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = transport.initiator().lastInitiatorEnd();
            SendWorkRequest send = sends(peers);
            long sent = end.segmentsSent();
            long writes = end.writes();

            for (int i = 0; i < POSTS; i++) {
                peers.initiator.post(send.wrId(i));
            }
            assertThat(end.segmentsSent()).as("sent before the loop's next duty cycle").isEqualTo(sent);

            transport.initiator().loop().invoke();
            assertThat(end.segmentsSent() - sent).as("segments sent by the cycle").isEqualTo(POSTS);
            assertThat(end.writes() - writes).as("writes they took").isEqualTo(1);
            received(peers);
        }
    }

    @Test
    void aStreamThatDoesNotGatherSendsEachPostAtOnce() throws Exception {
        try (InMemoryTransport transport = new InMemoryTransport(1024, 64, Progress.manual());
                Peers peers = new Peers(transport, 16).connect(4, 4)) {
            InMemoryLlp end = transport.initiator().lastInitiatorEnd();
            end.sendEachAtOnce();
            SendWorkRequest send = sends(peers);
            long sent = end.segmentsSent();
            long writes = end.writes();

            for (int i = 1; i <= POSTS; i++) {
                peers.initiator.post(send.wrId(i));
                assertThat(end.segmentsSent() - sent).as("segments sent after post %d", i).isEqualTo(i);
                assertThat(end.writes() - writes).as("writes after post %d", i).isEqualTo(i);
            }
            received(peers);
        }
    }

    /** The responder's receives posted; a signaled Send of {@value #SIZE} octets from the initiator's memory. */
    private static SendWorkRequest sends(Peers peers) {
        MemoryRegion inbox = peers.responder.region((long) POSTS * SIZE, Access.LOCAL_WRITE);
        for (int i = 0; i < POSTS; i++) {
            peers.responder.postReceive(inbox, (long) i * SIZE, SIZE, i);
        }
        MemoryRegion source = peers.initiator.region(SIZE, Access.LOCAL_WRITE);
        return new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true).sge(0, source, 0, SIZE);
    }

    /** Every Send arrived whole, and completed on the initiator. */
    private static void received(Peers peers) {
        for (int i = 0; i < POSTS; i++) {
            WorkCompletion receive = peers.responder.next();
            assertThat(receive.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(receive.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(receive.byteLength()).isEqualTo(SIZE);
            WorkCompletion send = peers.initiator.next();
            assertThat(send.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(send.opcode()).isEqualTo(WcOpcode.SEND);
        }
    }
}
