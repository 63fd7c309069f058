package org.rddp.loop;

import static org.assertj.core.api.Assertions.assertThat;

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
}
