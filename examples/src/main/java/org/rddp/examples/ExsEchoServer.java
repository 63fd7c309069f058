package org.rddp.examples;

import java.lang.foreign.Arena;
import java.net.SocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.rddp.exs.Exs;
import org.rddp.exs.ExsEvent;
import org.rddp.exs.ExsMemory;
import org.rddp.exs.ExsQueue;
import org.rddp.exs.ExsSocket;

/**
 * An echo server over the Extended Sockets API ({@code org.rddp.exs}): it takes one client and sends back every
 * message it receives, until the client closes. The URI names the transport and where to listen:
 * {@code mpa://127.0.0.1:7000}, {@code sctp://127.0.0.1:7000}, or {@code exs://...} for the one this machine has
 * (SCTP where it runs). {@link ExsEchoClient} is its client. {@code sctp://} on usrsctp (SCTP where the kernel has
 * none, as on this project's build machines) reaches only peers in its own process: there, run the two in one
 * program, as {@code ExsEchoClient} without a server address does; over MPA or the kernel's SCTP, as two programs.
 * The README's EXS sample is the part between the {@code readme:exs} comments.
 */
public final class ExsEchoServer {
    private ExsEchoServer() {
    }

    /** {@code ExsEchoServer [uri]}: serves one client at {@code uri} (default {@code mpa://127.0.0.1:7000}). */
    public static void main(String[] args) throws Exception {
        URI address = URI.create(args.length > 0 ? args[0] : "mpa://127.0.0.1:7000");
        int echoed = serve(address, where -> System.out.println("ExsEchoServer: listening on " + where));
        System.out.println("ExsEchoServer: echoed " + echoed + " messages; the client closed");
    }

    /**
     * Listens at {@code address} (port 0: one the system picks), tells {@code announce} the address it listens on,
     * takes one client and echoes its messages of up to 65,536 octets until it closes.
     *
     * @return how many messages it received and sent back
     */
    public static int serve(URI address, Consumer<SocketAddress> announce) throws Exception {
        // readme:exs:begin
        Exs exs = Exs.open(address);                              // mpa://, sctp://, or exs:// for what the machine has
        ExsQueue queue = exs.createQueue(ExsQueue.Driver.THREAD); // a virtual thread moves the protocol
        ExsSocket listening = exs.socket(queue);
        listening.bind(address);                                  // sctp://127.0.0.1:7000, or port 0 for any free one
        listening.listen(8);
        announce.accept(listening.localAddress());                // the client: exs.socket(queue).connectAsync(uri)
        ExsSocket peer = listening.acceptAsync().get().socket();
        ExsMemory buffer = exs.register(Arena.ofShared().allocate(65_536));
        ExsEvent got = peer.recvAsync(buffer, 0, 65_536).get();   // the data is in buffer: got.length() octets
        // readme:exs:end
        int echoed = 0;
        try {
            listening.close(null); // one client: take no more
            while (true) {
                // send back what came; wait until the client took it before the buffer is filled again
                peer.sendAsync(buffer, 0, (int) got.length()).get();
                echoed++; // the client has it (its close comes after: the last echo is counted too)
                got = peer.recvAsync(buffer, 0, 65_536).get();
            }
        } catch (ExecutionException | IllegalStateException e) {
            // How EXS says the client closed: a receive still waiting ends with an error, and one asked for once the
            // socket is CLOSED is refused at once. Anything else (a failure while it is still up) is the caller's.
            if (peer.state() != ExsSocket.State.CLOSED) {
                throw e;
            }
        } finally {
            queue.close(); // stops the queue's virtual thread
            exs.close(); // closes the transport, and with it every connection on it
        }
        return echoed;
    }
}
