package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.verbs.testing.TransportFixture;

/** EXS sockets end to end over one transport: data verified, credits, immediate data, close and misuse. */
abstract class ExsSuite {
    /** The fixture of the test running. */
    TransportFixture transport;

    /** A fresh fixture of the transport under test. */
    abstract TransportFixture transport() throws Exception;

    @BeforeEach
    void start() throws Exception {
        transport = transport();
    }

    @AfterEach
    void stop() throws Exception {
        transport.close();
    }

    @Test
    void aSendIsReadIntoTheReceiversMemory() throws Exception {
        Ends ends = new Ends(transport);
        int size = 256 * 1024;
        ExsMemory source = ends.clientExs.register(pattern(size, 1));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(size));
        ends.server.recv(sink, 0, size, "r");
        ends.client.send(source, 0, size, "s");
        ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(received.error()).isNull();
        assertThat(received.context()).isEqualTo("r");
        assertThat(received.length()).isEqualTo(size);
        ExsEvent sent = ends.next(ends.clientQueue, ExsEvent.Type.SEND);
        assertThat(sent.error()).isNull();
        assertThat(sent.context()).isEqualTo("s");
        assertThat(sent.length()).isEqualTo(size);
        assertThat(sink.segment().mismatch(source.segment())).isEqualTo(-1);
        assertThat(ends.server.connection().reads()).isEqualTo(1);
    }

    @Test
    void theAcceptingSideMaySendFirstWhileOnlyTheReceiverIsDriven() throws Exception {
        Ends ends = new Ends(transport);
        for (boolean persistent : new boolean[] {false, true}) {
            ExsMemory source = ends.serverExs.register(pattern(4096, 21));
            ExsMemory sink = ends.clientExs.register(Arena.ofAuto().allocate(4096));
            ends.server.send(source, 0, 4096, "first", persistent ? EnumSet.of(ExsFlag.PERSISTENT)
                    : EnumSet.noneOf(ExsFlag.class));
            CompletableFuture<ExsEvent> received = ends.client.recvAsync(sink, 0, 4096);
            // only the client's queue moves: the server's send went out when it was posted
            assertThat(ends.clientQueue.await(received, Ends.BOUND).length()).isEqualTo(4096);
            assertThat(sink.segment().mismatch(source.segment())).isEqualTo(-1);
            if (!persistent) {
                assertThat(ends.next(ends.serverQueue, ExsEvent.Type.SEND).context()).isEqualTo("first");
            }
        }
    }

    @Test
    void dataUpToTheSmallPacketSizeTravelsInTheAdvertisementAndLargerIsRead() throws Exception {
        int small = 100;
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, small),
                socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 4096));
        int[] sizes = {0, 1, small - 1, small, small + 1, 4096};
        long reads = 0;
        for (int size : sizes) {
            ExsMemory source = ends.clientExs.register(pattern(Math.max(1, size), size));
            ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(Math.max(1, size)));
            ends.server.recv(sink, 0, size, size);
            ends.client.send(source, 0, size, size);
            ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
            assertThat(received.ok()).isTrue();
            assertThat(received.length()).as("octets received of %d", size).isEqualTo(size);
            assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).length()).isEqualTo(size);
            assertThat(sink.segment().asSlice(0, size).mismatch(source.segment().asSlice(0, size))).isEqualTo(-1);
            if (size > small) {
                reads++;
            }
            assertThat(ends.server.connection().reads()).as("reads after a send of %d octets", size).isEqualTo(reads);
        }
    }

    @Test
    void aSenderHoldsNoMoreAdvertisementsThanTheCreditsAndGoesOnAsTheyReturn() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.CREDITS, 8),
                socket -> socket.setOption(ExsOption.CREDITS, 2));
        int messages = 7;
        int size = 10_000;
        ExsMemory source = ends.clientExs.register(pattern(messages * size, 3));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate((long) messages * size));
        for (int i = 0; i < messages; i++) {
            ends.client.send(source, (long) i * size, size, i);
        }
        assertThat(ends.client.connection().unacknowledged()).isEqualTo(2);
        while (ends.server.connection().held() < 2) { // both advertisements arrive; nothing is taken yet
            assertThat(ends.drain(ends.serverQueue)).isEmpty();
        }
        assertThat(ends.client.connection().unacknowledged()).isEqualTo(2);
        assertThat(ends.client.connection().waiting()).isEqualTo(messages - 2);
        for (int i = 0; i < messages; i++) {
            ends.server.recv(sink, (long) i * size, size, i);
        }
        for (int i = 0; i < messages; i++) {
            ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
            assertThat(received.context()).isEqualTo(i);
            assertThat(received.length()).isEqualTo(size);
        }
        for (int i = 0; i < messages; i++) {
            assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).context()).isEqualTo(i);
        }
        assertThat(sink.segment().mismatch(source.segment())).isEqualTo(-1);
        assertThat(ends.client.connection().unacknowledged()).isZero();
        assertThat(ends.server.connection().held()).isZero();
    }

    @Test
    void theTransportNeverWaitsForAnApplicationThreadHoldingTheQueue() throws Exception {
        Exs serverExs = Exs.init(transport.responder());
        Exs clientExs = Exs.init(transport.initiator());
        ExsQueue serverQueue = serverExs.createQueue();
        ExsQueue clientQueue = clientExs.createQueue();
        SocketAddress address = transport.nextAddress();
        ExsSocket listening = serverExs.socket(serverQueue);
        listening.bind(address);
        listening.listen(1);
        listening.accept("accept");
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().name("application-holding-the-queue").start(() -> {
            serverQueue.lock.lock(); // as an application thread moving the protocol holds it
            try {
                held.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                serverQueue.unlock();
            }
        });
        held.await();
        List<ExsEvent> events = new java.util.ArrayList<>();
        ExsEvent[] into = new ExsEvent[8];
        long deadline = System.nanoTime() + Ends.BOUND.toNanos();
        try {
            clientExs.socket(clientQueue).connect(address, "connect");
            // the connection request reaches the held queue: handed over, or (what must not happen) a thread waits
            while (!serverQueue.handingOver() && !serverQueue.lock.hasQueuedThreads()) {
                assertThat(System.nanoTime()).as("the connection request came").isLessThan(deadline);
                events.addAll(java.util.Arrays.asList(into).subList(0, clientQueue.dequeue(into, 0,
                        Duration.ofMillis(1))));
            }
            assertThat(serverQueue.lock.hasQueuedThreads()).as("a thread waits for the application's lock").isFalse();
        } finally {
            release.countDown(); // its holder runs what was handed over as it lets go
            holder.join();
        }
        while (events.stream().filter(e -> e.type() == ExsEvent.Type.ACCEPT || e.type() == ExsEvent.Type.CONNECT)
                .count() < 2) {
            assertThat(System.nanoTime()).as("accepted and connected, having seen " + events).isLessThan(deadline);
            events.addAll(java.util.Arrays.asList(into).subList(0, serverQueue.dequeue(into, 0, Duration.ZERO)));
            events.addAll(java.util.Arrays.asList(into).subList(0, clientQueue.dequeue(into, 0, Duration.ofMillis(1))));
        }
        assertThat(events).allSatisfy(event -> assertThat(event.error()).isNull());
    }

    @Test
    void aShortReceiveLeavesTheRestOfTheMessageForTheNext() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 512),
                socket -> { });
        for (int size : new int[] {500, 5000}) { // immediate, then read
            ExsMemory source = ends.clientExs.register(pattern(size, size));
            ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(size + 16));
            ends.client.send(source, 0, size, "whole");
            int first = size / 3;
            ends.server.recv(sink, 0, first, "first");
            ends.server.recv(sink, first, size + 16 - first, "rest");
            assertThat(ends.next(ends.serverQueue, ExsEvent.Type.RECV).length()).isEqualTo(first);
            ExsEvent rest = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
            assertThat(rest.context()).isEqualTo("rest");
            assertThat(rest.length()).isEqualTo(size - first);
            assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).length()).isEqualTo(size);
            assertThat(sink.segment().asSlice(0, size).mismatch(source.segment())).isEqualTo(-1);
        }
    }

    @Test
    void messagesBothWaysArriveInOrderAndIntact() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.CREDITS, 4),
                socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 1024));
        Random random = new Random(42);
        int messages = 200;
        int[] sizes = new int[messages];
        long total = 0;
        for (int i = 0; i < messages; i++) {
            sizes[i] = random.nextInt(3) == 0 ? random.nextInt(1100) : random.nextInt(40_000);
            total += sizes[i];
        }
        for (boolean clientSends : new boolean[] {true, false}) {
            ExsSocket sender = clientSends ? ends.client : ends.server;
            ExsSocket receiver = clientSends ? ends.server : ends.client;
            ExsMemory source = (clientSends ? ends.clientExs : ends.serverExs).register(pattern(total, 7));
            ExsMemory sink = (clientSends ? ends.serverExs : ends.clientExs).register(Arena.ofAuto().allocate(total));
            long at = 0;
            for (int i = 0; i < messages; i++) {
                sender.send(source, at, sizes[i], i);
                receiver.recv(sink, at, sizes[i], i);
                at += sizes[i];
            }
            ExsQueue receiving = clientSends ? ends.serverQueue : ends.clientQueue;
            ExsQueue sending = clientSends ? ends.clientQueue : ends.serverQueue;
            for (int i = 0; i < messages; i++) {
                ExsEvent received = ends.next(receiving, ExsEvent.Type.RECV);
                assertThat(received.context()).isEqualTo(i);
                assertThat(received.length()).isEqualTo(sizes[i]);
            }
            for (int i = 0; i < messages; i++) {
                assertThat(ends.next(sending, ExsEvent.Type.SEND).context()).isEqualTo(i);
            }
            assertThat(sink.segment().mismatch(source.segment())).isEqualTo(-1);
        }
    }

    @Test
    void closingEndsWhatIsOutstandingOnBothSides() throws Exception {
        Ends ends = new Ends(transport);
        ExsMemory memory = ends.clientExs.register(Arena.ofAuto().allocate(64));
        ExsMemory serverMemory = ends.serverExs.register(Arena.ofAuto().allocate(64));
        ends.client.recv(memory, 0, 64, "waiting");
        ends.server.recv(serverMemory, 0, 64, "server waiting");
        ends.client.close("bye");
        ExsEvent cancelled = ends.next(ends.clientQueue, ExsEvent.Type.RECV);
        assertThat(cancelled.context()).isEqualTo("waiting");
        assertThat(cancelled.error()).hasMessageContaining("closed before it finished");
        ExsEvent closed = ends.next(ends.clientQueue, ExsEvent.Type.CLOSE);
        assertThat(closed.context()).isEqualTo("bye");
        assertThat(closed.error()).isNull();
        ExsEvent serverCancelled = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(serverCancelled.error()).hasMessageContaining("the peer closed");
        ExsEvent serverClosed = ends.next(ends.serverQueue, ExsEvent.Type.CLOSE);
        assertThat(serverClosed.error()).isNull();
        assertThat(ends.client.state()).isEqualTo(ExsSocket.State.CLOSED);
        assertThat(ends.server.state()).isEqualTo(ExsSocket.State.CLOSED);
        assertThatThrownBy(() -> ends.client.send(memory, 0, 1, "late")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot send: " + ends.client + " is closed");
    }

    @Test
    void misuseIsAClearException() throws Exception {
        Ends ends = new Ends(transport);
        ExsSocket fresh = ends.clientExs.socket(ends.clientQueue);
        ExsMemory memory = ends.clientExs.register(Arena.ofAuto().allocate(64));
        assertThatThrownBy(() -> fresh.send(memory, 0, 8, null)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot send: " + fresh + " is new");
        assertThatThrownBy(() -> ends.client.send(memory, 60, 8, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8 octets at 60 are outside the 64 octets registered");
        ExsMemory other = ends.serverExs.register(Arena.ofAuto().allocate(64));
        assertThatThrownBy(() -> ends.client.recv(other, 0, 8, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("another EXS instance");
        memory.deregister();
        assertThatThrownBy(() -> ends.client.send(memory, 0, 8, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not registered");
        assertThatThrownBy(() -> ends.client.setOption(ExsOption.CREDITS, 4))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is connected");
        assertThatThrownBy(() -> fresh.setOption(ExsOption.CREDITS, 0)).isInstanceOf(IllegalArgumentException.class);
        List<ExsEvent> none = ends.drain(ends.clientQueue);
        assertThat(none).isEmpty();
    }

    @Test
    void aPersistentBlockIsReadAThousandTimesAsTheSenderChangesIt() throws Exception {
        Ends ends = new Ends(transport);
        int size = 4096;
        ExsMemory block = ends.clientExs.register(Arena.ofAuto().allocate(size));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(size));
        ends.client.send(block, 0, size, "block", EnumSet.of(ExsFlag.PERSISTENT));
        for (int version = 0; version < 1000; version++) {
            block.segment().fill((byte) version); // the sender changes its block between the receiver's reads
            block.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, version);
            ends.server.recv(sink, 0, size, version);
            ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
            assertThat(received.context()).isEqualTo(version);
            assertThat(received.length()).isEqualTo(size);
            assertThat(sink.segment().mismatch(block.segment())).as("read %d", version).isEqualTo(-1);
        }
        assertThat(ends.drain(ends.clientQueue)).as("the sender of a persistent block hears nothing").isEmpty();
        assertThatThrownBy(() -> ends.client.send(block, 0, 1, "more")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("persistent send");
        ends.client.close("bye");
        ExsEvent ended = ends.next(ends.clientQueue, ExsEvent.Type.SEND);
        assertThat(ended.context()).isEqualTo("block");
        assertThat(ended.error()).as("a persistent send ends with its connection").isNull();
    }

    @Test
    void aPersistentBlockAskingForNotificationsHearsOfReadsAndOffsetsReadPartsOfIt() throws Exception {
        Ends ends = new Ends(transport);
        int size = 4096;
        ExsMemory block = ends.clientExs.register(pattern(size, 11));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(size));
        ends.client.send(block, 0, size, "block", EnumSet.of(ExsFlag.PERSISTENT, ExsFlag.NOTIFY));
        long read = 0;
        for (int i = 0; i < 5; i++) {
            ends.server.recvOffset(sink, 0, 500, 1000 + i, i, EnumSet.noneOf(ExsFlag.class));
            assertThat(ends.next(ends.serverQueue, ExsEvent.Type.RECV).length()).isEqualTo(500);
            assertThat(sink.segment().asSlice(0, 500).mismatch(block.segment().asSlice(1000 + i, 500)))
                    .isEqualTo(-1);
            read += 500;
        }
        ends.server.recvOffset(sink, 0, 500, size - 100, "tail", EnumSet.noneOf(ExsFlag.class));
        assertThat(ends.next(ends.serverQueue, ExsEvent.Type.RECV).length()).as("what is left of the block")
                .isEqualTo(100);
        read += 100;
        ends.server.recvOffset(sink, 0, 500, size + 1, "beyond", EnumSet.noneOf(ExsFlag.class));
        ExsEvent beyond = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(beyond.error()).hasMessageContaining("beyond the peer's persistent block of 4096 octets");
        long heard = 0;
        while (heard < read) { // notifications sum the reads made while one was outstanding
            ExsEvent notified = ends.next(ends.clientQueue, ExsEvent.Type.READ);
            assertThat(notified.context()).isEqualTo("block");
            heard += notified.length();
        }
        assertThat(heard).isEqualTo(read);
    }

    @Test
    void aPersistentReceiveTakesEveryMessageWhereItsSenderPlacedIt() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 64),
                socket -> { });
        int size = 1024;
        ExsMemory target = ends.serverExs.register(Arena.ofAuto().allocate(size));
        ends.server.recv(target, 0, size, "all", EnumSet.of(ExsFlag.PERSISTENT));
        ExsMemory source = ends.clientExs.register(pattern(2L * size, 5));
        long[][] sends = {{0, 100}, {100, 32}, {900, 124}, {1000, 200}}; // placement, length: the last does not fit
        for (long[] send : sends) {
            ends.client.sendOffset(source, send[0], (int) send[1], send[0], send[0], EnumSet.noneOf(ExsFlag.class));
        }
        for (int i = 0; i < 3; i++) {
            ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
            assertThat(received.context()).isEqualTo("all");
            assertThat(received.error()).isNull();
            assertThat(received.length()).isEqualTo(sends[i][1]);
            assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).error()).isNull();
        }
        ExsEvent refused = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(refused.error()).hasMessageContaining("200 octets at 1000 does not fit");
        ExsEvent failed = ends.next(ends.clientQueue, ExsEvent.Type.SEND);
        assertThat(failed.context()).isEqualTo(1000L);
        assertThat(failed.error()).hasMessageContaining("no room for 200 octets at 1000");
        for (int i = 0; i < 3; i++) {
            long at = sends[i][0];
            int length = (int) sends[i][1];
            assertThat(target.segment().asSlice(at, length).mismatch(source.segment().asSlice(at, length)))
                    .isEqualTo(-1);
        }
        assertThatThrownBy(() -> ends.server.recv(target, 0, 1, "another"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("persistent receive");
    }

    @Test
    void bothSidesCannotBePersistent() throws Exception {
        Ends ends = new Ends(transport);
        ExsMemory block = ends.clientExs.register(pattern(256, 1));
        ExsMemory target = ends.serverExs.register(Arena.ofAuto().allocate(256));
        ends.server.recv(target, 0, 256, "persistent", EnumSet.of(ExsFlag.PERSISTENT));
        ends.client.send(block, 0, 256, "block", EnumSet.of(ExsFlag.PERSISTENT));
        ExsEvent refused = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(refused.context()).isEqualTo("persistent");
        assertThat(refused.error()).hasMessageContaining("both sides of a connection cannot be persistent");
        ends.server.recv(target, 0, 256, "plain"); // a plain receive reads the block
        ExsEvent received = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(received.context()).isEqualTo("plain");
        assertThat(target.segment().mismatch(block.segment())).isEqualTo(-1);
    }

    @Test
    void aWaitallReceiveIsFilledFromAsManyMessagesAsItTakes() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 3000),
                socket -> { });
        ExsMemory source = ends.clientExs.register(pattern(12_000, 8));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(12_000));
        ends.server.recv(sink, 0, 10_000, "all of it", EnumSet.of(ExsFlag.WAITALL));
        ends.server.recv(sink, 10_000, 2000, "the rest");
        int[] sizes = {3000, 3000, 5000, 1000}; // immediate, immediate, read (split across both receives), read
        long at = 0;
        for (int size : sizes) {
            ends.client.send(source, at, size, size);
            at += size;
        }
        ExsEvent filled = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(filled.context()).isEqualTo("all of it");
        assertThat(filled.length()).isEqualTo(10_000);
        ExsEvent rest = ends.next(ends.serverQueue, ExsEvent.Type.RECV);
        assertThat(rest.context()).isEqualTo("the rest");
        assertThat(rest.length()).as("the rest of the third message").isEqualTo(1000);
        for (int i = 0; i < 3; i++) {
            assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).error()).isNull();
        }
        assertThat(sink.segment().asSlice(0, 11_000).mismatch(source.segment().asSlice(0, 11_000))).isEqualTo(-1);
    }

    @Test
    void aServerAndAClientOnVirtualThreadsWithQueuesOfTheirOwn() throws Exception {
        Exs serverExs = Exs.init(transport.responder());
        Exs clientExs = Exs.init(transport.initiator());
        try (ExsQueue serverQueue = serverExs.createQueue(ExsQueue.Driver.THREAD);
                ExsQueue clientQueue = clientExs.createQueue(ExsQueue.Driver.THREAD)) {
            SocketAddress address = transport.nextAddress();
            ExsSocket listening = serverExs.socket(serverQueue);
            listening.bind(address);
            listening.listen(1);
            ExsMemory message = clientExs.register(pattern(10_000, 3));
            ExsMemory buffer = serverExs.register(Arena.ofAuto().allocate(10_000));
            ExsSocket client = clientExs.socket(clientQueue);
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<ExsEvent> served = threads.submit(() -> {
                    ExsSocket peer = listening.acceptAsync().get().socket();
                    return peer.recvAsync(buffer, 0, 10_000).get();
                });
                client.connectAsync(address).get(10, TimeUnit.SECONDS);
                assertThat(client.sendAsync(message, 0, 10_000).get(10, TimeUnit.SECONDS).length())
                        .isEqualTo(10_000);
                assertThat(served.get(10, TimeUnit.SECONDS).length()).isEqualTo(10_000);
            }
            assertThat(buffer.segment().mismatch(message.segment())).isEqualTo(-1);
            CompletableFuture<ExsEvent> pending = client.recvAsync(message, 0, 16);
            client.closeAsync().get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(ExsException.class).hasMessageContaining("closed before it finished");
        }
    }

    @Test
    void awaitingAFutureMovesAQueueItsCallersDrive() throws Exception {
        Ends ends = new Ends(transport);
        ExsMemory message = ends.clientExs.register(pattern(100_000, 4));
        ExsMemory buffer = ends.serverExs.register(Arena.ofAuto().allocate(100_000));
        CompletableFuture<ExsEvent> sent = ends.client.sendAsync(message, 0, 100_000);
        CompletableFuture<ExsEvent> received = ends.server.recvAsync(buffer, 0, 100_000);
        // the receiver's wait alone moves its side: it matches, reads and acknowledges
        assertThat(ends.serverQueue.await(received, Ends.BOUND).length()).isEqualTo(100_000);
        assertThat(ends.clientQueue.await(sent, Ends.BOUND).length()).isEqualTo(100_000);
        assertThat(buffer.segment().mismatch(message.segment())).isEqualTo(-1);
        CompletableFuture<ExsEvent> never = ends.server.recvAsync(buffer, 0, 1);
        assertThatThrownBy(() -> ends.serverQueue.await(never, Duration.ofMillis(50)))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void aFileIsSentStraightFromItsMapping(@org.junit.jupiter.api.io.TempDir java.nio.file.Path directory)
            throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.SMALL_PACKET_MAX_SIZE, 256),
                socket -> { });
        byte[] contents = pattern(100_000, 31).toArray(ValueLayout.JAVA_BYTE);
        java.nio.file.Path path = java.nio.file.Files.write(directory.resolve("data"), contents);
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(100_000));
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(path)) {
            int[][] parts = {{1000, 99_000}, {10, 200}}; // read from the mapping, then immediate
            for (int[] part : parts) {
                ends.server.recv(sink, 0, part[1], part[0]);
                ends.client.sendFile(file, part[0], part[1], part[0]);
                assertThat(ends.next(ends.serverQueue, ExsEvent.Type.RECV).length()).isEqualTo(part[1]);
                assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).error()).isNull();
                assertThat(sink.segment().asSlice(0, part[1]).mismatch(MemorySegment.ofArray(contents)
                        .asSlice(part[0], part[1]))).isEqualTo(-1);
            }
            assertThatThrownBy(() -> ends.client.sendFile(file, 99_999, 2, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the 100000-octet file");
        }
    }

    @Test
    void pollWaitsForEventsAndTakesNone() throws Exception {
        Ends ends = new Ends(transport);
        assertThat(ends.clientQueue.poll(Duration.ZERO)).isZero();
        ExsMemory source = ends.clientExs.register(pattern(64, 2));
        ExsMemory sink = ends.serverExs.register(Arena.ofAuto().allocate(64));
        ends.server.recv(sink, 0, 64, "r");
        ends.client.send(source, 0, 64, "s");
        assertThat(ends.serverQueue.poll(Ends.BOUND)).isEqualTo(1); // its poll moves the receiver's side
        assertThat(ends.serverQueue.poll(Duration.ZERO)).as("still there").isEqualTo(1);
        assertThat(ends.clientQueue.poll(Ends.BOUND)).as("the acknowledgement's event").isEqualTo(1);
        // (taking events with the fixture drives both queues: nothing more to poll after it)
        assertThat(ends.next(ends.serverQueue, ExsEvent.Type.RECV).context()).isEqualTo("r");
        assertThat(ends.next(ends.clientQueue, ExsEvent.Type.SEND).context()).isEqualTo("s");
    }

    @Test
    void doubleBufferedTransactionsOverPersistentBlocksThatNotify() throws Exception {
        // section 4.2: the client's requests live in two persistent blocks, A and B, each sent once on a socket of
        // its own asking for read notifications; request k is in block k % 2. The server reads the block until it
        // holds request k whole (a checksum over it tells a torn read, as the paper suggests), answers on a third
        // socket, and the client rewrites the block with request k + 2 only once it heard the block was read.
        int size = 1024;
        Ends[] blocks = {new Ends(transport), new Ends(transport)};
        Ends answers = new Ends(transport);
        ExsMemory[] requests = new ExsMemory[2];
        for (int x = 0; x < 2; x++) {
            requests[x] = blocks[x].clientExs.register(Arena.ofAuto().allocate(size));
            writeRequest(requests[x].segment(), x);
            blocks[x].client.send(requests[x], 0, size, "block " + x, EnumSet.of(ExsFlag.PERSISTENT, ExsFlag.NOTIFY));
        }
        ExsMemory[] sinks = {blocks[0].serverExs.register(Arena.ofAuto().allocate(size)),
            blocks[1].serverExs.register(Arena.ofAuto().allocate(size))};
        ExsMemory answer = answers.serverExs.register(Arena.ofAuto().allocate(8));
        ExsMemory answered = answers.clientExs.register(Arena.ofAuto().allocate(8));
        int transactions = 200;
        for (int k = 0; k < transactions; k++) {
            Ends block = blocks[k % 2];
            int reads = 0;
            do {
                assertThat(++reads).as("reads of request %d", k).isLessThan(1000);
                block.server.recv(sinks[k % 2], 0, size, k);
                assertThat(block.next(block.serverQueue, ExsEvent.Type.RECV).length()).isEqualTo(size);
            } while (requestIn(sinks[k % 2].segment()) != k);
            answer.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 3L * k);
            answers.client.recv(answered, 0, 8, k);
            answers.server.send(answer, 0, 8, k);
            assertThat(answers.next(answers.clientQueue, ExsEvent.Type.RECV).context()).isEqualTo(k);
            assertThat(answered.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(3L * k);
            assertThat(answers.next(answers.serverQueue, ExsEvent.Type.SEND).error()).isNull();
            ExsEvent read = block.next(block.clientQueue, ExsEvent.Type.READ); // the block was read: rewrite it
            assertThat(read.context()).isEqualTo("block " + (k % 2));
            writeRequest(requests[k % 2].segment(), k + 2);
        }
    }

    /** Request {@code k}: its number, a pattern of it, and a checksum over both in the last 8 octets. */
    private static void writeRequest(MemorySegment block, int k) {
        long size = block.byteSize();
        for (long i = 0; i < size - 8; i += 4) {
            block.set(ValueLayout.JAVA_INT_UNALIGNED, i, k * 31 + (int) i);
        }
        block.set(ValueLayout.JAVA_LONG_UNALIGNED, size - 8, checksum(block));
    }

    /** The request a read block holds whole, or -1 for a torn read. */
    private static int requestIn(MemorySegment block) {
        if (block.get(ValueLayout.JAVA_LONG_UNALIGNED, block.byteSize() - 8) != checksum(block)) {
            return -1;
        }
        return block.get(ValueLayout.JAVA_INT_UNALIGNED, 0) / 31;
    }

    private static long checksum(MemorySegment block) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(block.asSlice(0, block.byteSize() - 8).asByteBuffer());
        return crc.getValue();
    }

    /** A segment of {@code size} octets of a pattern seeded by {@code seed}. */
    static MemorySegment pattern(long size, int seed) {
        MemorySegment memory = Arena.ofAuto().allocate(Math.max(1, size));
        Random random = new Random(seed);
        for (long i = 0; i < size; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return memory;
    }
}
