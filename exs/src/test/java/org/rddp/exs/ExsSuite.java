package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rddp.verbs.testing.TransportFixture;

/** EXS sockets end to end over one transport: data verified, credits, immediate data, close and misuse. */
abstract class ExsSuite {
    private TransportFixture transport;

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
        assertThat(ends.server.reads()).isEqualTo(1);
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
            assertThat(ends.server.reads()).as("reads after a send of %d octets", size).isEqualTo(reads);
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
        assertThat(ends.client.unacknowledged()).isEqualTo(2);
        while (ends.server.held() < 2) { // both advertisements arrive; nothing is taken yet
            assertThat(ends.drain(ends.serverQueue)).isEmpty();
        }
        assertThat(ends.client.unacknowledged()).isEqualTo(2);
        assertThat(ends.client.waiting()).isEqualTo(messages - 2);
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
        assertThat(ends.client.unacknowledged()).isZero();
        assertThat(ends.server.held()).isZero();
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
