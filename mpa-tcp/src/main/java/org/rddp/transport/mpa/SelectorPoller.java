package org.rddp.transport.mpa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.rddp.loop.Poller;

/**
 * The I/O of an MPA loop: one {@link Selector} over the TCP connections of every stream on the loop. A duty cycle
 * selects without blocking and hands each ready key to its handler; an idle loop blocks in {@code select} until a
 * socket is ready or a command wakes it.
 */
final class SelectorPoller implements Poller {
    /** What a registered channel runs when it is ready; on the loop thread. */
    interface Handler {
        /** The channel is ready for {@code readyOps}. */
        void ready(int readyOps);
    }

    private final Selector selector;

    SelectorPoller() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for an MPA loop", e);
        }
    }

    /** Watches {@code channel} (non-blocking) for {@code ops}; {@code handler} runs when it is ready. Loop thread. */
    SelectionKey register(SelectableChannel channel, int ops, Handler handler) throws ClosedChannelException {
        return channel.register(selector, ops, handler);
    }

    /** Channels registered now. */
    int registered() {
        return selector.keys().size();
    }

    @Override
    public int poll() {
        try {
            selector.selectNow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int work = 0;
        Iterator<SelectionKey> ready = selector.selectedKeys().iterator(); // includes what an await() selected
        while (ready.hasNext()) {
            SelectionKey key = ready.next();
            ready.remove();
            if (key.isValid()) {
                work++;
                ((Handler) key.attachment()).ready(key.readyOps());
            }
        }
        return work;
    }

    @Override
    public void await(long timeoutNanos) {
        try {
            if (timeoutNanos < 0) {
                selector.select();
            } else if (timeoutNanos > 0) {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // the loop ends anyway
        }
    }
}
