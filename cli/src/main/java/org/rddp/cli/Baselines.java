package org.rddp.cli;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpSocket;
import org.rddp.transport.sctp.SctpStack;

/**
 * The raw baselines RDDP is compared with, measured the same way on loopback in this process: a plain TCP socket
 * (for RDDP over MPA) and a raw SCTP socket of the same backend (for RDDP over SCTP). Bandwidth: one thread sends
 * {@code iterations} messages of {@code size} octets, another receives them; the time runs from the first send to
 * the last octet received. Latency: one thread bounces {@code size} octets from one end to the other and back;
 * half of each round trip, reported as perftest reports Send latency.
 */
final class Baselines {
    /** The largest raw SCTP message sent: larger sizes go as several (usrsctp's default send buffer is 256 KiB). */
    static final int SCTP_MESSAGE = 64 << 10;
    private static final int RECEIVE_BUFFER = 1 << 20;

    private Baselines() {
    }

    /** TCP bandwidth: {@code iterations} writes of {@code size} octets through one connection. */
    static PerfResult.Bandwidth tcpBandwidth(int size, long iterations) throws Exception {
        SocketChannel[] pair = tcpPair();
        try (SocketChannel sender = pair[0]; SocketChannel receiver = pair[1]) {
            long total = size * iterations;
            CompletableFuture<Long> done = new CompletableFuture<>();
            Thread.ofPlatform().name("tcp-baseline-receiver").daemon().start(() -> {
                ByteBuffer in = ByteBuffer.allocateDirect(RECEIVE_BUFFER);
                try {
                    for (long received = 0; received < total;) {
                        in.clear();
                        int read = receiver.read(in);
                        if (read < 0) {
                            throw new IOException("closed after " + received + " of " + total + " octets");
                        }
                        received += read;
                    }
                    done.complete(System.nanoTime());
                } catch (IOException e) {
                    done.completeExceptionally(e);
                }
            });
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            long start = System.nanoTime();
            for (long i = 0; i < iterations; i++) {
                out.clear();
                while (out.hasRemaining()) {
                    sender.write(out);
                }
            }
            long end = done.get(5, TimeUnit.MINUTES);
            return PerfResult.Bandwidth.of(size, iterations, end - start, 0);
        }
    }

    /** TCP latency: {@code iterations} round trips of {@code size} octets. */
    static PerfResult.Latency tcpLatency(int size, int iterations) throws IOException {
        SocketChannel[] pair = tcpPair();
        try (SocketChannel near = pair[0]; SocketChannel far = pair[1]) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(size);
            long[] rtt = new long[iterations];
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                bounce(near, far, buffer);
                bounce(far, near, buffer);
                rtt[i] = System.nanoTime() - start;
            }
            return PerfResult.Latency.of(size, rtt, 2);
        }
    }

    private static void bounce(SocketChannel from, SocketChannel to, ByteBuffer buffer) throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            from.write(buffer);
        }
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (to.read(buffer) < 0) {
                throw new IOException("closed mid-message");
            }
        }
    }

    private static SocketChannel[] tcpPair() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
            SocketChannel client = SocketChannel.open(listener.getLocalAddress());
            SocketChannel server = listener.accept();
            for (SocketChannel channel : new SocketChannel[] {client, server}) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true); // as MPA's own socket
            }
            return new SocketChannel[] {client, server};
        }
    }

    /** Raw SCTP bandwidth on {@code stack}: {@code iterations} messages of {@code size} octets, unordered. */
    static PerfResult.Bandwidth sctpBandwidth(SctpStack stack, int size, long iterations) throws Exception {
        SctpSocket[] pair = sctpPair(stack);
        try (SctpSocket sender = pair[0]; SctpSocket receiver = pair[1]) {
            long total = size * iterations;
            CompletableFuture<Long> done = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().name("sctp-baseline-receiver").daemon().start(() -> {
                MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
                SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
                Thread self = Thread.currentThread();
                receiver.onReady(() -> LockSupport.unpark(self));
                try {
                    for (long received = 0; received < total;) {
                        int length = receiver.receive(in, info);
                        if (length > 0 && info.kind == SctpSocket.ReceivedMessage.DATA) {
                            received += length;
                        } else if (length == SctpSocket.WOULD_BLOCK) {
                            LockSupport.parkNanos(1_000_000); // woken by the ready hook
                        }
                    }
                    done.complete(System.nanoTime());
                } catch (IOException e) {
                    done.completeExceptionally(e);
                }
            });
            MemorySegment out = Arena.ofAuto().allocate(Math.min(size, SCTP_MESSAGE));
            Thread writer = Thread.currentThread();
            sender.onReady(() -> LockSupport.unpark(writer));
            long start = System.nanoTime();
            for (long sent = 0; sent < total;) {
                int length = (int) Math.min(out.byteSize(), total - sent);
                if (sender.send(out, 0, length, 1, DdpSctp.PPID_DDP_SEGMENT, true) > 0) {
                    sent += length;
                } else {
                    LockSupport.parkNanos(1_000_000); // woken by the ready hook when the send buffer drains
                }
            }
            long end = done.get(5, TimeUnit.MINUTES);
            reader.join();
            return PerfResult.Bandwidth.of(size, iterations, end - start, 0);
        }
    }

    /** Raw SCTP latency on {@code stack}: {@code iterations} round trips of one {@code size}-octet message. */
    static PerfResult.Latency sctpLatency(SctpStack stack, int size, int iterations) throws Exception {
        SctpSocket[] pair = sctpPair(stack);
        try (SctpSocket near = pair[0]; SctpSocket far = pair[1]) {
            MemorySegment out = Arena.ofAuto().allocate(size);
            MemorySegment in = Arena.ofAuto().allocate(RECEIVE_BUFFER);
            SctpSocket.ReceivedMessage info = new SctpSocket.ReceivedMessage();
            long[] rtt = new long[iterations];
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                bounce(near, far, out, in, info);
                bounce(far, near, out, in, info);
                rtt[i] = System.nanoTime() - start;
            }
            return PerfResult.Latency.of(size, rtt, 2);
        }
    }

    private static void bounce(SctpSocket from, SctpSocket to, MemorySegment out, MemorySegment in,
            SctpSocket.ReceivedMessage info) throws IOException {
        while (from.send(out, 0, (int) out.byteSize(), 1, DdpSctp.PPID_DDP_SEGMENT, true) < 0) {
            Thread.onSpinWait();
        }
        while (true) { // polled: a message is seen as soon as the stack queues it
            int length = to.receive(in, info);
            if (length > 0 && info.kind == SctpSocket.ReceivedMessage.DATA) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    private static SctpSocket[] sctpPair(SctpStack stack) throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        CompletableFuture<SctpSocket> accepted = new CompletableFuture<>();
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(loopback, 0), 8,
                DdpSctp.ADAPTATION_INDICATION)) {
            listening.start(accepted::complete);
            SctpSocket client = stack.connect(new InetSocketAddress(loopback, 0), listening.address(), 8,
                    DdpSctp.ADAPTATION_INDICATION);
            SctpSocket server = accepted.get(10, TimeUnit.SECONDS);
            client.onReady(() -> { });
            server.onReady(() -> { });
            return new SctpSocket[] {client, server};
        }
    }
}
