package org.rddp.transport.sctp.io;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.rddp.transport.sctp.SctpSocket;

/**
 * What the native backends' sockets (usrsctp's, the kernel's) share: the ready hook, closing once no thread is
 * inside a call ({@link SocketCalls}), and reading SCTP notifications (RFC 6458 layouts, each stack's own code
 * points).
 */
public abstract class NativeSctpSocket implements SctpSocket {
    /** A stack's notification and association-state code points. */
    public record Notifications(int assocChange, int shutdownEvent, int adaptationIndication, int commLost,
            int shutdownComplete, int cantStartAssociation) {
    }

    /** Counts the calls into the native socket; a subclass wraps every one in enter/exit. */
    protected final SocketCalls calls = new SocketCalls(this::freeOnce);
    private final InetSocketAddress remote;
    private final int streams;
    private final int maxMessage;
    private volatile boolean abortive;
    private volatile Runnable hook = () -> { };

    /**
     * @param streams    the association's streams each way
     * @param maxMessage its largest user message that avoids SCTP and IP fragmentation
     */
    @SuppressWarnings("this-escape") // calls only frees through it after close, long after construction
    protected NativeSctpSocket(InetSocketAddress remote, int streams, int maxMessage) {
        this.remote = remote;
        this.streams = streams;
        this.maxMessage = maxMessage;
    }

    /** For the stack's readiness upcall: runs the ready hook (it only hands off). */
    protected final void ready() {
        hook.run();
    }

    @Override
    public final void onReady(Runnable newHook) {
        this.hook = newHook;
        newHook.run(); // whatever arrived before the hook was installed
    }

    @Override
    public final InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public final int streams() {
        return streams;
    }

    @Override
    public final int maxMessage() {
        return maxMessage;
    }

    @Override
    public final void close() {
        release(false);
    }

    @Override
    public final void abort() {
        release(true);
    }

    /**
     * Refuses further calls; the native socket is freed now if no other thread is inside a call on it, else when
     * the last one leaves (freeing under a running call lets it read freed memory or a reused descriptor).
     */
    private void release(boolean abortively) {
        if (abortively) {
            this.abortive = true; // a close after an abort does not make it graceful
        }
        if (calls.close()) {
            hook = () -> { };
        }
    }

    private void freeOnce() {
        free(abortive);
    }

    /** Frees the native socket, shutting the association down gracefully or aborting it. Runs once. */
    protected abstract void free(boolean abortively);

    /** Fills {@code into} from the notification in {@code buffer}, given the stack's code points. */
    protected static void describeNotification(MemorySegment buffer, int length, ReceivedMessage into,
            Notifications codes) {
        into.kind = ReceivedMessage.OTHER;
        if (length < 8) {
            return;
        }
        int type = buffer.get(JAVA_SHORT, 0) & 0xFFFF;
        if (type == codes.adaptationIndication() && length >= 12) {
            into.kind = ReceivedMessage.ADAPTATION;
            into.value = buffer.get(JAVA_INT, 8); // host order, unlike the PPID
        } else if (type == codes.shutdownEvent()) {
            into.kind = ReceivedMessage.SHUTDOWN;
        } else if (type == codes.assocChange() && length >= 10) {
            int state = buffer.get(JAVA_SHORT, 8) & 0xFFFF;
            if (state == codes.commLost() || state == codes.shutdownComplete()
                    || state == codes.cantStartAssociation()) {
                into.kind = ReceivedMessage.ASSOCIATION_DOWN;
                into.value = state == codes.commLost() ? ReceivedMessage.LOST : state == codes.shutdownComplete()
                        ? ReceivedMessage.SHUT_DOWN : ReceivedMessage.NOT_STARTED;
            }
        }
    }
}
