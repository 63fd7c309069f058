package org.rddp.cli.perftest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import org.rddp.cli.Completions;
import org.rddp.cli.PeerException;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * perftest's control connection: strict ping-pong Sends of at most {@value Perftest#MESSAGE} octets, each side
 * keeping exactly one receive posted (posted before connecting, posted again as soon as a message is in). The
 * client sends first and then waits for the answer; the server waits, then answers.
 */
final class ControlChannel {
    private final boolean client;
    private final Completions completions;
    private final QueuePair qp;
    private final MemoryRegion inbox;
    private final MemoryRegion outbox;
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private final SendWorkRequest send = new SendWorkRequest(1);

    ControlChannel(ProtectionDomain pd, Arena arena, boolean client, Duration timeout) {
        this.client = client;
        CompletionQueue cq = pd.device().createCompletionQueue(8);
        completions = new Completions(cq, timeout);
        qp = pd.createQueuePair(new QpAttributes(cq, cq, null, 2, 2, 1, true, completions.events()));
        MemorySegment in = arena.allocate(Perftest.MESSAGE, 8);
        MemorySegment out = arena.allocate(Perftest.MESSAGE, 8);
        inbox = pd.register(in, in.address(), EnumSet.of(Access.LOCAL_WRITE));
        outbox = pd.register(out, out.address(), EnumSet.noneOf(Access.class));
        receive.sge(0, inbox, 0, Perftest.MESSAGE);
    }

    /** The queue pair to connect or accept, its receive posted. */
    QueuePair armed() {
        qp.postReceive(receive);
        return qp;
    }

    /** Exchanges {@code mine} for the peer's message, waiting as long as the timeout. */
    byte[] exchange(byte[] mine, String what) throws PeerException {
        return exchange(mine, what, completions.timeout());
    }

    /** Exchanges {@code mine} for the peer's message, waiting up to {@code wait} for it. */
    byte[] exchange(byte[] mine, String what, Duration wait) throws PeerException {
        if (client) {
            post(mine, what);
            return take(what, wait);
        }
        byte[] theirs = take(what, wait);
        post(mine, what);
        return theirs;
    }

    private void post(byte[] message, String what) throws PeerException {
        outbox.memory().copyFrom(MemorySegment.ofArray(message));
        send.opcode(WorkOpcode.SEND).signaled(true).sge(0, outbox, 0, message.length);
        int status = qp.postSend(send);
        if (status != 0) {
            throw new PeerException("posting the control Send (" + what + ") failed: "
                    + completions.postFailed(qp, status));
        }
    }

    private byte[] take(String what, Duration wait) throws PeerException {
        while (true) {
            WorkCompletion completion = completions.next("the peer's message (" + what + ")", 1, wait);
            if (completion.opcode() == WcOpcode.RECV) {
                byte[] message = inbox.memory().asSlice(0, completion.byteLength()).toArray(ValueLayout.JAVA_BYTE);
                qp.postReceive(receive);
                return message;
            }
        }
    }

    /** Starts the disconnect of the control connection; returns its queue pair, to wait for the peer's answer. */
    QueuePair close() {
        qp.disconnect();
        return qp;
    }
}
