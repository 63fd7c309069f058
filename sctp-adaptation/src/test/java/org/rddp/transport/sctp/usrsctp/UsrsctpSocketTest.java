package org.rddp.transport.sctp.usrsctp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

class UsrsctpSocketTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void fewerThan32768ChunksAreEverInFlight() throws Exception {
        UsrsctpStack.udp();
        assertThat(UsrsctpStack.maxChunksInFlight()).isPositive()
                .isLessThanOrEqualTo(DdpSctp.MAX_CHUNKS_IN_FLIGHT_PER_STREAM);
    }

    /**
     * A connect to a port nothing listens on ends at once, saying the peer refused it (its ABORT answered the INIT),
     * not only that the association is gone: the socket's error tells a refusal from a handshake that timed out.
     */
    @Test
    void aConnectToAPortNothingListensOnIsRefusedSayingSo() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        // a listener holds this process's UDP port, where the INIT goes; it listens on another SCTP port
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            listening.start(SctpSocket::abort);
            int nobody = listening.address().getPort() == 9 ? 10 : 9;
            assertThatThrownBy(() -> stack.connect(LOOPBACK, new InetSocketAddress(LOOPBACK.getAddress(), nobody),
                    8, DdpSctp.ADAPTATION_INDICATION))
                    .isInstanceOf(java.net.ConnectException.class) // a refusal, as TCP's
                    .hasMessageContaining("failed after")
                    .hasMessageContaining("the peer refused it (an ABORT answered the INIT");
        }
    }

    @Test
    void anAssociationCarriesThePpidTheUBitAndTheAdaptationIndication() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
            listening.start(accepted::complete);
            try (SctpSocket client = stack.connect(LOOPBACK, listening.address(), 8, DdpSctp.ADAPTATION_INDICATION);
                    SctpSocket server = accepted.get(10, TimeUnit.SECONDS)) {
                Semaphore ready = new Semaphore(0);
                server.onReady(ready::release);
                MemorySegment out = Arena.ofAuto().allocate(64);
                out.set(ValueLayout.JAVA_INT, 0, 0x01020304);
                assertThat(client.send(out, 0, 20, 3, DdpSctp.PPID_DDP_SEGMENT, true)).isEqualTo(20);

                MemorySegment in = Arena.ofAuto().allocate(70000);
                SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
                boolean adaptation = false;
                boolean data = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!data && System.nanoTime() < deadline) {
                    int length = server.receive(in, message);
                    if (length == SctpSocket.WOULD_BLOCK) {
                        ready.tryAcquire(1, TimeUnit.SECONDS);
                        continue;
                    }
                    if (message.kind == SctpSocket.ReceivedMessage.ADAPTATION) {
                        assertThat(message.value).isEqualTo(DdpSctp.ADAPTATION_INDICATION);
                        adaptation = true;
                    } else if (message.kind == SctpSocket.ReceivedMessage.DATA) {
                        assertThat(length).isEqualTo(20);
                        assertThat(message.streamId).isEqualTo(3);
                        assertThat(message.ppid).isEqualTo(16);
                        assertThat(message.unordered).isTrue();
                        assertThat(message.complete).isTrue();
                        assertThat(in.get(ValueLayout.JAVA_INT, 0)).isEqualTo(0x01020304);
                        data = true;
                    }
                }
                assertThat(adaptation).as("the peer's Adaptation Layer Indication arrived first").isTrue();
                assertThat(data).isTrue();
                assertThat(server.streams()).isEqualTo(8);
            }
        }
    }

    @Test
    void theLargestMessageLeavesAsOnePacketThatFitsTheLoopbackMtuUnfragmented() throws Exception {
        UsrsctpStack stack = UsrsctpStack.udp();
        int largest = stack.maxMessage();
        int loopbackMtu = java.net.NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress()).getMTU();
        int sctpPacketLimit = Math.min(loopbackMtu, 65535) - 20 - 8; // IPv4 and UDP headers (RFC 6951)
        assertThat(largest).as("RFC 5043 §9: never below 516").isGreaterThanOrEqualTo(516)
                .isEqualTo((sctpPacketLimit & ~3) - 12 - 16); // SCTP common header, DATA chunk header
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
            listening.start(accepted::complete);
            try (SctpSocket client = stack.connect(LOOPBACK, listening.address(), 8, DdpSctp.ADAPTATION_INDICATION);
                    SctpSocket server = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(client.maxMessage()).isEqualTo(largest);
                assertThat(server.maxMessage()).isEqualTo(largest);
                Semaphore ready = new Semaphore(0);
                server.onReady(ready::release);
                MemorySegment out = Arena.ofAuto().allocate(largest);
                for (int i = 0; i < largest; i++) {
                    out.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
                }
                assertThat(client.send(out, 0, largest, 1, DdpSctp.PPID_DDP_SEGMENT, true)).isEqualTo(largest);

                MemorySegment in = Arena.ofAuto().allocate(70000);
                SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int length = SctpSocket.WOULD_BLOCK;
                while (System.nanoTime() < deadline) {
                    length = server.receive(in, message);
                    if (length == SctpSocket.WOULD_BLOCK) {
                        ready.tryAcquire(1, TimeUnit.SECONDS);
                    } else if (message.kind == SctpSocket.ReceivedMessage.DATA) {
                        break;
                    }
                }
                assertThat(length).isEqualTo(largest);
                assertThat(message.complete).isTrue();
                assertThat(in.asSlice(0, largest).mismatch(out)).isEqualTo(-1);
                assertThat(UsrsctpStack.largestPacketSent()).as("one DATA chunk in one packet, within the MTU")
                        .isGreaterThanOrEqualTo(largest + 12 + 16).isLessThanOrEqualTo(sctpPacketLimit);

                // a larger message leaves in fragments, each within the MTU too (usrsctp 0.9.5 needs help there)
                MemorySegment big = Arena.ofAuto().allocate(3L * largest);
                assertThat(client.send(big, 0, (int) big.byteSize(), 1, DdpSctp.PPID_DDP_SEGMENT, true))
                        .isEqualTo((int) big.byteSize());
                long received = 0;
                while (received < big.byteSize() && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(10)) {
                    int got = server.receive(in, message);
                    if (got == SctpSocket.WOULD_BLOCK) {
                        ready.tryAcquire(1, TimeUnit.SECONDS);
                    } else if (message.kind == SctpSocket.ReceivedMessage.DATA) {
                        received += got;
                    }
                }
                assertThat(received).isEqualTo(big.byteSize());
                assertThat(UsrsctpStack.largestPacketSent()).isLessThanOrEqualTo(sctpPacketLimit);
            }
        }
    }

    @Test
    void closingWhileAnotherThreadReceivesEndsItsReceiveInsteadOfFreeingUnderIt() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            LinkedBlockingQueue<SctpSocket> accepted = new LinkedBlockingQueue<>();
            listening.start(accepted::add);
            for (int round = 0; round < 20; round++) {
                // a receiver spinning on the client while it is closed; before the guard this freed the socket
                // under usrsctp_recvv and the JVM died with SIGSEGV
                SctpSocket socket = stack.connect(LOOPBACK, listening.address(), 8, DdpSctp.ADAPTATION_INDICATION);
                CompletableFuture<Throwable> ended = new CompletableFuture<>();
                CountDownLatch spinning = new CountDownLatch(1);
                Thread.ofPlatform().start(() -> {
                    MemorySegment in = Arena.ofAuto().allocate(2048);
                    SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
                    try {
                        while (true) {
                            socket.receive(in, message);
                            spinning.countDown();
                        }
                    } catch (java.io.IOException e) {
                        ended.complete(e);
                    }
                });
                spinning.await(10, TimeUnit.SECONDS);
                socket.close();
                assertThat(ended.get(10, TimeUnit.SECONDS)).hasMessageContaining("closed");
                SctpSocket server = accepted.poll(10, TimeUnit.SECONDS);
                assertThat(server).isNotNull();
                server.close();
            }
        }
    }

    /**
     * Both ends close, gracefully or abortively, while both still send and receive: libusrsctp2 0.9.5 corrupted
     * the heap (double free in sofree, writes to a freed socket) when a close raced with its timer or input path
     * tearing down the same association, within the first hundred rounds of this test.
     */
    @Test
    void associationsClosedFromBothEndsUnderTrafficLeaveTheHeapIntact() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            LinkedBlockingQueue<SctpSocket> accepted = new LinkedBlockingQueue<>();
            listening.start(accepted::add);
            int sent = 0;
            for (int round = 0; round < 300; round++) {
                SctpSocket client = stack.connect(LOOPBACK, listening.address(), 8, DdpSctp.ADAPTATION_INDICATION);
                SctpSocket server = accepted.poll(10, TimeUnit.SECONDS);
                assertThat(server).isNotNull();
                int messages = round * 37 % 200;
                boolean clientAborts = round % 3 == 0;
                boolean serverAborts = round % 3 == 1;
                CompletableFuture<Integer> first = CompletableFuture.supplyAsync(
                        () -> sendThenClose(client, messages, clientAborts));
                CompletableFuture<Integer> second = CompletableFuture.supplyAsync(
                        () -> sendThenClose(server, 199 - messages, serverAborts));
                sent += first.get(10, TimeUnit.SECONDS) + second.get(10, TimeUnit.SECONDS);
            }
            assertThat(sent).as("messages taken by usrsctp before the closes").isPositive();
        }
    }

    /**
     * Both ends shut down (SHUTDOWN, the socket kept and read until the association is down) while both still send
     * and receive, then close: usrsctp_shutdown racing its own timers and input path.
     */
    @Test
    void associationsShutDownFromBothEndsUnderTrafficLeaveTheHeapIntact() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        int rounds = Integer.getInteger("rddp.test.shutdownRounds", 30);
        try (SctpStack.Listening listening = stack.listen(LOOPBACK, 8, DdpSctp.ADAPTATION_INDICATION)) {
            LinkedBlockingQueue<SctpSocket> accepted = new LinkedBlockingQueue<>();
            listening.start(accepted::add);
            int down = 0;
            for (int round = 0; round < rounds; round++) {
                SctpSocket client = stack.connect(LOOPBACK, listening.address(), 8, DdpSctp.ADAPTATION_INDICATION);
                SctpSocket server = accepted.poll(10, TimeUnit.SECONDS);
                assertThat(server).isNotNull();
                int messages = round * 37 % 200;
                boolean serverShutsDown = round % 2 == 0;
                CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(
                        () -> sendThenShutDown(client, messages, true));
                CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(
                        () -> sendThenShutDown(server, 199 - messages, serverShutsDown));
                down += (first.get(20, TimeUnit.SECONDS) ? 1 : 0) + (second.get(20, TimeUnit.SECONDS) ? 1 : 0);
            }
            assertThat(down).as("ends that saw their association end").isEqualTo(2 * rounds);
        }
    }

    /** Sends while reading, shuts down (or only keeps reading), reads until the association is down, closes. */
    private static boolean sendThenShutDown(SctpSocket socket, int messages, boolean shutDown) {
        MemorySegment out = Arena.ofAuto().allocate(1024);
        MemorySegment in = Arena.ofAuto().allocate(70000);
        SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
        boolean down = false;
        try {
            for (int i = 0; i < messages; i++) {
                socket.send(out, 0, 1024, i % 8, DdpSctp.PPID_DDP_SEGMENT, true);
                socket.receive(in, message);
            }
            if (shutDown) {
                socket.shutdown();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!down && System.nanoTime() < deadline) {
                int got = socket.receive(in, message);
                if (got == SctpSocket.WOULD_BLOCK) {
                    Thread.onSpinWait();
                } else if (message.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN) {
                    down = true;
                }
            }
        } catch (java.io.IOException e) {
            down = true;
        }
        socket.close();
        return down;
    }

    /** Sends up to {@code messages} while reading what arrives, then closes; returns how many usrsctp took. */
    private static int sendThenClose(SctpSocket socket, int messages, boolean abort) {
        MemorySegment out = Arena.ofAuto().allocate(1024);
        MemorySegment in = Arena.ofAuto().allocate(70000);
        SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
        int taken = 0;
        try {
            for (int i = 0; i < messages; i++) {
                if (socket.send(out, 0, 1024, i % 8, DdpSctp.PPID_DDP_SEGMENT, true) > 0) {
                    taken++;
                }
                while (socket.receive(in, message) > 0) {
                    if (message.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN) {
                        break;
                    }
                }
            }
        } catch (java.io.IOException e) {
            // the peer closed first: the association is gone
        }
        if (abort) {
            socket.abort();
        } else {
            socket.close();
        }
        return taken;
    }
}
