package org.rddp.cli.perftest;

import java.util.Locale;
import java.util.function.Consumer;
import org.rddp.cli.PeerException;
import org.rddp.cli.perftest.PerfSession.DataQp;
import org.rddp.cli.perftest.Perftest.Test;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * perftest's bandwidth family as {@link PerfSession} runs it: {@code write_bw}, {@code read_bw} (the client keeps
 * tx depth operations outstanding per queue pair, the server reports nothing until the client's results come over the
 * control connection) and {@code send_bw} (the server's receives, re-posted while more are due, and its credits to
 * the client as RDMA Writes).
 */
final class BandwidthTests {
    private final PerfSession s;

    BandwidthTests(PerfSession s) {
        this.s = s;
    }

    void rdmaBandwidth(Consumer<PerfResult> results) throws PeerException {
        s.exchangeDests();
        s.exchangeDests();
        s.handshake();
        if (s.client) {
            PerfResult.Bandwidth last = null;
            for (int size : s.settings.sizes()) {
                last = bandwidthClient(size);
                results.accept(last);
            }
            s.handshake();
            s.control.exchange(Perftest.quad(last.bytes()), "report: size");
            s.control.exchange(Perftest.quad(last.iterations()), "report: iterations");
            s.control.exchange(Perftest.real(last.peakMbps()), "report: peak");
            s.control.exchange(Perftest.real(last.averageMbps()), "report: average");
            s.control.exchange(Perftest.real(last.messageRateMpps()), "report: message rate");
        } else {
            s.control.exchange(s.qps.getFirst().mine.encode(), "the client's end of its run",
                    PerfSession.WHILE_PEER_RUNS);
            long size = Perftest.quad(s.control.exchange(new byte[8], "report: size"));
            long iterations = Perftest.quad(s.control.exchange(new byte[8], "report: iterations"));
            double peak = Perftest.real(s.control.exchange(new byte[8], "report: peak"));
            double average = Perftest.real(s.control.exchange(new byte[8], "report: average"));
            double rate = Perftest.real(s.control.exchange(new byte[8], "report: message rate"));
            if (s.settings.verify() && s.test == Test.WRITE_BW) {
                for (int written : s.settings.sizes()) {
                    s.verifySlots(written, true);
                }
            }
            results.accept(new PerfResult.Bandwidth((int) size, iterations, peak, average, rate));
        }
        s.handshake();
    }

    void sendBandwidth(Consumer<PerfResult> results) throws PeerException {
        s.exchangeDests();
        s.handshake();
        s.exchangeDests();
        boolean all = s.settings.sizes().size() > 1;
        boolean sender = s.client != s.reversed; // perftest's --reversed: the server sends
        for (int size : s.settings.sizes()) {
            if (!sender) {
                s.postReceives(size);
            }
            s.handshake();
            for (DataQp data : s.qps) {
                data.credit.memory().set(PerfSession.CREDIT_VALUE, PerfSession.CREDIT_SINK, 0);
            }
            results.accept(sender ? bandwidthClient(size) : sendBandwidthServer(size));
            if (all) {
                s.handshake();
            }
        }
        s.handshake();
    }

    /**
     * Write, Read or Send bandwidth as the client (as the server of a reversed Send run): txDepth outstanding per
     * queue pair, round-robin; one request in {@code cqMod} signaled (and the last), the others completing unseen with
     * it, as perftest's {@code --cq-mod};
     * posted {@code postList} at a time in one call ({@code --post-list}). A run with a duration that ends with
     * unsignaled requests outstanding posts one more, signaled, to see them complete; a Send run keeps a receive of the
     * server's in reserve for it, since the server's clock may stop it crediting before the client's last Sends land.
     */
    PerfResult.Bandwidth bandwidthClient(int size) throws PeerException {
        int inc = Perftest.inc(size, s.cacheLine);
        int slots = size <= s.cycle / 2 ? s.cycle / inc : 1;
        boolean send = s.test.opcode == WorkOpcode.SEND;
        if (s.settings.verify() && s.test.opcode == WorkOpcode.RDMA_READ) {
            for (DataQp data : s.qps) {
                data.buffer.memory().asSlice(0, s.half).fill((byte) 0);
            }
        }
        long iterations = s.settings.iterations();
        // a flush at a duration's end needs a receive the server may never credit: one is held back for it, and a
        // window too small to hold one back signals every Send
        int reserve = send && iterations == 0 && s.rxDepth > 2 ? 1 : 0;
        int cqMod = send && iterations == 0 && reserve == 0 ? 1 : Math.min(s.settings.cqMod(), s.txDepth);
        int postList = Math.min(s.settings.postList(), s.txDepth);
        SendWorkRequest[] list = new SendWorkRequest[postList];
        for (int i = 0; i < postList; i++) {
            list[i] = new SendWorkRequest(1).opcode(s.test.opcode);
        }
        PerfMeter meter = new PerfMeter(size, s.txDepth, s.settings);
        Timeline timeline = s.timeline == null ? null : new Timeline(size, s.timeline);
        for (DataQp data : s.qps) {
            data.posted = 0;
            data.completed = 0;
            data.unsignaled = 0;
        }
        long waitingSince = 0; // when the client last found nothing to post and no completion to see, or 0
        while (true) {
            boolean running = iterations > 0 || !meter.over();
            boolean blockedOnCredit = false;
            boolean posted = false;
            long outstanding = 0;
            long seen = 0; // outstanding requests a completion will be seen for
            for (int i = 0; i < s.qps.size(); i++) {
                DataQp data = s.qps.get(i);
                int listed = 0;
                while (data.posted + listed - data.completed < s.txDepth && (running
                        ? iterations == 0 || data.posted + listed < iterations : data.unsignaled > 0)) {
                    if (send && data.posted + listed + 1 - creditOf(data) >= s.rxDepth - (running ? reserve : 0)) {
                        blockedOnCredit = true;
                        break;
                    }
                    long number = data.posted + listed;
                    data.unsignaled++;
                    boolean signaled = !running || data.unsignaled >= cqMod
                            || (iterations > 0 && number + 1 == iterations);
                    long offset = send ? 0 : (number % slots) * inc;
                    SendWorkRequest request = list[listed].signaled(signaled)
                            .wrId(signaled ? i | (long) data.unsignaled << 32 : i).sge(0, data.buffer, offset, size);
                    if (!send) {
                        request.remote(data.remote.rkey(), data.remote.vaddr() + offset);
                    }
                    if (signaled) {
                        data.unsignaled = 0;
                    }
                    if (++listed == postList) {
                        s.post(data, list, listed, s.test.opcode.name(), data.posted);
                        data.posted += listed;
                        listed = 0;
                        posted = true;
                    }
                    meter.start();
                }
                if (listed > 0) {
                    s.post(data, list, listed, s.test.opcode.name(), data.posted);
                    data.posted += listed;
                    posted = true;
                }
                outstanding += data.posted - data.completed;
                seen += data.posted - data.completed - data.unsignaled;
            }
            if (seen == 0) {
                if (outstanding > 0 || blockedOnCredit) { // unsignaled ones wait for a credit to post the next
                    long now = System.nanoTime();
                    if (posted || waitingSince == 0) {
                        waitingSince = now;
                    } else if (now - waitingSince > s.completions.timeout().toNanos()) {
                        throw new PeerException("no credit from the receiver within " + s.completions.timeout()
                                .toSeconds() + " s (" + outstanding + " requests outstanding, " + s.rxDepth
                                + " receives deep)");
                    }
                    pause();
                    continue;
                }
                if (!running || iterations > 0) {
                    break;
                }
            }
            WorkCompletion completion = s.completions.poll();
            if (completion == null) {
                if (seen > 0) {
                    completion = s.completions.next("a " + s.test.opcode + " completion");
                } else {
                    continue;
                }
            }
            long wrId = completion.wrId();
            int batch = (int) (wrId >>> 32);
            s.qps.get((int) wrId).completed += batch;
            meter.tick(batch);
            if (timeline != null) {
                timeline.tick(batch);
            }
            report(meter, size);
        }
        if (timeline != null) {
            timeline.end();
        }
        if (s.settings.verify() && s.test.opcode == WorkOpcode.RDMA_READ) {
            s.verifySlots(size, false);
        }
        if (s.qps.size() > 1) { // not perftest's: how the queue pairs shared the run (one on a lossy path, say)
            StringBuilder each = new StringBuilder(" Per queue pair, MB/sec over the whole run:");
            double seconds = Math.max(1, meter.end - meter.begin) / 1e9;
            for (DataQp data : s.qps) {
                each.append(String.format(java.util.Locale.ROOT, " %.2f", data.completed * (double) size / seconds
                        / (1 << 20)));
            }
            s.info.accept(each.toString());
        }
        return meter.result();
    }

    /** The receive count the peer credited, as perftest writes it (a little-endian 32-bit count). */
    static long creditOf(DataQp data) {
        return Integer.toUnsignedLong((int) PerfSession.CREDIT.getVolatile(data.credit.memory(),
                (long) PerfSession.CREDIT_SINK));
    }

    /**
     * Send bandwidth as the server (as the client of a reversed run): receives, posted again while more are due, and
     * credits for the sender.
     */
    PerfResult.Bandwidth sendBandwidthServer(int size) throws PeerException {
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        SendWorkRequest credit = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE).signaled(true);
        long iterations = s.settings.iterations();
        int every = Math.max(1, s.rxDepth / 3);
        PerfMeter meter = new PerfMeter(size, s.txDepth, s.settings);
        Timeline timeline = s.timeline == null ? null : new Timeline(size, s.timeline);
        long due = iterations * s.qps.size(); // receives still to come, counted down rather than recounted each time
        while (iterations == 0 ? !meter.over() : due > 0) {
            WorkCompletion completion;
            if (iterations == 0 && meter.started()) {
                // a duration ends on this side's clock, as perftest's alarm ends it: the client's last Send may
                // have come before it did (its clock started before the first Send arrived here)
                completion = s.completions.within("a Send from the sender", 1, meter.left());
                if (completion == null) {
                    break;
                }
            } else {
                completion = s.completions.next("a Send from the sender");
            }
            if (completion.opcode() != WcOpcode.RECV) {
                continue; // a credit Write done
            }
            int i = (int) completion.wrId();
            DataQp data = s.qps.get(i);
            if (completion.byteLength() != size) {
                throw new PeerException("received a Send of " + completion.byteLength() + " octets, not " + size
                        + ": give both sides the same size");
            }
            if (s.settings.verify()) {
                PerfSession.verify(data.buffer.memory().asSlice(s.half, size), 0, "Send " + data.received);
            }
            meter.start();
            data.received++;
            due--;
            meter.tick();
            if (timeline != null) {
                timeline.tick();
            }
            if (s.arrivals != null) {
                s.arrivals.arrived(size);
            }
            if (iterations == 0 || data.receivesPosted < iterations) {
                receive.wrId(i).sge(0, data.buffer, s.half, size);
                data.qp.postReceive(receive);
                data.receivesPosted++;
            }
            if ((data.received % s.rxDepth) % every == 0) {
                data.credit.memory().set(PerfSession.CREDIT_VALUE, PerfSession.CREDIT_SOURCE, (int) data.received);
                credit.wrId(i).sge(0, data.credit, PerfSession.CREDIT_SOURCE, 4).remote(data.remote.rkey(),
                        data.remote.vaddr());
                s.post(data, credit, "a credit");
            }
            report(meter, size);
        }
        if (timeline != null) {
            timeline.end();
        }
        return meter.result();
    }

    /**
     * Waits a moment, driving this thread's loop, for the peer's credit (it comes as an RDMA Write, with no completion
     * on this side) or for unsignaled requests to be done with.
     */
    void pause() throws PeerException {
        s.driver.nap(20_000);
        for (DataQp data : s.qps) {
            s.completions.check(data.qp, "waiting for the receiver's credit");
        }
    }

    void report(PerfMeter meter, int size) {
        long now = System.nanoTime();
        if (now - meter.lastReport >= PerfSession.PROGRESS.toNanos()) {
            meter.lastReport = now;
            s.progress.accept(String.format(Locale.ROOT, "%s %d octets: %d messages, %.2f MB/sec so far",
                    s.test.command(), size, meter.count, meter.count * (double) size / ((now - meter.begin) / 1e9)
                            / (1 << 20)));
        }
    }
}
