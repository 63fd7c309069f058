package org.rddp.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.rddp.transport.sctp.io.SocketCalls;

/**
 * What the guards left on the SCTP packet path cost one loop, uncontended (one loop per process is the common case):
 * {@link SocketCalls}' enter and exit around every native send and receive, the read lock usrsctp's input takes per
 * packet ({@code UsrsctpRuntime}: a {@link ReentrantReadWriteLock}), and the monitor an endpoint's send takes per
 * packet; against a call with none. Figures per call, in nanoseconds: compare them with a packet's few microseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GuardBenchmark {
    private final SocketCalls calls = new SocketCalls(() -> { });
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Object sendState = new Object();
    private long work;

    /** The work inside each guard, alone. */
    @Benchmark
    public long none() {
        return ++work;
    }

    /** {@link SocketCalls#enter} and {@link SocketCalls#exit}: two CAS. */
    @Benchmark
    public long socketCalls() throws java.io.IOException {
        calls.enter();
        try {
            return ++work;
        } finally {
            calls.exit();
        }
    }

    /** A read lock taken and let go, as usrsctp's input does per packet. */
    @Benchmark
    public long readLock() {
        lock.readLock().lock();
        try {
            return ++work;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** A monitor entered and left, as an endpoint's send does per packet. */
    @Benchmark
    public long monitor() {
        synchronized (sendState) {
            return ++work;
        }
    }
}
