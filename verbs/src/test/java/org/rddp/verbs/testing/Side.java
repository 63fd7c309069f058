package org.rddp.verbs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.LinkedBlockingQueue;
import org.rddp.work.QpEvent;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.SharedReceiveQueue;
import org.rddp.verbs.WorkCompletion;

/** One end of a test connection: device, protection domain, completion queue, queue pair and its events. */
public final class Side {
    /**
     * How long a test waits for anything before it fails: 20 s, or {@code -Drddp.test.timeout-seconds} where
     * everything runs slower (the VM suites, under emulation).
     */
    public static final Duration TIMEOUT = Duration.ofSeconds(Integer.getInteger("rddp.test.timeout-seconds", 20));

    /** An asynchronous event as the handler saw it. */
    public record Event(QpEvent event, TerminateHeader terminate, String detail) {
    }

    final String name;
    final RdmaDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    QueuePair qp;
    /** Whether the event handler throws after it recorded each event, as a buggy application's might. */
    volatile boolean handlerThrows;
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(4);

    Side(String name, int cqCapacity) {
        this.name = name;
        this.device = new RdmaDevice(name);
        this.pd = device.allocateProtectionDomain();
        this.cq = device.createCompletionQueue(cqCapacity);
    }

    /** Creates this side's queue pair (IDLE), optionally on a shared receive queue. */
    QueuePair createQueuePair(int depth, SharedReceiveQueue srq) {
        return createQueuePair(depth, srq, true);
    }

    /** As above; without {@code signalAll}, a send request completes visibly only when signaled. */
    QueuePair createQueuePair(int depth, SharedReceiveQueue srq, boolean signalAll) {
        qp = pd.createQueuePair(new QpAttributes(cq, cq, srq, depth, depth, 4, signalAll,
                (pair, event, terminate, detail) -> {
                    events.add(new Event(event, terminate, detail));
                    if (handlerThrows) {
                        throw new IllegalStateException("a bug in " + name + "'s event handler, at " + event);
                    }
                }));
        return qp;
    }

    /** A registered region of {@code size} octets, zero-filled, with {@code rights}. */
    MemoryRegion region(long size, Access... rights) {
        MemorySegment memory = Arena.ofAuto().allocate(Math.max(1, size), 8);
        EnumSet<Access> set = EnumSet.noneOf(Access.class);
        set.addAll(java.util.List.of(rights));
        return pd.register(memory, set);
    }

    /** Posts a receive of {@code length} octets at {@code offset} into {@code region}. */
    void postReceive(MemoryRegion region, long offset, int length, long wrId) {
        receive.wrId(wrId).sge(0, region, offset, length);
        assertThat(PostStatus.name(qp.postReceive(receive))).isEqualTo("OK");
    }

    /** Posts a receive from raw values (an lkey that may be bogus). */
    void postReceiveRaw(int lkey, long to, int length, long wrId) {
        receive.wrId(wrId).sge(0, lkey, to, length);
        assertThat(PostStatus.name(qp.postReceive(receive))).isEqualTo("OK");
    }

    /**
     * Asserts that no completion is queued once {@code loop}, this side's owner thread, has run everything
     * handed to it so far: nothing is left that could still complete.
     */
    void assertNoCompletionOnceQuiet(org.rddp.loop.Loop loop) throws Exception {
        java.util.concurrent.CompletableFuture<Void> barrier = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> barrier.complete(null));
        Waits.join(barrier);
        assertNoCompletion();
    }

    /** Posts a send-queue request and checks it was taken. */
    void post(SendWorkRequest request) {
        assertThat(PostStatus.name(qp.postSend(request))).as("%s post on %s, events %s", name, qp, events)
                .isEqualTo("OK");
    }

    /** The next completion, waiting up to {@link #TIMEOUT}. */
    WorkCompletion next() {
        WorkCompletion completion = new WorkCompletion();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            while (!cq.poll(completion)) {
                cq.requestNotification(false);
                if (cq.poll(completion)) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + ": no completion within " + TIMEOUT + "; " + qp + ", events "
                            + events);
                }
                cq.awaitNotification(Duration.ofNanos(left)); // woken by the next completion; the loop polls
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return completion;
    }

    /** Asserts that no completion is queued right now. */
    void assertNoCompletion() {
        WorkCompletion probe = new WorkCompletion();
        assertThat(cq.poll(probe)).as("%s: unexpected completion %s", name, probe).isFalse();
    }

    /** Waits for the next event of any of {@code types}, skipping others. */
    Event awaitAny(QpEvent... types) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            while (true) {
                Event event = Waits.poll(events, Math.max(0, deadline - System.nanoTime()));
                if (event == null) {
                    throw new AssertionError(name + ": none of " + java.util.Arrays.toString(types) + " within "
                            + TIMEOUT + "; qp " + qp);
                }
                for (QpEvent type : types) {
                    if (event.event() == type) {
                        return event;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits for the next event of {@code type}, skipping others. */
    Event await(QpEvent type) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                Event event = Waits.poll(events, Math.max(0, left));
                if (event == null) {
                    throw new AssertionError(name + ": no " + type + " within " + TIMEOUT + "; qp " + qp);
                }
                if (event.event() == type) {
                    return event;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits until the queue pair reaches {@code state} (it gets there on its owner thread). */
    void awaitState(org.rddp.work.QpState state) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (qp.state() != state) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + ": still " + qp.state() + ", expected " + state + "; events " + events);
            }
            Waits.step(); // the state changes on the loop with no event of its own to wait for
        }
    }
}
