package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rddp.ddp.DdpSegment;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.kernel.KernelSctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.work.QpEvent;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;
import org.rddp.wire.PrivateData;
import org.rddp.transport.sctp.raw.RawSctpPeer;

/**
 * Issue 32 over the Linux kernel's SCTP, inside the VM (interop-tests' {@code KernelSctpVmTest}, with {@code sctp}
 * and {@code sch_netem} loaded); named so that no build machine without kernel SCTP runs it. A hostile initiator
 * written against RFC 5043 floods a server with chunks far ahead of their turn on many streams, and the server's
 * memory stays within its bound while a new Initiate is still answered; and small messages cross a lossy loopback
 * without their session being taken for hostile, the receive window holding what a kernel sender has in flight.
 * Each prints the figures a note quotes.
 */
class KernelSctpHostileGuestSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int STREAMS = 64;
    private static final int CHUNK = 32_000;
    private static final int CHUNKS_PER_STREAM = 20;
    private static final Duration WAIT = Duration.ofSeconds(120);
    /** How long the attacker's reader waits for one more chunk before it takes the server to have said all. */
    private static final Duration QUIET = Duration.ofSeconds(15);

    private final RdmaDevice device = new RdmaDevice("hostile");
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(4096);

    /** The heap in use after a full collection, in MiB, and the process's resident size. */
    private static String memory() throws Exception {
        long heap = heapMiB();
        String rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(line -> line.startsWith("VmRSS"))
                .findFirst().orElse("VmRSS: ?").replaceAll("\\s+", " ");
        return heap + " MiB of heap in use, " + rss;
    }

    private static long heapMiB() {
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        return (runtime.totalMemory() - runtime.freeMemory()) >> 20;
    }

    private static byte[] send(int payload) {
        byte[] segment = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + payload];
        new DdpSegment().bind(java.lang.foreign.MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND), 0, 0, 1, 0);
        return segment;
    }

    /**
     * Half the streams carry no session, half an open one whose DDP-SSN 1 never comes; on each, chunks of 32,000
     * octets with DDP-SSNs ahead of what is missing. A stream without a session answers with one Terminate and keeps
     * nothing; the open sessions keep what their association's budget allows, and each one a chunk of which the budget
     * cannot take ends with a Terminate. The heap grows by no more than that budget, and an Initiate afterwards, on a
     * stream the flood used and on a fresh one, is answered.
     */
    @Test
    void farAheadChunksOnManyStreamsAreBoundedAndInitiatesAreStillAnswered() throws Exception {
        KernelSctpStack stack = KernelSctpStack.open();
        try (SctpConnectionManager server = new SctpConnectionManager(stack, LOOPBACK);
                Listener listener = server.listen(new InetSocketAddress(LOOPBACK, 0), request ->
                        request.accept(pd.createQueuePair(QpAttributes.of(cq, 4, 1)), new AcceptOptions(
                                PrivateData.EMPTY, 1, 1)))) {
            String before = memory();
            long heapBefore = heapMiB();
            long refusedBefore = Counters.process().get(Counter.EARLY_CHUNKS_REFUSED);
            try (RawSctpPeer attacker = RawSctpPeer.connect(stack, new InetSocketAddress(LOOPBACK, 0),
                    (InetSocketAddress) listener.address(), 2 * STREAMS, DdpSctp.ADAPTATION_INDICATION)) {
                for (int stream = STREAMS / 2; stream < STREAMS; stream++) {
                    attacker.control(stream, 0, new SessionControl.Initiate(PrivateData.EMPTY));
                    assertThat(SctpEventsOf.code(attacker.next(WAIT))).isEqualTo(FunctionCode.ACCEPT);
                }
                Map<Integer, Long> terminatedAfter = new ConcurrentHashMap<>();
                AtomicLong peakHeld = new AtomicLong();
                List<Throwable> readerFailed = new CopyOnWriteArrayList<>();
                long start = System.nanoTime();
                Thread reader = Thread.ofVirtual().start(() -> {
                    try {
                        while (true) {
                            RawSctpPeer.Chunk chunk = attacker.next(QUIET);
                            if (chunk == null) {
                                return; // the flood is over and the server has said all it will
                            }
                            if (SctpEventsOf.code(chunk) == FunctionCode.TERMINATE) {
                                terminatedAfter.putIfAbsent(chunk.streamId(), System.nanoTime() - start);
                            }
                        }
                    } catch (Exception e) {
                        readerFailed.add(e);
                    }
                });
                byte[] segment = send(CHUNK - 2 - DdpSegment.UNTAGGED_HEADER_LENGTH);
                long sent = 0;
                for (int ssn = 2; ssn < 2 + CHUNKS_PER_STREAM; ssn++) {
                    for (int stream = 0; stream < STREAMS; stream++) {
                        attacker.segment(stream, ssn, segment);
                        sent += CHUNK;
                    }
                    peakHeld.accumulateAndGet(AssociationBudget.heldInProcess(), Math::max);
                }
                reader.join();
                assertThat(readerFailed).isEmpty();
                long flood = System.nanoTime() - start;
                long heapAfter = heapMiB();
                String after = memory();
                System.out.printf("HOSTILE: %d MiB of early chunks on %d streams in %.1f s; memory before: %s; "
                        + "after: %s; held at most %d octets; Terminates on %d streams, the first %.1f ms and the last "
                        + "%.1f ms after the flood began; %d chunks refused%n", sent >> 20, STREAMS, flood / 1e9,
                        before, after, peakHeld.get(), terminatedAfter.size(),
                        terminatedAfter.values().stream().mapToLong(Long::longValue).min().orElse(-1) / 1e6,
                        terminatedAfter.values().stream().mapToLong(Long::longValue).max().orElse(-1) / 1e6,
                        Counters.process().get(Counter.EARLY_CHUNKS_REFUSED) - refusedBefore);
                for (int stream = 0; stream < STREAMS / 2; stream++) {
                    assertThat(terminatedAfter).as("a stream without a session answers with a Terminate")
                            .containsKey(stream);
                }
                // of the open sessions, those whose chunks the budget could not take ended: all but the few that
                // fit in it whole (the budget over what one stream sent)
                long fit = SctpLimits.HELD_PER_ASSOCIATION / ((long) CHUNK * CHUNKS_PER_STREAM);
                assertThat(terminatedAfter.size()).as("streams that ended")
                        .isGreaterThanOrEqualTo((int) (STREAMS - fit));
                assertThat(peakHeld.get()).as("what the association held").isLessThanOrEqualTo(
                        SctpLimits.HELD_PER_ASSOCIATION);
                assertThat(heapAfter - heapBefore).as("heap growth, MiB, for %d MiB sent", sent >> 20)
                        .isLessThan((SctpLimits.HELD_PER_ASSOCIATION >> 20) + 8);

                attacker.control(0, 0, new SessionControl.Initiate(PrivateData.EMPTY)); // a stream the flood used
                attacker.control(2 * STREAMS - 1, 0, new SessionControl.Initiate(PrivateData.EMPTY));
                int accepted = 0;
                for (int i = 0; i < 2; i++) {
                    accepted += SctpEventsOf.code(attacker.next(WAIT)) == FunctionCode.ACCEPT ? 1 : 0;
                }
                assertThat(accepted).as("both new Initiates are answered with an Accept").isEqualTo(2);
            }
        }
    }

    /**
     * Small RDMA Writes over a loopback that drops 2 % of its packets (netem): SCTP delivers unordered chunks as they
     * come, so after a loss hundreds of small chunks arrive ahead of the missing one (up to 415 here: this kernel
     * charges some 10 KB of its send buffer per queued chunk, so a sender has about that many unacknowledged; the
     * same with 150 ms of delay). The window takes every DDP-SSN any sender may have in flight (RFC 5043 §10:
     * 32,767), so the session survives, nothing is refused, and every Write completes.
     */
    @Test
    void smallMessagesUnderLossKeepTheirSession() throws Exception {
        KernelSctpStack stack = KernelSctpStack.open();
        int maxMessage = SctpTransport.probeMaxMessage(stack, LOOPBACK);
        int writes = 20_000;
        int depth = 4096;
        int signalEvery = 256; // unsignaled Writes between, so that posts come fast and bundle into full packets
        tc("qdisc", "add", "dev", "lo", "root", "netem", "loss", "2%");
        org.rddp.verbs.ConnectionManager sender;
        try (SctpTransport transport = SctpTransport.loopback(stack, maxMessage)) {
            sender = transport.initiator();
            List<QpEvent> events = new CopyOnWriteArrayList<>();
            QpAttributes attributes = new QpAttributes(cq, cq, null, depth, 16, 1, false,
                    (qp, event, terminate, detail) -> {
                        if (event != QpEvent.ESTABLISHED) {
                            events.add(event);
                            System.out.println("LOSS: " + event + " " + detail);
                        }
                    });
            QueuePair responder = pd.createQueuePair(attributes);
            QueuePair initiator = pd.createQueuePair(attributes);
            MemoryRegion sink = pd.register(Arena.ofAuto().allocate(1 << 16), EnumSet.of(Access.LOCAL_WRITE,
                    Access.REMOTE_WRITE));
            MemoryRegion source = pd.register(Arena.ofAuto().allocate(1 << 16), EnumSet.of(Access.LOCAL_WRITE));
            responder.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, sink, 0, 64));
            InetSocketAddress address = (InetSocketAddress) transport.nextAddress();
            try (Listener listener = transport.responder().listen(address, request -> request.accept(responder,
                    new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
                transport.initiator().connect(initiator, address, ConnectOptions.of(1, 1)).get(120, TimeUnit.SECONDS);
                long refusedBefore = Counters.process().get(Counter.EARLY_CHUNKS_REFUSED);
                int furthestBefore = ResequencingWindow.furthestAhead();
                long peakHeld = 0;
                long start = System.nanoTime();
                SendWorkRequest write = new SendWorkRequest(1).opcode(WorkOpcode.RDMA_WRITE);
                WorkCompletion completion = new WorkCompletion();
                int posted = 0;
                int completed = 0;
                while (completed < writes) {
                    while (posted < writes && posted - completed < depth - signalEvery) {
                        boolean signaled = (posted + 1) % signalEvery == 0 || posted + 1 == writes;
                        if (initiator.postSend(write.wrId(posted).signaled(signaled).sge(0, source,
                                (posted % 1000) * 64L, 64).remote(sink.rkey(), (posted % 1000) * 64L))
                                != PostStatus.OK) {
                            break;
                        }
                        posted++;
                    }
                    int done = drain(completion, start);
                    completed = Math.min(writes, completed + done * signalEvery);
                    peakHeld = Math.max(peakHeld, AssociationBudget.heldInProcess());
                }
                assertThat(initiator.postSend(new SendWorkRequest(1).opcode(WorkOpcode.SEND).wrId(-1).signaled(true)
                        .sge(0, source, 0, 8))).isEqualTo(PostStatus.OK);
                int sends = 0;
                while (sends < 2) { // this side's Send, and the responder's receive of it
                    sends += drain(completion, start);
                }
                long took = System.nanoTime() - start;
                System.out.printf("LOSS: %d Writes of 64 octets (one in %d signaled) and a Send in %.1f s over 2 %% "
                        + "loss; held ahead of their turn at most %d octets (seen between "
                        + "completions), chunks kept up to %d DDP-SSNs ahead (the old window refused beyond 1,023; "
                        + "before this test: %d); %d chunks refused%n",
                        writes, signalEvery, took / 1e9, peakHeld, ResequencingWindow.furthestAhead(), furthestBefore,
                        Counters.process().get(Counter.EARLY_CHUNKS_REFUSED) - refusedBefore);
                assertThat(events).as("no Terminate, no lost connection").isEmpty();
                assertThat(Counters.process().get(Counter.EARLY_CHUNKS_REFUSED)).isEqualTo(refusedBefore);
            }
        } finally {
            tc("qdisc", "del", "dev", "lo", "root");
        }
        // the kernel counts them per association; the association's last count is taken as it is closed
        System.out.printf("LOSS: the sending manager counted %d SCTP retransmissions%n",
                sender.counters().get(Counter.SCTP_RETRANSMISSIONS));
        assertThat(sender.counters().get(Counter.SCTP_RETRANSMISSIONS)).as("DATA chunks sent again over 2 % loss")
                .isPositive();
    }

    /** Takes every completion there is now (waiting up to the test's bound for one): how many, all successful. */
    private int drain(WorkCompletion completion, long start) {
        int taken = 0;
        while (taken == 0) {
            while (cq.poll(completion)) {
                assertThat(completion.status()).as("completion %d", completion.wrId()).isEqualTo(WcStatus.SUCCESS);
                taken++;
            }
            assertThat(System.nanoTime() - start).as("completions keep coming").isLessThan(WAIT.toNanos() * 5);
        }
        return taken;
    }

    private static void tc(String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("tc"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).inheritIO().start();
        assertThat(process.waitFor()).as(String.join(" ", command)).isZero();
    }

    /** The function code of a chunk, or null (the checks' helper lives in session-check). */
    private static final class SctpEventsOf {
        static FunctionCode code(RawSctpPeer.Chunk chunk) {
            try {
                return chunk != null && chunk.isControl() ? chunk.control().functionCode() : null;
            } catch (org.rddp.wire.MalformedFrameException e) {
                return null;
            }
        }
    }
}
