package org.rddp.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A manual loop's duty cycle, driven step by step by this thread. */
class LoopTest {
    /** A poller with no I/O that runs {@code onPoll} at each poll, as a transport's reads would run their upcalls. */
    private static Poller polling(Runnable onPoll) {
        Poller parking = Poller.parking();
        return new Poller() {
            @Override
            public int poll() {
                onPoll.run();
                return 1;
            }

            @Override
            public void await(long timeoutNanos) {
                parking.await(timeoutNanos);
            }

            @Override
            public void wakeup() {
                parking.wakeup();
            }

            @Override
            public void close() {
                parking.close();
            }
        };
    }

    @Test
    void whatThePollQueuesRunsInTheSameCycle() {
        AtomicReference<Loop> self = new AtomicReference<>();
        AtomicInteger ran = new AtomicInteger();
        // usrsctp raises a socket's readiness from inside the stack, which queues the read as a command
        try (Loop loop = Loop.manual("same-cycle", polling(() -> self.get().execute(ran::incrementAndGet)))) {
            self.set(loop);
            loop.invoke();
            assertThat(ran).as("commands the poll queued, run by the cycle that polled").hasValue(1);
            loop.invoke();
            assertThat(ran).hasValue(2);
        }
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // without the bound the cycle never returns
    void aCommandThatQueuesAnotherDoesNotKeepTheCycleGoing() {
        AtomicReference<Loop> self = new AtomicReference<>();
        AtomicInteger ran = new AtomicInteger();
        AtomicReference<Runnable> again = new AtomicReference<>();
        again.set(() -> {
            if (ran.incrementAndGet() < 4) { // then it stops, so that the loop's close runs out
                self.get().execute(again.get());
            }
        });
        try (Loop loop = Loop.manual("bounded", polling(() -> { }))) {
            self.set(loop);
            loop.execute(again.get());
            loop.invoke();
            assertThat(ran).as("runs in one cycle: before the poll, then once after it").hasValue(2);
            loop.invoke();
            assertThat(ran).hasValue(4);
        }
    }

    /** An {@link Error} out of a command is counted, reported and survived: the commands after it still run. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLoopWithAThreadOfItsOwnRunsOnAfterACommandThrowsAnError() throws Exception {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        long before = Loop.errorsInProcess();
        try (Loop loop = Loop.start("survivor", Poller.parking(), IdleStrategy.BLOCKING,
                (where, error) -> reported.add(error))) {
            loop.execute(() -> {
                throw new OutOfMemoryError("Java heap space (a test's)");
            });
            loop.execute(() -> {
                throw new StackOverflowError();
            });
            CountDownLatch after = new CountDownLatch(1);
            loop.execute(after::countDown);
            assertThat(after.await(10, TimeUnit.SECONDS)).as("the command after the errors ran").isTrue();
            assertThat(loop.running()).isTrue();
            assertThat(loop.errors()).isEqualTo(2);
            assertThat(loop.failure()).isInstanceOf(OutOfMemoryError.class);
            assertThat(reported).hasSize(2).first().isInstanceOf(OutOfMemoryError.class);
            assertThat(Loop.errorsInProcess() - before).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void aHandlerThatThrowsDoesNotEndTheLoopEither() {
        AtomicInteger ran = new AtomicInteger();
        try (Loop loop = Loop.manual("bad-handler", Poller.parking(), (where, error) -> {
            throw new IllegalStateException("the handler's own bug");
        })) {
            loop.execute(() -> {
                throw new IllegalArgumentException("a command's bug");
            });
            loop.execute(ran::incrementAndGet);
            loop.invoke();
            assertThat(ran).hasValue(1);
            assertThat(loop.errors()).isOne();
        }
    }

    /**
     * A poller that keeps failing is the loop's own I/O broken: after a bound the loop stops, what was queued still
     * runs, and every later command is refused loudly instead of queued for nobody.
     */
    @Test
    void aLoopWhosePollerKeepsFailingStopsAndRefusesCommands() {
        AtomicInteger ran = new AtomicInteger();
        Loop loop = Loop.manual("broken-poller", polling(() -> {
            throw new java.io.UncheckedIOException(new java.io.IOException("epoll_wait: bad file descriptor"));
        }), (where, error) -> { });
        try {
            for (int cycle = 1; cycle < Loop.POLLER_FAILURES_TO_STOP; cycle++) {
                loop.invoke();
                assertThat(loop.running()).as("after %d failed polls", cycle).isTrue();
            }
            loop.execute(ran::incrementAndGet);
            loop.invoke();
            assertThat(loop.running()).isFalse();
            assertThat(loop.stopCause()).hasMessageContaining("bad file descriptor");
            assertThat(ran).as("what was queued before it stopped").hasValue(1);
            assertThatThrownBy(() -> loop.execute(ran::incrementAndGet))
                    .isInstanceOf(RejectedExecutionException.class)
                    .hasMessageContaining("broken-poller").hasMessageContaining("bad file descriptor");
        } finally {
            loop.close();
        }
    }

    /** The owner thread queueing into a full queue cannot wait for itself: its command runs in the next cycle. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theOwnerQueueingIntoAFullQueueDoesNotSpin() {
        AtomicInteger ran = new AtomicInteger();
        try (Loop loop = Loop.manual("full", Poller.parking())) {
            for (int i = 0; i < (1 << 16) + 10; i++) {
                loop.execute(ran::incrementAndGet);
            }
            loop.invoke();
            assertThat(ran).hasValue((1 << 16) + 10);
        }
    }

    /**
     * The loop keeps its own time: deadlines run on its thread, earliest first, and a cancelled one never runs. The
     * loop blocks in its poller with no limit of its own (a parking poller), so it is the deadline that wakes it.
     */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void deadlinesRunOnTheOwnerThreadEarliestFirstAndACancelledOneNever() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch last = new CountDownLatch(1);
        try (Loop loop = Loop.start("timers", Poller.parking(), IdleStrategy.BLOCKING)) {
            loop.execute(() -> {
                long now = System.nanoTime();
                loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(60), () -> {
                    ran.add("third on " + Thread.currentThread().getName());
                    last.countDown();
                });
                loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(20), () -> ran.add("first"));
                Deadline cancelled = loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(30), () -> ran.add("never"));
                loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(40), () -> ran.add("second"));
                cancelled.cancel();
                assertThat(cancelled.pending()).isFalse();
            });
            assertThat(last.await(10, TimeUnit.SECONDS)).as("the idle loop woke for its deadlines").isTrue();
            assertThat(ran).containsExactly("first", "second", "third on timers");
        }
    }

    /** A manual loop's idle wait ends at its earliest deadline, and what the deadline throws is survived. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aManualLoopIdlesNoLongerThanItsEarliestDeadline() {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        AtomicInteger ran = new AtomicInteger();
        try (Loop loop = Loop.manual("manual-timers", Poller.parking(), (where, error) -> reported.add(error))) {
            long now = System.nanoTime();
            loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(10), () -> {
                throw new StackOverflowError();
            });
            Deadline second = loop.schedule(now + TimeUnit.MILLISECONDS.toNanos(20), ran::incrementAndGet);
            assertThat(loop.deadlines()).isEqualTo(2);
            while (second.pending()) {
                loop.idle(-1); // no limit of its own: without the deadline it would park for ever
            }
            assertThat(ran).hasValue(1);
            assertThat(reported).singleElement().isInstanceOf(StackOverflowError.class);
            assertThat(loop.deadlines()).isZero();
        }
    }

    @Test
    void aDeadlineIsSetOnTheOwnerThreadOnly() throws Exception {
        try (Loop loop = Loop.start("not-yours", Poller.parking(), IdleStrategy.BLOCKING)) {
            assertThatThrownBy(() -> loop.schedule(System.nanoTime(), () -> { }))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("owner thread");
        }
    }

    /** Closing a loop from another thread: what was queued before still runs, then its thread ends. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLoopClosedFromAnotherThreadRunsWhatWasQueuedAndEnds() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        AtomicReference<Thread> thread = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Loop loop = Loop.start("closed-from-afar", Poller.parking(), IdleStrategy.BLOCKING);
        loop.execute(() -> {
            thread.set(Thread.currentThread());
            started.countDown();
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 100; i++) {
            loop.execute(ran::incrementAndGet);
        }
        loop.close();
        assertThat(ran).hasValue(100);
        assertThat(thread.get().isAlive()).as("close joins the loop's thread").isFalse();
        assertThat(loop.running()).isFalse();
        loop.execute(ran::incrementAndGet); // a closed loop drops commands: its streams ended with it
        assertThat(ran).hasValue(100);
    }

    /** One thread driving several manual loops: each runs only when this thread drives it, each its own commands. */
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void oneThreadDrivesSeveralManualLoops() throws Exception {
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        try (Loop a = Loop.manual("a", Poller.parking()); Loop b = Loop.manual("b", Poller.parking())) {
            assertThat(Loop.ownedByCurrentThread()).containsExactly(a, b);
            a.execute(first::incrementAndGet);
            b.execute(second::incrementAndGet);
            assertThat(first).hasValue(0);
            assertThat(Loop.invokeOwned()).isEqualTo(2);
            assertThat(first).hasValue(1);
            assertThat(second).hasValue(1);
            java.util.concurrent.CompletableFuture<String> answer = new java.util.concurrent.CompletableFuture<>();
            Thread other = Thread.ofPlatform().start(() -> b.execute(() -> answer.complete("from b")));
            assertThat(Loop.joinOwned(answer, java.time.Duration.ofSeconds(10))).isEqualTo("from b");
            other.join();
            AtomicReference<Throwable> refused = new AtomicReference<>();
            Thread stranger = Thread.ofPlatform().start(() -> {
                try {
                    a.invoke();
                } catch (IllegalStateException e) {
                    refused.set(e);
                }
            });
            stranger.join();
            assertThat(refused.get()).as("another thread may not drive it").hasMessageContaining("is driven by thread");
        }
        assertThat(Loop.ownedByCurrentThread()).isEmpty();
    }
}
