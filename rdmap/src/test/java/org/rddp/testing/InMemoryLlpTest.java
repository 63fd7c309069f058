package org.rddp.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.TerminateCause;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpSink;
import org.rddp.llp.PlacementTarget;
import org.rddp.loop.IdleStrategy;
import org.rddp.loop.Loop;
import org.rddp.loop.Poller;

/**
 * The in-memory LLP's own promise, which every test above it relies on: a lost connection reaches the sink
 * exactly once, however its loss and the engine's start interleave.
 */
class InMemoryLlpTest {
    private final Loop loopA = Loop.start("end-a", Poller.parking(), IdleStrategy.BLOCKING);
    private final Loop loopB = Loop.start("end-b", Poller.parking(), IdleStrategy.BLOCKING);
    private final InMemoryLlp[] ends = InMemoryLlp.pair(loopA, LlpParameters.of(1, 1), loopB, LlpParameters.of(1, 1),
            1024, 4);
    private final Recorder sink = new Recorder();

    /** Records the closes it hears. */
    private static final class Recorder implements LlpSink {
        final LinkedBlockingQueue<String> closes = new LinkedBlockingQueue<>();

        @Override
        public boolean placeTagged(DdpSegment header, int payloadLength, PlacementTarget target) {
            return false;
        }

        @Override
        public void onSegment(MemorySegment buffer, long offset, int length, boolean payloadPlaced) {
            // nothing is sent in these tests
        }

        @Override
        public void onWritable() {
            // nothing is sent in these tests
        }

        @Override
        public void onLlpError(TerminateCause cause, String detail) {
            closes.add("error " + detail);
        }

        @Override
        public void onClosed(boolean graceful, String reason) {
            closes.add((graceful ? "graceful: " : "lost: ") + reason);
        }
    }

    @AfterEach
    void tearDown() {
        loopA.close();
        loopB.close();
    }

    @Test
    void aConnectionLostBeforeTheEngineStartsIsReportedWhenItStarts() throws Exception {
        ends[0].dropConnection();
        loopA.execute(() -> ends[0].start(sink));
        assertThat(sink.closes.poll(20, TimeUnit.SECONDS)).isEqualTo("lost: connection lost");
        assertOnlyOnce();
    }

    @Test
    void anEngineStartingOnTheOwnerThreadHearsOfALossQueuedBeforeIt() throws Exception {
        // the engine starts in a task of its loop; a loss another thread hands over meanwhile is queued ahead of
        // anything start() would queue, so start() must take the sink at once
        loopA.execute(() -> {
            ends[0].dropConnection();
            ends[0].start(sink);
        });
        assertThat(sink.closes.poll(20, TimeUnit.SECONDS)).isEqualTo("lost: connection lost");
        assertOnlyOnce();
    }

    private void assertOnlyOnce() throws Exception {
        CompletableFuture<Void> quiet = new CompletableFuture<>();
        loopA.execute(() -> quiet.complete(null));
        quiet.get(20, TimeUnit.SECONDS);
        assertThat(sink.closes).isEmpty();
    }
}
