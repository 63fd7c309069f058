package org.rddp.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rddp.exs.Exs;
import org.rddp.exs.ExsEvent;
import org.rddp.exs.ExsMemory;
import org.rddp.exs.ExsQueue;
import org.rddp.exs.ExsSocket;

/**
 * The client of {@link ExsEchoServer}: sends messages over the Extended Sockets API and checks that each comes back
 * octet for octet. Messages up to {@code SMALL_PACKET_MAX_SIZE} (512 octets by default) travel inside their
 * advertisement; the larger ones the server pulls with an RDMA Read (docs/exs.md): both kinds are sent.
 */
public final class ExsEchoClient {
    /** The largest message it sends, in octets. */
    public static final int MAX_MESSAGE = 20_000;

    private ExsEchoClient() {
    }

    /**
     * {@code ExsEchoClient [uri [messages]]}: with a server's URI ({@code mpa://192.0.2.1:7000}), sends it
     * {@code messages} messages (default 100); with a scheme alone ({@code mpa}, {@code sctp}, the default), starts
     * an {@link ExsEchoServer} in this process on loopback first, as usrsctp needs.
     */
    public static void main(String[] args) throws Exception {
        String target = args.length > 0 ? args[0] : "sctp";
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        URI server = URI.create(target);
        if (server.getHost() == null) { // no server given: one of our own, on a virtual thread, at a free port
            CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    ExsEchoServer.serve(URI.create(target + "://127.0.0.1:0"),
                            where -> listening.complete((InetSocketAddress) where));
                } catch (Exception e) {
                    listening.completeExceptionally(e);
                }
            });
            server = URI.create(target + "://127.0.0.1:" + listening.get(10, TimeUnit.SECONDS).getPort());
        }
        URI local = URI.create(server.getScheme() + "://127.0.0.1"); // give this host's address to reach another
        System.out.println("ExsEchoClient: " + run(local, server, messages) + " of " + messages + " echoed intact");
    }

    /**
     * Opens EXS at {@code local} (the transport its scheme names, connections leaving from its host), connects to
     * the echo server at {@code server}, sends {@code messages} messages of 1 to {@link #MAX_MESSAGE} octets, each
     * waited for and compared, and closes.
     *
     * @return how many came back exactly as sent
     */
    public static int run(URI local, URI server, int messages) throws Exception {
        try (Arena arena = Arena.ofShared(); // closed last: after the transport that reaches the memory
                Exs exs = Exs.open(local);
                ExsQueue queue = exs.createQueue(ExsQueue.Driver.THREAD)) {
            ExsSocket socket = exs.socket(queue);
            socket.connectAsync(server).get(10, TimeUnit.SECONDS);
            ExsMemory out = exs.register(arena.allocate(MAX_MESSAGE));
            ExsMemory in = exs.register(arena.allocate(MAX_MESSAGE));
            int intact = 0;
            for (int i = 0; i < messages; i++) {
                int length = i % 2 == 0 ? 1 + i % 500 : 1_000 + i * 97 % (MAX_MESSAGE - 1_000); // small, then large
                for (int at = 0; at < length; at++) {
                    out.segment().set(ValueLayout.JAVA_BYTE, at, (byte) (i + at));
                }
                // the receive first, so the echo has a place to land; then the send, done once the server took it
                CompletableFuture<ExsEvent> echo = socket.recvAsync(in, 0, MAX_MESSAGE);
                socket.sendAsync(out, 0, length).get(10, TimeUnit.SECONDS);
                long got = echo.get(10, TimeUnit.SECONDS).length();
                if (got == length && in.segment().asSlice(0, length).mismatch(out.segment().asSlice(0, length)) == -1) {
                    intact++;
                }
            }
            // a graceful close: the server's waiting receive then ends, and so does its loop
            socket.closeAsync().get(20, TimeUnit.SECONDS);
            return intact;
        }
    }
}
