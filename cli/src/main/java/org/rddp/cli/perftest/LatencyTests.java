package org.rddp.cli.perftest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.rddp.cli.Completions;
import org.rddp.cli.PeerException;
import org.rddp.cli.perftest.PerfSession.DataQp;
import org.rddp.cli.perftest.Perftest.Test;
import org.rddp.work.QpState;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * perftest's latency family as {@link PerfSession} runs it: {@code write_lat} (each side watches the last octet of its
 * buffer for the peer's count), {@code read_lat} (the client alone, one Read at a time) and {@code send_lat} (each side
 * answers a receive with a Send); half of each round trip, as perftest reports it.
 */
final class LatencyTests {
    /** The shortest wait a loop's poller sleeps through: shorter ones are polled busily. */
    private static final long SLEEP_GRAIN = 1_000_000;

    private final PerfSession s;

    LatencyTests(PerfSession s) {
        this.s = s;
    }

    /** Write ping-pong: the server writes first; each side polls the last octet of its buffer for the count. */
    PerfResult.Latency writeLatency(int size) throws PeerException {
        DataQp data = s.qps.getFirst();
        MemorySegment source = data.buffer.memory().asSlice(0, size);
        MemorySegment sink = data.buffer.memory().asSlice(s.half, size);
        SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(true)
                .sge(0, data.buffer, 0, size).remote(data.remote.rkey(), data.remote.vaddr());
        int iterations = s.settings.iterations();
        long[] posted = new long[iterations];
        for (int sent = 0, received = 0; sent < iterations || received < iterations;) {
            if (received < iterations && (s.client || sent > 0)) {
                received++;
                awaitByte(sink, size - 1, (byte) received, "the peer's RDMA Write", received);
                if (s.settings.verify() && size > 1) {
                    PerfSession.verify(sink.asSlice(0, size - 1), 0, "RDMA Write " + received);
                }
            }
            if (sent < iterations) {
                source.set(ValueLayout.JAVA_BYTE, size - 1, (byte) (sent + 1));
                posted[sent] = System.nanoTime();
                s.post(data, write, "RDMA Write", sent);
                sent++;
                s.completions.spin("the completion of RDMA Write", sent);
            }
        }
        // as it was, for the next size's source
        source.set(ValueLayout.JAVA_BYTE, size - 1, PerfSession.pattern(size - 1));
        return latency(size, posted);
    }

    /** Read latency: one Read at a time, the client alone. */
    PerfResult.Latency readLatency(int size) throws PeerException {
        DataQp data = s.qps.getFirst();
        SendWorkRequest read = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_READ).signaled(true)
                .sge(0, data.buffer, 0, size).remote(data.remote.rkey(), data.remote.vaddr());
        long[] posted = new long[s.settings.iterations()];
        for (int i = 0; i < posted.length; i++) {
            if (s.settings.verify()) {
                data.buffer.memory().asSlice(0, size).fill((byte) 0);
            }
            posted[i] = System.nanoTime();
            s.post(data, read, "RDMA Read", i);
            s.completions.spin("the completion of RDMA Read", i);
            if (s.settings.verify()) {
                PerfSession.verify(data.buffer.memory().asSlice(0, size), 0, "RDMA Read " + i);
            }
        }
        return latency(size, posted);
    }

    /**
     * Send ping-pong: the client sends first; each side answers a receive with a Send. Under {@code write-lat
     * --rate} each message is an RDMA Write and a Send of no data behind it that tells the peer it is placed
     * ({@link #message}).
     */
    PerfResult.Latency sendLatency(int size) throws PeerException {
        DataQp data = s.qps.getFirst();
        SendWorkRequest[] message = message(data, size);
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).sge(0, data.buffer, s.half, size);
        int iterations = s.settings.iterations();
        long[] posted = new long[iterations];
        for (int sent = 0, received = 0; sent < iterations || received < iterations;) {
            if (received < iterations && (!s.client || sent > 0)) {
                WorkCompletion completion;
                do {
                    // a client offering a load sleeps between its Sends; so does the echo (no busy poll)
                    completion = s.settings.rate() > 0 ? s.completions.next("the peer's Send", 1,
                            s.settings.timeout(), 0) : s.completions.spin("the peer's Send", received);
                } while (completion.opcode() != WcOpcode.RECV);
                received(data, receive, completion, size, received++, iterations);
            }
            if (sent < iterations) {
                posted[sent] = System.nanoTime();
                for (SendWorkRequest each : message) {
                    postWhenRoom(data, each, sent);
                }
                sent++;
            }
        }
        return latency(size, posted);
    }

    /**
     * What one message of a Send test posts: a Send of {@code size} octets; or, for {@code write-lat} under a load,
     * an unsignaled RDMA Write of {@code size} octets into the peer's half and a signaled Send of no data behind it,
     * whose arrival tells the peer the Write is placed (RFC 5040 §5.5: a Send completes after what was sent before it
     * on the stream is placed).
     */
    private SendWorkRequest[] message(DataQp data, int size) {
        if (!writes()) {
            return new SendWorkRequest[] {new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true)
                    .sge(0, data.buffer, 0, size)};
        }
        return new SendWorkRequest[] {
            new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(false).sge(0, data.buffer, 0, size)
                    .remote(data.remote.rkey(), data.remote.vaddr()),
            new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true).noSge()};
    }

    /** Whether messages are Writes with a notifying Send ({@code write-lat --rate}), not Sends. */
    private boolean writes() {
        return s.test == Test.WRITE_LAT;
    }

    /**
     * Posts Send {@code number}, waiting for room if the send queue is full: the server's answers to a client that
     * offers a load ({@link #sendLoad}) with a deeper window than this side's tx depth, while the connection's
     * sending lags (a lossy path). The loop this thread drives sends meanwhile.
     */
    private void postWhenRoom(DataQp data, SendWorkRequest send, int number) throws PeerException {
        long deadline = 0; // read from the clock only when the queue is full: a round trip's post costs no clock
        int status;
        while ((status = data.qp.postSend(send)) == PostStatus.QUEUE_FULL) {
            if (deadline == 0) {
                deadline = System.nanoTime() + s.settings.timeout().toNanos();
            } else if (System.nanoTime() - deadline > 0) {
                throw new PeerException("no room to send Send " + number + " within "
                        + s.settings.timeout().toSeconds() + " s");
            }
            s.driver.spin();
        }
        if (status != PostStatus.OK) {
            s.post(data, send, "Send", number); // fails as the first did, saying why
        }
    }

    /**
     * Send at an offered load, the client's side: a Send of {@code size} octets falls due every 1/{@code rate} s and
     * is posted then, whatever the echoes do, as long as fewer than the tx and rx depths are in flight (the server
     * answers each as in {@link #sendLatency}); each round trip is timed from the post to its echo's receive
     * completion. A Send held back by a full window is timed from when it fell due: its wait is part of what the load
     * costs (no coordinated omission). Between Sends it sleeps, woken by a completion or when the next falls due; one
     * due within a millisecond (a loop poller's grain) it waits for busily. Whole round trips, not halves. Under
     * {@code write-lat} each message is a Write and its notifying Send ({@link #message}), each way.
     */
    PerfResult.Latency sendLoad(int size, int rate) throws PeerException {
        DataQp data = s.qps.getFirst();
        SendWorkRequest[] message = message(data, size);
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1).sge(0, data.buffer, s.half, size);
        int iterations = s.settings.iterations();
        int window = Math.max(1, Math.min(s.txDepth / message.length, s.rxDepth));
        double period = 1e9 / rate;
        long[] posted = new long[iterations];
        long[] took = new long[iterations];
        long start = System.nanoTime();
        long lastHeard = start;
        int sent = 0;
        boolean held = false; // whether the window was full when the next Send fell due: timed from then
        for (int received = 0; received < iterations;) {
            long now = System.nanoTime();
            while (sent < iterations && now - due(start, period, sent) >= 0) {
                if (sent - received == window) {
                    held = true;
                    break;
                }
                posted[sent] = held ? due(start, period, sent) : now;
                s.post(data, message, message.length, writes() ? "RDMA Write and Send" : "Send", sent);
                sent++;
                now = System.nanoTime();
            }
            held &= sent < iterations && now - due(start, period, sent) >= 0; // until it has caught up
            boolean waiting = sent == iterations || sent - received == window;
            long wait = waiting ? s.settings.timeout().toNanos() : due(start, period, sent) - now;
            // a loop's poller sleeps in milliseconds: a Send due sooner is waited for busily
            WorkCompletion completion = wait >= SLEEP_GRAIN ? s.completions.within("an echo", 1,
                    Duration.ofNanos(wait), 0) : s.completions.poll();
            if (completion == null) {
                if (waiting || System.nanoTime() - lastHeard > s.settings.timeout().toNanos()) {
                    throw new PeerException("no echo within " + s.settings.timeout().toSeconds() + " s waiting for "
                            + "Send " + received);
                }
                continue;
            }
            if (completion.opcode() != WcOpcode.RECV) {
                continue;
            }
            lastHeard = System.nanoTime();
            took[received] = lastHeard - posted[received];
            if (s.arrivals != null) {
                s.arrivals.answered(size, posted[received]);
            }
            received(data, receive, completion, size, received++, iterations);
        }
        return PerfResult.Latency.of(size, took, 1);
    }

    /**
     * The peer's Send {@code number} arrived ({@code completion}): its size checked, its data with {@code --verify},
     * and its receive posted again while the run needs more.
     */
    private void received(DataQp data, ReceiveWorkRequest receive, WorkCompletion completion, int size, int number,
            int iterations) throws PeerException {
        int expected = writes() ? 0 : size; // a Write's notification carries no data
        if (completion.byteLength() != expected) {
            throw new PeerException("received a Send of " + completion.byteLength() + " octets, not " + expected
                    + ": give both sides the same test, size and --rate");
        }
        if (s.settings.verify()) {
            PerfSession.verify(data.buffer.memory().asSlice(s.half, size), 0, (writes() ? "RDMA Write " : "Send ")
                    + number);
        }
        if (data.receivesPosted < iterations) {
            data.qp.postReceive(receive);
            data.receivesPosted++;
        }
    }

    /** When the {@code n}-th Send of a load falls due. */
    private static long due(long start, double period, int n) {
        return start + (long) (n * period);
    }

    PerfResult.Latency latency(int size, long[] posted) {
        if (posted.length < 2) {
            return PerfResult.Latency.of(size, posted.length, new long[] {0}, s.test.rttFactor());
        }
        long[] deltas = new long[posted.length - 1];
        for (int i = 0; i < deltas.length; i++) {
            deltas[i] = posted[i + 1] - posted[i];
        }
        java.util.Arrays.sort(deltas);
        int kept = deltas.length > PerfSession.LATENCY_TAIL ? deltas.length - PerfSession.LATENCY_TAIL
                : deltas.length; // as perftest
        return PerfResult.Latency.of(size, posted.length, java.util.Arrays.copyOf(deltas, kept), s.test.rttFactor());
    }

    /**
     * Waits for an octet of registered memory to take {@code value}: spins briefly, then yields, then parks in
     * short naps (on a machine with few cores a spinning thread would starve the transport that brings it).
     * The connection's state is read before the memory, so a peer that writes its last octet and closes at once
     * is not taken for one that left without writing.
     */
    void awaitByte(MemorySegment memory, long offset, byte value, String what, long number)
            throws PeerException {
        QueuePair qp = s.qps.getFirst().qp;
        long deadline = System.nanoTime() + s.settings.timeout().toNanos();
        for (int round = 0; ; round++) {
            boolean ended = round >= Completions.SPINS && qp.state() != QpState.RTS;
            if ((byte) PerfSession.BYTE.getVolatile(memory, offset) == value) {
                return;
            }
            if (ended) {
                s.completions.check(qp, "waiting for " + what + " " + number);
            }
            if (round < Completions.SPINS) {
                s.driver.spin();
            } else {
                s.driver.nap(20_000); // a manual loop blocks in its poller: the Write wakes it
                if (System.nanoTime() - deadline > 0) {
                    throw new PeerException("no answer within " + s.settings.timeout().toSeconds() + " s waiting for "
                            + what + " " + number);
                }
            }
        }
    }
}
