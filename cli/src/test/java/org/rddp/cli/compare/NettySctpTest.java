package org.rddp.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rddp.cli.perftest.PerfResult;

/** The Netty SCTP baseline's ends, on Netty's embedded channel (this machine's kernel has no SCTP). */
class NettySctpTest {
    /**
     * The CI failure of 2026-11-29: every write filled the channel's buffer past its high mark, Netty told the sender
     * at once (inside the write), and a flush in that call made it writable again, so the sender ran again inside its
     * own write and sent the rest; the outer call then counted its message a second time and one message too many
     * went out. The receiver answered at the count, its host closed with that message unread, and Linux aborted the
     * association before the answer was read. Here the buffer holds less than one message: the sender must write
     * exactly what it was asked to.
     */
    @Test
    void theSenderWritesExactlyItsTotalWhenEachWriteChangesTheChannelsWritability() throws Exception {
        int size = 1000;
        int iterations = 50;
        NettySctp.Sender sender = new NettySctp.Sender(size, iterations, size, 4);
        EmbeddedChannel channel = new EmbeddedChannel(false, false);
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1, size / 2));
        channel.pipeline().addLast(sender);
        channel.register(); // active: the sender writes, and flushes as the channel asks
        long octets = 0;
        int messages = 0;
        for (Object message; (message = channel.readOutbound()) != null; messages++) {
            octets += ((ByteBufHolder) message).content().readableBytes();
            ReferenceCountUtil.release(message);
        }
        assertThat(messages).isEqualTo(iterations);
        assertThat(octets).isEqualTo((long) size * iterations);
        assertThat(sender.done).isNotDone();

        channel.writeInbound(Unpooled.wrappedBuffer(new byte[1])); // the receiver's answer
        PerfResult result = sender.done.get(1, TimeUnit.SECONDS);
        assertThat(result).isInstanceOf(PerfResult.Bandwidth.class);
        channel.finishAndReleaseAll();
    }
}
