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
}
