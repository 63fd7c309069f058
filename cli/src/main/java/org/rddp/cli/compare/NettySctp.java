package org.rddp.cli.compare;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.sctp.SctpChannel;
import io.netty.channel.sctp.SctpChannelOption;
import io.netty.channel.sctp.SctpMessage;
import io.netty.channel.sctp.nio.NioSctpChannel;
import io.netty.channel.sctp.nio.NioSctpServerChannel;
import io.netty.handler.codec.sctp.SctpMessageCompletionHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rddp.cli.perftest.Baselines;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.sctp.DdpSctp;

/**
 * Netty's SCTP transport ({@code netty-transport-sctp}, the NIO one: it wraps the JDK's {@code SctpChannel}) as a
 * baseline of {@code rddp compare} on a host with kernel SCTP: what a Netty user gets, with one event loop thread per
 * end and the measuring done in the handlers, as a Netty program would. It speaks as {@link JdkSctp} does: bandwidth,
 * unordered messages on stream 1 of at most {@link JdkSctp#largestMessage} (written while the channel is writable,
 * flushed per burst of {@link Baselines#burst}), then a one-octet acknowledgement; latency, a ping-pong. The buffers
 * are sized as {@link JdkSctp}'s, where Netty lets a program set them (the child channel's too).
 */
final class NettySctp {
    private static final int SEND_BUFFER = 2 << 20;
    private static final int RECEIVE_BUFFER = 4 << 20;
    private static final int STREAM = 1;

    private NettySctp() {
    }

    /**
     * What an end measures: run on the event loop, completing {@link #done} with its result (or null). Its writes
     * carry the channel's void promise, so that a write that fails reaches {@link #exceptionCaught} (with a promise of
     * its own it would only fail that promise, and the channel close as if the peer had ended the association).
     */
    abstract static class End extends ChannelInboundHandlerAdapter {
        final CompletableFuture<PerfResult> done = new CompletableFuture<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IOException("the association ended " + progress()));
        }

        /** How far this end got, for a failure: "after ...". */
        abstract String progress();

        static SctpMessage message(ChannelHandlerContext ctx, int length) {
            ByteBuf data = ctx.alloc().directBuffer(length).writeZero(length);
            return new SctpMessage(DdpSctp.PPID_DDP_SEGMENT, STREAM, true, data);
        }
    }

    /** The server end: a server channel on a free port of {@code bind}, one association, its handler made per point. */
    static final class Server implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Channel listening;
        private final CompletableFuture<End> served = new CompletableFuture<>();

        @SuppressWarnings("checkstyle:IllegalCatch") // Netty's sync() rethrows the bind's failure as it was
        Server(Compare.Task task, InetAddress bind) throws IOException {
            ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(NioSctpServerChannel.class)
                    .childOption(ChannelOption.SO_SNDBUF, SEND_BUFFER)
                    .childOption(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER)
                    .childOption(SctpChannelOption.SCTP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SctpChannel>() {
                        @Override
                        protected void initChannel(SctpChannel channel) {
                            End end = task.bandwidth() ? new Sink((long) task.size() * task.iterations())
                                    : new Echo(task.size());
                            if (!served.complete(end)) {
                                channel.close(); // one association per point
                                return;
                            }
                            channel.pipeline().addLast(new SctpMessageCompletionHandler(), end);
                        }
                    });
            try {
                listening = bootstrap.bind(new InetSocketAddress(bind, 0)).sync().channel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IOException("interrupted binding", e);
            } catch (RuntimeException e) {
                close();
                throw new IOException("Netty's SCTP server channel: " + e, e);
            }
        }

        int port() {
            return ((InetSocketAddress) listening.localAddress()).getPort();
        }

        /** Waits until the client's point is over on this end. */
        void serve(Duration timeout) throws Exception {
            await(served, timeout, "an association from the client").done.get(timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
        }

        @Override
        public void close() {
            if (listening != null) {
                listening.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * The client end of {@code task} against {@code server}: bandwidth (the sender) or a ping-pong; returns what it
     * measured.
     */
    static PerfResult client(Compare.Task task, InetSocketAddress server, int outstanding, Duration timeout)
            throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            int message = Math.min(task.size(), JdkSctp.largestMessage(server.getAddress()));
            End end = task.bandwidth() ? new Sender(task.size(), task.iterations(), message,
                    Baselines.burst(message, outstanding)) : new Pinger(task.size(), (int) task.iterations());
            Channel channel = new Bootstrap().group(group).channel(NioSctpChannel.class)
                    .option(ChannelOption.SO_SNDBUF, SEND_BUFFER).option(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER)
                    .option(SctpChannelOption.SCTP_NODELAY, true)
                    .handler(new ChannelInitializer<SctpChannel>() {
                        @Override
                        protected void initChannel(SctpChannel sctp) {
                            sctp.pipeline().addLast(new SctpMessageCompletionHandler(), end);
                        }
                    }).connect(server).sync().channel();
            try {
                return await(end.done, timeout, "the point");
            } finally {
                channel.close().syncUninterruptibly();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static <T> T await(CompletableFuture<T> future, Duration timeout, String what) throws Exception {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("no " + what + " within " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** Bandwidth's sender: writes while the channel is writable, flushing each burst; then awaits the answer. */
    static final class Sender extends End {
        private final int size;
        private final long iterations;
        private final long total;
        private final int message;
        private final int burst;
        private long sent;
        private long start;

        Sender(int size, long iterations, int message, int burst) {
            this.size = size;
            this.iterations = iterations;
            this.total = (long) size * iterations;
            this.message = message;
            this.burst = burst;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            start = System.nanoTime();
            write(ctx);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            write(ctx);
        }

        private void write(ChannelHandlerContext ctx) {
            int inBurst = 0;
            while (sent < total && ctx.channel().isWritable()) {
                int length = (int) Math.min(message, total - sent);
                // counted first: the write can run this method again (through channelWritabilityChanged, as it
                // fills the channel's buffer and a nested flush empties it), which must see it sent
                sent += length;
                ctx.write(message(ctx, length), ctx.voidPromise());
                if (++inBurst == burst) {
                    ctx.flush();
                    inBurst = 0;
                }
            }
            ctx.flush();
        }

        @Override
        String progress() {
            return "after " + sent + " of " + total + " octets were sent, before the receiver's answer";
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // the answer: everything arrived
            done.complete(PerfResult.Bandwidth.of(size, iterations, System.nanoTime() - start, 0));
        }
    }

    /** Bandwidth's receiver: counts the octets, then answers with one. */
    private static final class Sink extends End {
        private final long total;
        private long received;

        Sink(long total) {
            this.total = total;
        }

        @Override
        String progress() {
            return "after " + received + " of " + total + " octets arrived";
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            SctpMessage message = (SctpMessage) msg;
            received += message.content().readableBytes();
            message.release();
            if (received >= total && !done.isDone()) {
                ctx.writeAndFlush(message(ctx, 1), ctx.voidPromise());
                done.complete(null);
            }
        }
    }

    /** Latency's pinger: one message at a time, each timed to its echo. */
    private static final class Pinger extends End {
        private final int size;
        private final long[] rtt;
        private int round;
        private long start;

        Pinger(int size, int iterations) {
            this.size = size;
            this.rtt = new long[iterations];
        }

        @Override
        String progress() {
            return "after " + round + " of " + rtt.length + " round trips";
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            start = System.nanoTime();
            ctx.writeAndFlush(message(ctx, size), ctx.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            long now = System.nanoTime();
            rtt[round++] = now - start;
            if (round == rtt.length) {
                done.complete(PerfResult.Latency.of(size, rtt, 2));
                return;
            }
            start = System.nanoTime();
            ctx.writeAndFlush(message(ctx, size), ctx.voidPromise());
        }
    }

    /** Latency's echo: sends each message back. */
    private static final class Echo extends End {
        private final int size;

        Echo(int size) {
            this.size = size;
        }

        @Override
        String progress() {
            return "while echoing"; // never: the pinger ends the association
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            ctx.writeAndFlush(message(ctx, size), ctx.voidPromise());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.complete(null); // the pinger closed: done
        }
    }
}
