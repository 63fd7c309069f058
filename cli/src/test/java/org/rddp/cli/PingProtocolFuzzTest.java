package org.rddp.cli;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
import org.rddp.verbs.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.verbs.WorkOpcode;
import org.rddp.verbs.testing.InMemoryConnectionManager;
import org.rddp.verbs.testing.InMemoryTransport;

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
    private static final ValueLayout.OfShort BIG_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static InMemoryTransport transport;
    private static int addresses;

    /** The in-memory managers' loops go with the class. */
    @AfterAll
    static void stop() {
        if (transport != null) {
            transport.close();
            transport = null;
        }
    }

    @FuzzTest(maxDuration = "10s")
    void hostileClient(byte[] input) throws Exception {
        if (transport == null) {
            transport = new InMemoryTransport(1024, 32);
        }
        RdmaDevice serverDevice = new RdmaDevice("ping-server");
        RdmaDevice clientDevice = new RdmaDevice("ping-client");
        Ping server = new Ping(serverDevice, SIZE, BOUND);
        server.armReceive();
        InMemoryConnectionManager.Address address = new InMemoryConnectionManager.Address("ping-" + ++addresses);
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        AcceptOptions acceptOptions = new AcceptOptions(org.rddp.wire.PrivateData.EMPTY, 1, 1);
        try (Listener listener = transport.responder().listen(address, request -> request.accept(server.queuePair(),
                acceptOptions).whenComplete((connection, failure) -> accepted.complete(connection)))) {
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
            transport.initiator().connect(client, address, ConnectOptions.of(1, 1)).get(BOUND.toSeconds(),
                    TimeUnit.SECONDS);
            accepted.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            boolean verify = input.length > 0 && input[0] < 0; // the first kind octet's high bit: -V
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.server(verify, line -> { });
                } catch (PeerException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });

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
                Integer pings = served.get(BOUND.toSeconds(), TimeUnit.SECONDS);
                assertThat(pings).isNotNegative();
            } catch (ExecutionException e) {
                assertThat(e.getCause()).as("how the server ended").isInstanceOf(PeerException.class);
                assertThat(e.getCause().getMessage()).isNotBlank();
            }
            for (long i = 0; i < memory.byteSize(); i++) {
                if ((i < SIZE || i >= 2L * SIZE) && memory.get(ValueLayout.JAVA_BYTE, i) != CANARY) {
                    throw new AssertionError("octet " + i + " of the client's memory, outside its buffer, changed");
                }
            }
        } finally {
            server.close();
        }
        assertThat(transport.initiator().loop().failure()).as("an exception escaped a loop").isNull();
        assertThat(transport.responder().loop().failure()).as("an exception escaped a loop").isNull();
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
