package org.rddp.transport.sctp.io;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.transport.sctp.SctpSocket;

/**
 * For {@link SctpSocket} implementations: counts the threads inside a native call on one socket, so that a close
 * frees the socket only once the last of them has left. Freeing under a running call lets the call read freed
 * memory (usrsctp) or a descriptor the kernel has since given to another socket. Two CAS per call.
 */
public final class SocketCalls {
    private static final int CLOSED = 1 << 30;

    private final AtomicInteger users = new AtomicInteger();
    private final Runnable free;

    /** {@code free} releases the native socket; it runs once, after {@link #close}, on the last thread out. */
    public SocketCalls(Runnable free) {
        this.free = free;
    }

    /** Counts a call in; fails once the socket is closed. */
    public void enter() throws IOException {
        if (!tryEnter()) {
            throw new IOException("the SCTP socket is closed");
        }
    }

    /** Counts a call in, or returns false once the socket is closed. */
    public boolean tryEnter() {
        while (true) {
            int now = users.get();
            if ((now & CLOSED) != 0) {
                return false;
            }
            if (users.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** Counts a call out; the last one out after a close frees the socket. */
    public void exit() {
        if (users.decrementAndGet() == CLOSED) {
            free.run();
        }
    }

    /** Refuses further calls and frees the socket now or when the last call leaves; false if already closed. */
    public boolean close() {
        int before = users.getAndUpdate(now -> now | CLOSED);
        if ((before & CLOSED) != 0) {
            return false;
        }
        if (before == 0) {
            free.run();
        }
        return true;
    }
}
