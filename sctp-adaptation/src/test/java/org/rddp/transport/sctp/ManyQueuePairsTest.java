package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.rddp.work.WcStatus;
import org.rddp.work.WorkOpcode;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;

/**
 * Many queue pairs between two hosts share one association, each on its own pair of streams (RFC 5043 §8),
 * each with its own traffic running at once, verified end to end with CRC32C checksums.
 */
class ManyQueuePairsTest {
    private static final int PAIRS = 8;
    private static final int MESSAGES = 40;
    private static final int MAX_MESSAGE = 120_000;

    /** One queue pair's traffic: what was sent, in order, and the checksums of what arrived. */
    private record Pair(QueuePair sender, QueuePair receiver, CompletionQueue senderCq, CompletionQueue receiverCq,
            MemoryRegion source, MemoryRegion sink, long seed) {
    }

    @Test
    void eachQueuePairCarriesItsOwnTrafficOverOneAssociation() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, TestPorts.next());
        try (SctpConnectionManager server = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
                SctpConnectionManager client = new SctpConnectionManager(UsrsctpStack.udp(), loopback)) {
            RdmaDevice device = new RdmaDevice("many");
            ProtectionDomain pd = device.allocateProtectionDomain();
            List<Pair> pairs = new ArrayList<>();
            List<QueuePair> waiting = new ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                CompletionQueue senderCq = device.createCompletionQueue(4 * MESSAGES);
                CompletionQueue receiverCq = device.createCompletionQueue(4 * MESSAGES);
                QueuePair receiver = pd.createQueuePair(QpAttributes.of(receiverCq, MESSAGES, 1));
                MemoryRegion sink = pd.register(Arena.ofAuto().allocate((long) MESSAGES * MAX_MESSAGE),
                        EnumSet.of(Access.LOCAL_WRITE));
                ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
                for (int m = 0; m < MESSAGES; m++) {
                    receive.wrId(m).sge(0, sink, (long) m * MAX_MESSAGE, MAX_MESSAGE);
                    assertThat(receiver.postReceive(receive)).isEqualTo(PostStatus.OK);
                }
                pairs.add(new Pair(pd.createQueuePair(QpAttributes.of(senderCq, MESSAGES, 1)), receiver, senderCq,
                        receiverCq, pd.register(Arena.ofAuto().allocate(MAX_MESSAGE), EnumSet.noneOf(Access.class)),
                        sink, 1000 + i));
                waiting.add(receiver);
            }
            // the private data names the pair, so each sender meets its own receiver
            try (Listener listener = server.listen(address, request -> request.accept(
                    waiting.get(request.privateData().toByteArray()[0]), new AcceptOptions(PrivateData.EMPTY, 1, 1)))) {
                List<CompletableFuture<Connection>> connections = new ArrayList<>();
                for (int i = 0; i < PAIRS; i++) {
                    connections.add(client.connect(pairs.get(i).sender(), address, new ConnectOptions(
                            PrivateData.of(new byte[] {(byte) i}), true, 1, 1, false, java.util.Set.of(),
                            java.time.Duration.ofSeconds(20))));
                }
                for (CompletableFuture<Connection> connection : connections) {
                    connection.get(20, TimeUnit.SECONDS);
                }
                assertThat(client.associationCount()).as("one association for all the queue pairs").isEqualTo(1);
                assertThat(server.associationCount()).isEqualTo(1);

                // every queue pair sends at once; each message's checksum is kept per pair
                List<long[]> sentChecksums = new ArrayList<>();
                List<CompletableFuture<Void>> senders = new ArrayList<>();
                for (Pair pair : pairs) {
                    long[] checksums = new long[MESSAGES];
                    sentChecksums.add(checksums);
                    senders.add(CompletableFuture.runAsync(() -> sendAll(pair, checksums)));
                }
                for (CompletableFuture<Void> sender : senders) {
                    sender.get(60, TimeUnit.SECONDS);
                }
                for (int i = 0; i < PAIRS; i++) {
                    Pair pair = pairs.get(i);
                    WorkCompletion completion = new WorkCompletion();
                    for (int m = 0; m < MESSAGES; m++) {
                        await(pair.receiverCq(), completion);
                        assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
                        assertThat(completion.wrId()).as("in order on pair %d", i).isEqualTo(m);
                        CRC32C crc = new CRC32C();
                        crc.update(pair.sink().memory().asSlice((long) m * MAX_MESSAGE, completion.byteLength())
                                .asByteBuffer());
                        assertThat(crc.getValue()).as("pair %d message %d", i, m).isEqualTo(sentChecksums.get(i)[m]);
                    }
                }
            }
        }
    }

    /**
     * 1,100 queue pairs to one peer at once: the first 1,024 share one association (a stream pair each), the rest
     * get a second one; every pair sends two checksummed messages, all posted at once, all verified.
     */
    @Test
    void moreQueuePairsThanAnAssociationHasStreamsGoOnASecondAssociation() throws Exception {
        int pairs = 1100;
        int size = 2048;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress address = new InetSocketAddress(loopback, TestPorts.next());
        try (SctpConnectionManager server = new SctpConnectionManager(UsrsctpStack.udp(), loopback);
                SctpConnectionManager client = new SctpConnectionManager(UsrsctpStack.udp(), loopback)) {
            RdmaDevice device = new RdmaDevice("thousand");
            ProtectionDomain pd = device.allocateProtectionDomain();
            CompletionQueue senderCq = device.createCompletionQueue(4 * pairs);
            CompletionQueue receiverCq = device.createCompletionQueue(4 * pairs);
            MemoryRegion source = pd.register(Arena.ofAuto().allocate(2L * pairs * size), EnumSet.noneOf(Access.class));
            MemoryRegion sink = pd.register(Arena.ofAuto().allocate(2L * pairs * size), EnumSet.of(Access.LOCAL_WRITE));
            List<QueuePair> senders = new ArrayList<>();
            List<QueuePair> receivers = new ArrayList<>();
            ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
            for (int i = 0; i < pairs; i++) {
                senders.add(pd.createQueuePair(QpAttributes.of(senderCq, 2, 1)));
                QueuePair receiver = pd.createQueuePair(QpAttributes.of(receiverCq, 2, 1));
                for (int m = 0; m < 2; m++) {
                    long slot = 2L * i + m;
                    receive.wrId(slot).sge(0, sink, slot * size, size);
                    assertThat(receiver.postReceive(receive)).isEqualTo(PostStatus.OK);
                }
                receivers.add(receiver);
            }
            try (Listener listener = server.listen(address, request -> {
                byte[] name = request.privateData().toByteArray();
                request.accept(receivers.get((name[0] & 0xFF) << 8 | name[1] & 0xFF),
                        new AcceptOptions(PrivateData.EMPTY, 1, 1));
            })) {
                List<CompletableFuture<Connection>> connections = new ArrayList<>();
                for (int i = 0; i < pairs; i++) {
                    connections.add(client.connect(senders.get(i), address, new ConnectOptions(
                            PrivateData.of(new byte[] {(byte) (i >> 8), (byte) i}), true, 1, 1, false,
                            java.util.Set.of(), java.time.Duration.ofSeconds(60))));
                }
                for (CompletableFuture<Connection> connection : connections) {
                    connection.get(60, TimeUnit.SECONDS);
                }
                assertThat(client.associationCount()).as("1,024 streams on the first association, then a second")
                        .isEqualTo(2);
                java.util.Set<Thread> threads = Thread.getAllStackTraces().keySet();
                System.out.printf("%d queue pairs connected over SCTP: %d threads in this process, %d of them SCTP "
                        + "loops%n", pairs, threads.size(), threads.stream()
                        .filter(t -> t.getName().startsWith("sctp-loop")).count());
                assertThat(threads).extracting(Thread::getName).as("connects and timeouts run on the loops")
                        .noneMatch(name -> name.startsWith("sctp-connect") || name.equals("usrsctp-timers"));

                Random random = new Random(7);
                long[] checksums = new long[2 * pairs];
                int[] lengths = new int[2 * pairs];
                byte[] data = new byte[size];
                SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND);
                for (int slot = 0; slot < 2 * pairs; slot++) {
                    lengths[slot] = 1 + random.nextInt(size);
                    random.nextBytes(data);
                    MemorySegment.copy(MemorySegment.ofArray(data), 0, source.memory(), (long) slot * size,
                            lengths[slot]);
                    CRC32C crc = new CRC32C();
                    crc.update(data, 0, lengths[slot]);
                    checksums[slot] = crc.getValue();
                    send.wrId(slot).sge(0, source, (long) slot * size, lengths[slot]);
                    assertThat(senders.get(slot / 2).postSend(send)).isEqualTo(PostStatus.OK);
                }
                WorkCompletion completion = new WorkCompletion();
                for (int n = 0; n < 2 * pairs; n++) {
                    await(receiverCq, completion);
                    assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
                    int slot = (int) completion.wrId();
                    assertThat(completion.byteLength()).as("message %d", slot).isEqualTo(lengths[slot]);
                    CRC32C crc = new CRC32C();
                    crc.update(sink.memory().asSlice((long) slot * size, lengths[slot]).asByteBuffer());
                    assertThat(crc.getValue()).as("message %d", slot).isEqualTo(checksums[slot]);
                }
                for (int n = 0; n < 2 * pairs; n++) {
                    await(senderCq, completion);
                    assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
                }
            }
        }
    }

    private static void sendAll(Pair pair, long[] checksums) {
        Random random = new Random(pair.seed());
        SendWorkRequest send = new SendWorkRequest(1).opcode(WorkOpcode.SEND);
        WorkCompletion completion = new WorkCompletion();
        byte[] data = new byte[MAX_MESSAGE];
        for (int m = 0; m < MESSAGES; m++) {
            int size = 1 + random.nextInt(MAX_MESSAGE);
            random.nextBytes(data);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, pair.source().memory(), 0, size);
            CRC32C crc = new CRC32C();
            crc.update(data, 0, size);
            checksums[m] = crc.getValue();
            send.wrId(m).sge(0, pair.source(), 0, size);
            assertThat(pair.sender().postSend(send)).isEqualTo(PostStatus.OK);
            await(pair.senderCq(), completion); // the source is reused: wait until the LLP took it
            assertThat(completion.status()).isEqualTo(WcStatus.SUCCESS);
        }
    }

    private static void await(CompletionQueue cq, WorkCompletion into) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cq.poll(into)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 30 s");
            }
            Thread.onSpinWait();
        }
    }
}
