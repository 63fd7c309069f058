package org.rddp.verbs.testing;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rddp.loop.IdleStrategy;
import org.rddp.loop.Progress;
import org.rddp.verbs.Access;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;

/**
 * A post from the application's thread always wakes the loop that sends it. The post stores its work and reads the
 * engine's drain flag; the drain clears the flag and reads the work: without a fence on each side a post could see a
 * drain pending that had already looked and found nothing, and wait forever (it hung a CI run in
 * {@link ZeroAllocationTest}). Bursts of one to three Writes, each waited for, against a loop that spins and one that
 * backs off: before the fences, each lost a post in every run of four, after 1,240 to 26,177 bursts.
 */
class PostWakeupTest {
    /** Bursts a run makes, times each strategy's share (a busy-polling loop shares the test's two cores slowly). */
    private static final int BURSTS = Integer.getInteger("rddp.test.wakeup-bursts", 10_000);

    @ParameterizedTest(name = "{0}, {1} x bursts")
    @CsvSource({"busy-polling, 1", "backoff, 10"})
    void everyPostIsSent(String strategy, int share) throws Exception {
        IdleStrategy idle = strategy.equals("busy-polling") ? IdleStrategy.BUSY_POLLING : IdleStrategy.backoff(100, 10);
        try (InMemoryTransport transport = new InMemoryTransport(4096, 64, Progress.automatic(1, idle));
                Peers peers = new Peers(transport, 64)) {
            MemoryRegion sink = peers.responder.region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            peers.connect(1, 1);
            MemoryRegion source = peers.initiator.region(4096);
            SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).wrId(1)
                    .remote(sink.rkey(), 0).sge(0, source, 0, 64);
            WorkCompletion completion = new WorkCompletion();
            SplittableRandom random = new SplittableRandom(share);
            for (int burst = 0; burst < BURSTS * share; burst++) {
                int posts = 1 + random.nextInt(3);
                for (int i = 0; i < posts; i++) {
                    if (peers.initiator.qp.postSend(write) != PostStatus.OK) {
                        throw new AssertionError("burst " + burst + ": the post was refused; " + peers.initiator.qp);
                    }
                }
                for (int i = 0; i < posts; i++) {
                    long deadline = System.nanoTime() + Side.TIMEOUT.toNanos();
                    while (!peers.initiator.cq.poll(completion)) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new AssertionError("burst " + burst + ": " + (posts - i) + " of its " + posts
                                    + " Writes not sent within " + Side.TIMEOUT + "; " + peers.initiator.qp);
                        }
                        Thread.onSpinWait();
                    }
                    if (completion.status() != WcStatus.SUCCESS) {
                        throw new AssertionError("burst " + burst + ": " + completion.status());
                    }
                }
            }
        }
    }
}

