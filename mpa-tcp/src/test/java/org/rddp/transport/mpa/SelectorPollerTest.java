package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * A loop with few streams tries each directly every cycle; one that found nothing {@value SelectorPoller#QUIET_CYCLES}
 * cycles in a row and says it may rest is left to the selector (no read per cycle), and tried directly again once
 * its socket brought something. One that may not rest (it holds something to write) is tried every cycle.
 */
class SelectorPollerTest {

    /** Reads what its socket has; counts how often it was run. */
    private static final class Reader implements SelectorPoller.Handler {
        private final SocketChannel channel;
        private final boolean restful;
        private final ByteBuffer in = ByteBuffer.allocate(64);
        int runs;
        long read;

        Reader(SocketChannel channel, boolean restful) {
            this.channel = channel;
            this.restful = restful;
        }

        @Override
        public int ready(int readyOps) {
            runs++;
            try {
                in.clear();
                int got = channel.read(in);
                read += Math.max(0, got);
                return Math.max(0, got);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void failed(Throwable error) {
            throw new AssertionError(error);
        }

        @Override
        public boolean restful() {
            return restful;
        }
    }

    @Test
    void aQuietStreamRestsUntilItsSocketBringsSomethingAndOneThatMayNotRestIsTriedEveryCycle() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        SelectorPoller poller = new SelectorPoller();
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
                SocketChannel quietEnd = SocketChannel.open(server.getLocalAddress());
                SocketChannel quiet = server.accept();
                SocketChannel busyEnd = SocketChannel.open(server.getLocalAddress());
                SocketChannel busy = server.accept()) {
            quiet.configureBlocking(false);
            busy.configureBlocking(false);
            Reader resting = new Reader(quiet, true);
            Reader tried = new Reader(busy, false);
            poller.register(quiet, SelectionKey.OP_READ, resting);
            poller.register(busy, SelectionKey.OP_READ, tried);

            for (int i = 0; i < SelectorPoller.QUIET_CYCLES; i++) {
                poller.poll();
            }
            assertThat(resting.runs).as("tried every cycle until quiet that long")
                    .isEqualTo(SelectorPoller.QUIET_CYCLES);
            for (int i = 0; i < 10; i++) {
                poller.poll();
            }
            assertThat(resting.runs).as("resting: not tried directly").isEqualTo(SelectorPoller.QUIET_CYCLES);
            assertThat(tried.runs).as("may not rest: tried every cycle").isEqualTo(SelectorPoller.QUIET_CYCLES + 10);

            quietEnd.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            int cycles = 0;
            while (resting.read < 3) { // the selector finds it within WATCH_INTERVAL cycles (the write is on loopback)
                poller.poll();
                assertThat(++cycles).as("cycles until the resting stream read").isLessThan(1_000_000);
            }
            int runs = resting.runs;
            for (int i = 0; i < 5; i++) {
                poller.poll();
            }
            assertThat(resting.runs - runs).as("tried directly again, every cycle").isEqualTo(5);
            assertThat(poller.registered()).isEqualTo(2);
            busyEnd.close();
        } finally {
            poller.close();
        }
    }

    /**
     * A stream that asks to be run every cycle (it carried what it holds over to the next one) is, resting or not,
     * while the loop tries its streams directly; a loop with more streams than it tries directly says no.
     */
    @Test
    void aStreamThatAsksToBeRunEveryCycleIsUnlessTheLoopHasTooManyToTryDirectly() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        SelectorPoller poller = new SelectorPoller();
        java.util.List<SocketChannel> channels = new java.util.ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
            java.util.List<Reader> readers = new java.util.ArrayList<>();
            for (int i = 0; i <= SelectorPoller.DIRECT_LIMIT; i++) {
                channels.add(SocketChannel.open(server.getLocalAddress()));
                SocketChannel accepted = server.accept();
                channels.add(accepted);
                accepted.configureBlocking(false);
                Reader reader = new Reader(accepted, true);
                readers.add(reader);
                if (i < SelectorPoller.DIRECT_LIMIT) {
                    poller.register(accepted, SelectionKey.OP_READ, reader);
                }
            }
            Reader first = readers.getFirst();
            assertThat(poller.runEachCycle(first)).as("tried directly: yes").isTrue();
            for (int i = 0; i <= SelectorPoller.QUIET_CYCLES; i++) {
                poller.poll();
            }
            assertThat(poller.resting()).isEqualTo(SelectorPoller.DIRECT_LIMIT);
            assertThat(poller.runEachCycle(first)).as("resting: tried directly again").isTrue();
            assertThat(poller.resting()).isEqualTo(SelectorPoller.DIRECT_LIMIT - 1);
            int runs = first.runs;
            for (int i = 0; i < 5; i++) {
                poller.poll();
            }
            assertThat(first.runs - runs).as("runs in the next cycles").isEqualTo(5);

            SocketChannel last = channels.getLast();
            poller.register(last, SelectionKey.OP_READ, readers.getLast());
            assertThat(poller.runEachCycle(first)).as("more streams than the loop tries directly").isFalse();
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
            poller.close();
        }
    }

    /**
     * Resting is bounded by the direct limit: with more quiet streams than that the loop asks the selector about all
     * of them and rests none; with as many as the limit, each rests.
     */
    @Test
    void noMoreStreamsRestThanTheLoopWouldTryDirectly() throws Exception {
        assertThat(restingAfterQuiet(SelectorPoller.DIRECT_LIMIT + 1)).isZero();
        assertThat(restingAfterQuiet(SelectorPoller.DIRECT_LIMIT)).isEqualTo(SelectorPoller.DIRECT_LIMIT);
    }

    /** Registers {@code streams} quiet connections that may rest, polls past the quiet limit, counts the resting. */
    private static int restingAfterQuiet(int streams) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        SelectorPoller poller = new SelectorPoller();
        java.util.List<SocketChannel> channels = new java.util.ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
            for (int i = 0; i < streams; i++) {
                channels.add(SocketChannel.open(server.getLocalAddress()));
                SocketChannel accepted = server.accept();
                channels.add(accepted);
                accepted.configureBlocking(false);
                poller.register(accepted, SelectionKey.OP_READ, new Reader(accepted, true));
            }
            for (int i = 0; i <= SelectorPoller.QUIET_CYCLES; i++) {
                poller.poll();
            }
            assertThat(poller.registered()).isEqualTo(streams);
            return poller.resting();
        } finally {
            for (SocketChannel channel : channels) {
                channel.close();
            }
            poller.close();
        }
    }
}
