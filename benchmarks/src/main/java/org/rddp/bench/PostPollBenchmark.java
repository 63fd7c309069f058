package org.rddp.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.rddp.work.WcStatus;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.testing.WriteLoop;

/**
 * One verbs post/poll cycle: post a 64-octet RDMA Write and poll its completion, over the in-memory LLP. Run
 * with {@code -prof gc}: gc.alloc.rate.norm shows what one cycle allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PostPollBenchmark {
    private WriteLoop loop;
    private SendWorkRequest write;
    private final WorkCompletion completion = new WorkCompletion();

    /** Two connected queue pairs over the in-memory LLP. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        loop = WriteLoop.connect(64);
        write = loop.write();
    }

    /** Disconnects and stops the owner threads. */
    @TearDown(Level.Trial)
    public void tearDown() {
        loop.close();
    }

    /** Post, then spin on the completion queue until the completion is there. */
    @Benchmark
    public WcStatus postAndPoll() {
        if (loop.queuePair().postSend(write) != 0) {
            throw new IllegalStateException("post refused");
        }
        while (!loop.completionQueue().poll(completion)) {
            Thread.onSpinWait();
        }
        return completion.status();
    }
}
