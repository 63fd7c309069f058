package org.rddp.exs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketAddress;
import org.junit.jupiter.api.Test;
import org.rddp.verbs.testing.InMemoryTransport;
import org.rddp.verbs.testing.TransportFixture;

/** The EXS suite over the in-memory LLP, and a queue's limit on connections. */
class ExsInMemoryTest extends ExsSuite {
    @Override
    TransportFixture transport() {
        return new InMemoryTransport(4096, 64);
    }

    @Test
    void aQueueTakesNoMoreConnectionsThanItsCompletionQueueHolds() throws Exception {
        Ends ends = new Ends(transport, socket -> socket.setOption(ExsOption.CREDITS, 1024),
                socket -> socket.setOption(ExsOption.CREDITS, 1024));
        // a second connection of 1,024 credits would need more completions than either queue has left
        ExsSocket second = ends.clientExs.socket(ends.clientQueue);
        second.setOption(ExsOption.CREDITS, 1024);
        assertThatThrownBy(() -> second.connect(transport.nextAddress(), "second"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no room for another connection")
                .hasMessageContaining("16384 completions in all").hasMessageContaining("a larger one");
        assertThatThrownBy(() -> ends.clientExs.createQueue(ExsQueue.Driver.CALLER, 100))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256 to 1048576 completions");
        assertThat(second.state()).isEqualTo(ExsSocket.State.NEW);
        ExsSocket other = ends.clientExs.socket(ends.clientExs.createQueue()); // another queue has room
        other.setOption(ExsOption.CREDITS, 1024);
        SocketAddress address = ends.listening.localAddress();
        ends.listening.accept("refused");
        other.connect(address, "other");
        ExsEvent refused = ends.next(ends.serverQueue, ExsEvent.Type.ACCEPT);
        assertThat(refused.context()).isEqualTo("refused");
        assertThat(refused.error()).hasMessageContaining("no room for another");
        ends.client.close("bye"); // the first connection ends: its room returns
        assertThat(ends.next(ends.clientQueue, ExsEvent.Type.CLOSE).error()).isNull();
        ExsSocket third = ends.clientExs.socket(ends.clientQueue);
        third.setOption(ExsOption.CREDITS, 1024);
        third.connect(transport.nextAddress(), "third"); // nothing listens there: it fails, but it may try
        assertThat(ends.next(ends.clientQueue, ExsEvent.Type.CONNECT).error()).isNotNull();
    }
}
