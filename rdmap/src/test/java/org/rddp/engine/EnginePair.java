package org.rddp.engine;

import org.rddp.work.WorkOpcode;
import org.rddp.work.QpState;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.rddp.llp.LlpParameters;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;
import org.rddp.testing.InMemoryLlp;

/**
 * Two engines joined by an in-memory LLP pair, each on a manual loop of the calling thread: nothing moves unless the
 * test {@linkplain #settle settles} the loops (or invokes one), so what has been sent, placed and completed is known
 * exactly at every step, with no wait and no clock. Side {@link #a} is the initiator, {@link #b} the responder.
 */
final class EnginePair implements AutoCloseable {
    /** The in-memory LLP's MULPDU unless a test says otherwise. */
    static final int MULPDU = 1024;
    /** Duty cycles of both loops after which {@link #settle} gives up: the engines keep each other busy. */
    private static final int MAX_ROUNDS = 1_000_000;

    final Side a;
    final Side b;

    /** One engine with its loop, its LLP end, its memory and its work queues. */
    static final class Side {
        final String name;
        final Loop loop;
        final InMemoryLlp end;
        final TestMemory memory;
        final TestQueues queues;
        final RdmapEngine engine;
        /** What the engine (or a stream on its loop) ended itself over and reported to the loop. */
        final List<Throwable> reported;

        private Side(String name, Loop loop, InMemoryLlp end, List<Throwable> reported, int stagPrefix) {
            this.name = name;
            this.loop = loop;
            this.end = end;
            this.reported = reported;
            this.memory = new TestMemory(stagPrefix);
            this.queues = new TestQueues(memory);
            this.engine = new RdmapEngine(end, loop, memory, queues);
        }

        /** Posts {@code work} to the send queue and tells the engine, as the verbs layer does. */
        Side post(SendWork work) {
            queues.sends.add(work);
            engine.wakeup();
            return this;
        }

        /** Posts a receive of {@code length} octets at {@code to} of {@code region}. */
        Side postReceive(long wrId, TestMemory.Tagged region, long to, int length) {
            return postReceive(wrId, region.stag(), to, length);
        }

        /** Posts a receive from raw values (an lkey that may be bogus). */
        Side postReceive(long wrId, int lkey, long to, int length) {
            ReceiveWork work = new ReceiveWork(1);
            work.wrId = wrId;
            work.sges.set(0, lkey, to, length);
            queues.receives.add(work);
            return this;
        }

        /** The engine's state. */
        QpState state() {
            return engine.state();
        }

        @Override
        public String toString() {
            return name + " " + engine.state() + ", events " + queues.events;
        }
    }

    /** Client-server streams with IRD and ORD {@code ird}/{@code ord} on both sides, MULPDU 1024, 32 in flight. */
    static EnginePair clientServer(int ird, int ord) {
        return of(LlpParameters.of(ird, ord), LlpParameters.of(ird, ord), MULPDU, 32);
    }

    /**
     * Two engines, IDLE, over streams with these parameters, of {@code mulpdu} with {@code capacity} segments in
     * flight per direction.
     */
    static EnginePair of(LlpParameters initiator, LlpParameters responder, int mulpdu, int capacity) {
        return new EnginePair(initiator, responder, mulpdu, capacity);
    }

    private EnginePair(LlpParameters initiator, LlpParameters responder, int mulpdu, int capacity) {
        List<Throwable> reportedA = new ArrayList<>();
        List<Throwable> reportedB = new ArrayList<>();
        Loop loopA = Loop.manual("engine-a", Poller.parking(), (loop, error) -> reportedA.add(error));
        Loop loopB = Loop.manual("engine-b", Poller.parking(), (loop, error) -> reportedB.add(error));
        InMemoryLlp[] ends = InMemoryLlp.pair(loopA, initiator, loopB, responder, mulpdu, capacity);
        a = new Side("a", loopA, ends[0], reportedA, 0x0A00_0000);
        b = new Side("b", loopB, ends[1], reportedB, 0x0B00_0000);
    }

    /** Starts both engines (the initiator first) and settles: both are in RTS. */
    EnginePair start() {
        a.engine.start();
        b.engine.start();
        settle();
        return this;
    }

    /**
     * Runs both loops until a round of duty cycles does no work: everything either engine or LLP end queued, and
     * what that queued in turn, has run.
     */
    void settle() {
        for (int round = 0; Loop.invokeOwned() > 0; round++) {
            if (round == MAX_ROUNDS) {
                throw new AssertionError("the loops never went quiet: " + a + "; " + b);
            }
        }
    }

    /** Nothing escaped either loop (a bug: no stream answered for it); then both loops end. */
    @Override
    public void close() {
        Throwable failure = a.loop.failure() != null ? a.loop.failure() : b.loop.failure();
        try {
            a.loop.close();
        } finally {
            b.loop.close();
        }
        if (failure != null) {
            throw new AssertionError("a task on a loop threw", failure);
        }
    }

    /** A work request: {@code opcode}, signaled, its elements set by the caller. */
    static SendWork work(long wrId, WorkOpcode opcode, int maxSge) {
        SendWork work = new SendWork(maxSge);
        work.wrId = wrId;
        work.opcode = opcode;
        work.signaled = true;
        return work;
    }

    /** A Send of {@code length} octets at {@code offset} of {@code source} ({@code length} 0: no element). */
    static SendWork send(long wrId, TestMemory.Tagged source, long offset, int length) {
        SendWork work = work(wrId, WorkOpcode.SEND, 1);
        if (length > 0) {
            work.sges.set(0, source.stag(), offset, length);
        }
        return work;
    }

    /** A zero-length Send. */
    static SendWork emptySend(long wrId) {
        return work(wrId, WorkOpcode.SEND, 1);
    }

    /** An RDMA Write of {@code length} octets at {@code offset} of {@code source} to {@code stag} at {@code to}. */
    static SendWork write(long wrId, TestMemory.Tagged source, long offset, int length, int stag, long to) {
        SendWork work = work(wrId, WorkOpcode.RDMA_WRITE, 1);
        work.sges.set(0, source.stag(), offset, length);
        work.remoteStag = stag;
        work.remoteTo = to;
        return work;
    }

    /** An RDMA Read of {@code length} octets from {@code stag} at {@code to} into {@code sink} at {@code offset}. */
    static SendWork read(long wrId, TestMemory.Tagged sink, long offset, int length, int stag, long to) {
        SendWork work = work(wrId, WorkOpcode.RDMA_READ, 1);
        work.sges.set(0, sink.stag(), offset, length);
        work.remoteStag = stag;
        work.remoteTo = to;
        return work;
    }

    /** Fills {@code memory} with octets drawn from {@code seed}. */
    static void fill(MemorySegment memory, long seed) {
        byte[] octets = new byte[(int) memory.byteSize()];
        new Random(seed).nextBytes(octets);
        MemorySegment.copy(MemorySegment.ofArray(octets), 0, memory, 0, octets.length);
    }

    /** Where {@code actual} first differs from {@code expected}, -1 if nowhere: for {@code isEqualTo(-1)}. */
    static long mismatch(MemorySegment expected, MemorySegment actual) {
        return actual.mismatch(expected);
    }

    /** Where {@code memory} first holds something other than 0, -1 if nowhere. */
    static long nonZero(MemorySegment memory) {
        return memory.mismatch(MemorySegment.ofArray(new byte[(int) memory.byteSize()]));
    }
}
