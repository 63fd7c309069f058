package org.rddp.cli.ping;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.rddp.cli.PeerException;
import org.rddp.loop.Loop;
import org.rddp.loop.Progress;
import org.rddp.verbs.Access;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.testing.InMemoryConnectionManager;

/**
 * Coverage-guided fuzzing of rping's protocol as {@code rddp ping -s} serves it ({@link Ping#server}): a hostile
 * client, connected over the in-memory LLP, sends the fuzzer's messages one at a time, each after the server
 * answered the last one or ended. Corpus under {@code PingProtocolFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes (see
 * {@code fuzz/README.md}).
 *
 * <p>Input: up to {@value #MAX_MESSAGES} messages, each a kind octet and what that kind takes: (kind &amp; 3) 0: an
 * advertisement of the client's buffer with the right rkey, a 16-bit signed offset from its start and a 32-bit
 * length; 1: one with the right address and a given 32-bit rkey; 2: (kind &gt;&gt;&gt; 2) raw octets; 3: a proper
 * advertisement of the buffer. The first kind octet's high bit has the server validate the data ({@code -V}).
 *
 * <p>Checks: the server answers every message or ends, never waits for one it cannot get; it ends by returning (the
 * client disconnected) or with a {@link PeerException} saying why, nothing else; no octet of the client's memory
 * outside its buffer changes; nothing escapes a loop.
 */
class PingProtocolFuzzTest {
    private static final int MAX_MESSAGES = 16;
    private static final int SIZE = Ping.DEFAULT_SIZE;
    private static final byte CANARY = (byte) 0xA5;
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final ValueLayout.OfLong BIG_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BIG_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final MemorySegment CANARIES = Arena.global().allocate(SIZE).fill(CANARY);
    private static final ValueLayout.OfShort BIG_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static InMemoryConnectionManager initiator;
    private static InMemoryConnectionManager responder;
    private static ExecutorService serverThread;
    private static int addresses;

    /** The managers' loops and the server's thread go with the class. */
    @AfterAll
    static void stop() {
        if (initiator != null) {
            initiator.close();
            serverThread.submit(responder::close);
            serverThread.shutdown();
            initiator = null;
        }
    }

    @FuzzTest(maxDuration = "10s")
    void hostileClient(byte[] input) throws Exception {
        if (initiator == null || !initiator.loop().inLoop()) {
            stop();
            // two threads, each driving its own manual loop while it polls: the fuzzer's (the client) and the
            // server's, one hand-off per message each way and no loop threads
            initiator = new InMemoryConnectionManager("initiator-loop", 1024, 32, Progress.manual());
            serverThread = Executors.newSingleThreadExecutor(task -> new Thread(task, "ping-server"));
            responder = serverThread.submit(() -> new InMemoryConnectionManager("responder-loop", 1024, 32,
                    Progress.manual())).get();
        }
        RdmaDevice clientDevice = new RdmaDevice("ping-client");
        InMemoryConnectionManager.Address address = new InMemoryConnectionManager.Address("ping-" + ++addresses);
        boolean verify = input.length > 0 && input[0] < 0; // the first kind octet's high bit: -V
        CompletableFuture<Void> listening = new CompletableFuture<>();
        CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> serve(address, verify, listening),
                serverThread);
        listening.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        ProtectionDomain pd = clientDevice.allocateProtectionDomain();
        CompletionQueue cq = clientDevice.createCompletionQueue(64);
        QueuePair client = pd.createQueuePair(new QpAttributes(cq, cq, null, 16, 16, 1, true, null));
        MemorySegment memory = Arena.ofAuto().allocate(3L * SIZE, 8);
        memory.fill(CANARY);
        MemoryRegion buffer = pd.register(memory.asSlice(SIZE, SIZE),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        MemoryRegion replies = pd.register(Arena.ofAuto().allocate(4L * Ping.INFO, 8),
                EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion outgoing = pd.register(Arena.ofAuto().allocate(64, 8), EnumSet.noneOf(Access.class));
        ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
        for (int i = 0; i < 4; i++) {
            client.postReceive(receive.wrId(i).sge(0, replies, i * (long) Ping.INFO, Ping.INFO));
        }
        Loop.joinOwned(initiator.connect(client, address, ConnectOptions.of(1, 1)), BOUND);

        SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND).signaled(true);
        int at = 0;
        for (int message = 0; message < MAX_MESSAGES && at < input.length && !served.isDone(); message++) {
            int kind = input[at++] & 0xFF;
            int length = Ping.INFO;
            MemorySegment out = outgoing.memory();
            out.set(BIG_LONG, 0, buffer.iova());
            out.set(BIG_INT, 8, buffer.rkey());
            out.set(BIG_INT, 12, SIZE);
            switch (kind & 3) {
                case 0 -> {
                    out.set(BIG_LONG, 0, buffer.iova() + take(input, at, 2, BIG_SHORT));
                    out.set(BIG_INT, 12, take(input, at + 2, 4, BIG_INT));
                    at += 6;
                }
                case 1 -> {
                    out.set(BIG_INT, 8, take(input, at, 4, BIG_INT));
                    at += 4;
                }
                case 2 -> {
                    length = Math.min(kind >>> 2, input.length - at);
                    MemorySegment.copy(MemorySegment.ofArray(input), at, out, 0, length);
                    at += length;
                }
                default -> {
                    // the proper advertisement, as set
                }
            }
            if (client.postSend(send.sge(0, outgoing, 0, length)) != 0) {
                break; // the server ended the connection
            }
            if (!answeredOrEnded(cq, client, receive, replies, served)) {
                break;
            }
        }
        client.disconnect();
        try {
            Integer pings = Loop.joinOwned(served, BOUND);
            assertThat(pings).isNotNegative();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).as("how the server ended").isInstanceOf(PeerException.class);
            assertThat(e.getCause().getMessage()).isNotBlank();
        }
        // compared in bulk by the JDK: a loop here would run through Jazzer's instrumentation, octet by octet
        long changed = memory.asSlice(0, SIZE).mismatch(CANARIES);
        if (changed < 0) {
            changed = memory.asSlice(2L * SIZE, SIZE).mismatch(CANARIES);
            changed = changed < 0 ? -1 : changed + 2L * SIZE;
        }
        if (changed >= 0) {
            throw new AssertionError("octet " + changed + " of the client's memory, outside its buffer, changed");
        }
        assertThat(initiator.loop().failure()).as("an exception escaped a loop").isNull();
        assertThat(responder.loop().failure()).as("an exception escaped a loop").isNull();
    }

    /**
     * The server's side of one input, on the server's thread: listens, takes the client's connection and serves it
     * as {@code rddp ping -s} does.
     */
    private static int serve(InMemoryConnectionManager.Address address, boolean verify,
            CompletableFuture<Void> listening) {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        AcceptOptions acceptOptions = new AcceptOptions(org.rddp.wire.PrivateData.EMPTY, 1, 1);
        try (Ping server = new Ping(new RdmaDevice("ping-server"), SIZE, BOUND)) {
            server.armReceive();
            try (Listener listener = responder.listen(address, request -> request.accept(server.queuePair(),
                    acceptOptions).whenComplete((connection, failure) -> accepted.complete(connection)))) {
                listening.complete(null);
                Loop.joinOwned(accepted, BOUND);
                return server.server(verify, line -> { });
            }
        } catch (PeerException e) {
            throw new CompletionException(e);
        } catch (Exception e) {
            listening.completeExceptionally(e);
            throw new AssertionError("the server could not take the client's connection", e);
        }
    }

    /**
     * Waits for the server's answer (a go-ahead Send) to the last message, or for the connection or the server to
     * end; fails if neither comes within the bound. Returns whether to go on.
     */
    private static boolean answeredOrEnded(CompletionQueue cq, QueuePair client, ReceiveWorkRequest receive,
            MemoryRegion replies, CompletableFuture<Integer> served) {
        WorkCompletion[] completions = new WorkCompletion[8];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            int polled = cq.poll(completions);
            for (int i = 0; i < polled; i++) {
                WorkCompletion completion = completions[i];
                if (completion.status() != WcStatus.SUCCESS) {
                    return false; // flushed or failed: the connection ended
                }
                if (completion.opcode() == WcOpcode.RECV) {
                    client.postReceive(receive.wrId(completion.wrId()).sge(0, replies,
                            completion.wrId() * Ping.INFO, Ping.INFO));
                    return true;
                }
            }
            if (served.isDone()) {
                return false;
            }
            if (polled == 0) {
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("the server neither answered a message nor ended within " + BOUND);
    }

    private static int take(byte[] input, int at, int length, ValueLayout layout) {
        byte[] field = new byte[length];
        System.arraycopy(input, Math.min(at, input.length), field, 0, Math.max(0, Math.min(length, input.length - at)));
        MemorySegment segment = MemorySegment.ofArray(field);
        return layout instanceof ValueLayout.OfShort shortLayout ? segment.get(shortLayout, 0)
                : segment.get((ValueLayout.OfInt) layout, 0);
    }
}
