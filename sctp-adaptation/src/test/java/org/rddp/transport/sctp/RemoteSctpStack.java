package org.rddp.transport.sctp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.rddp.transport.sctp.io.SharedLoops;

/**
 * An {@link SctpStack} whose sockets live in another process ({@link SctpProxyServer}): every send and every
 * received message crosses a loopback TCP control connection, while SCTP itself runs between that process's
 * usrsctp stack and this one's. Only the listening side is offered, which is what a responder needs.
 */
final class RemoteSctpStack implements SctpStack {
    private final Process process;
    private final Socket control;
    private final DataOutputStream out;
    private final int udpPort;
    private final Map<Integer, Consumer<SctpSocket>> listeners = new ConcurrentHashMap<>();
    private final Map<Integer, java.util.concurrent.CompletableFuture<Void>> listening = new ConcurrentHashMap<>();
    private final Map<Integer, RemoteSocket> sockets = new ConcurrentHashMap<>();

    private RemoteSctpStack(Process process, Socket control, int udpPort) throws IOException {
        this.process = process;
        this.control = control;
        this.udpPort = udpPort;
        this.out = new DataOutputStream(new BufferedOutputStream(control.getOutputStream()));
        DataInputStream in = new DataInputStream(new BufferedInputStream(control.getInputStream()));
        Thread.ofPlatform().daemon(true).name("sctp-proxy-reader").start(() -> read(in));
    }

    /** Starts the other process on usrsctp over UDP, on loopback, and connects to it. */
    static RemoteSctpStack start() throws IOException {
        return start(List.of(), "usrsctp-udp", InetAddress.getLoopbackAddress());
    }

    /**
     * Starts the other process with {@code prefix} before its command line (e.g. {@code ip netns exec B}), on the
     * SCTP backend called {@code backend}, listening on {@code address}, and connects to it.
     */
    static RemoteSctpStack start(List<String> prefix, String backend, InetAddress address) throws IOException {
        List<String> command = new java.util.ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"),
                SctpProxyServer.class.getName(), backend, address.getHostAddress()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        String line = lines.readLine();
        String[] ready = line == null ? new String[] {"exited"} : line.split(" ");
        if (!ready[0].equals("PROXY")) {
            process.destroyForcibly();
            throw new IOException("the SCTP proxy process did not start: " + String.join(" ", ready));
        }
        Socket control = new Socket(address, Integer.parseInt(ready[1]));
        control.setTcpNoDelay(true);
        return new RemoteSctpStack(process, control, Integer.parseInt(ready[2]));
    }

    /** The UDP port the other process's usrsctp encapsulates on. */
    int udpPort() {
        return udpPort;
    }

    @Override
    public String name() {
        return "other-process";
    }

    @Override
    public long socketBufferOctets() {
        return 0; // the other process's stack holds them
    }

    @Override
    public org.rddp.loop.Poller newPoller() {
        return org.rddp.loop.Poller.parking(); // nothing to poll here: the sockets live in the other process
    }

    @Override
    public org.rddp.loop.Loop sharedLoop() {
        return SharedLoops.of("other-process");
    }

    @Override
    public Connecting connect(org.rddp.loop.Loop loop, InetSocketAddress local,
            java.util.List<java.net.InetAddress> moreLocal, InetSocketAddress remote, int streams, int adaptation,
            ProtocolParameters parameters, Connected done) throws IOException {
        throw new IOException("the remote stack only listens");
    }

    @Override
    public Listening listen(org.rddp.loop.Loop loop, InetSocketAddress local,
            java.util.List<java.net.InetAddress> moreLocal, int streams, int adaptation, ProtocolParameters parameters)
            throws IOException { // the remote process's stack: one address, its own defaults
        int port = local.getPort();
        java.util.concurrent.CompletableFuture<Void> up = new java.util.concurrent.CompletableFuture<>();
        listening.put(port, up);
        synchronized (out) {
            out.writeInt(SctpProxyServer.LISTEN);
            out.writeInt(port);
            out.writeInt(streams);
            out.writeInt(adaptation);
            out.flush();
        }
        try {
            up.get(10, java.util.concurrent.TimeUnit.SECONDS); // listening before anyone connects
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("the other process did not listen on " + port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return new Listening() {
            @Override
            public InetSocketAddress address() {
                return local;
            }

            @Override
            public org.rddp.loop.Loop loop() {
                return loop;
            }

            @Override
            public void start(Consumer<SctpSocket> onAssociation) {
                // on the listener's loop, as every stack hands over its associations; what arrives for the socket
                // meanwhile waits in it (its ready hook runs once the association starts)
                listeners.put(port, socket -> loop.execute(() -> onAssociation.accept(socket)));
            }

            @Override
            public void close() {
                listeners.remove(port);
                command(SctpProxyServer.UNLISTEN, port);
            }
        };
    }

    private void command(int command, int argument) {
        try {
            synchronized (out) {
                out.writeInt(command);
                out.writeInt(argument);
                out.flush();
            }
        } catch (IOException e) {
            // the other process is gone; so are its sockets
        }
    }

    private void read(DataInputStream in) {
        try {
            while (true) {
                int kind = in.readInt();
                if (kind == SctpProxyServer.LISTENING) {
                    java.util.concurrent.CompletableFuture<Void> up = listening.remove(in.readInt());
                    if (up != null) {
                        up.complete(null);
                    }
                } else if (kind == SctpProxyServer.ACCEPTED) {
                    int port = in.readInt();
                    int id = in.readInt();
                    int streams = in.readInt();
                    int remoteMax = in.readInt();
                    RemoteSocket socket = new RemoteSocket(id, streams, remoteMax);
                    sockets.put(id, socket);
                    Consumer<SctpSocket> listener = listeners.get(port);
                    if (listener != null) {
                        listener.accept(socket);
                    }
                } else {
                    int id = in.readInt();
                    Received received = new Received(in.readInt(), in.readInt(), in.readInt(), in.readBoolean(),
                            in.readBoolean(), in.readInt(), new byte[in.readInt()]);
                    in.readFully(received.octets());
                    RemoteSocket socket = sockets.get(id);
                    if (socket != null) {
                        socket.arrived(received);
                    }
                }
            }
        } catch (IOException e) {
            for (RemoteSocket socket : sockets.values()) {
                socket.arrived(new Received(SctpSocket.ReceivedMessage.ASSOCIATION_DOWN, 0, 0, false, false, 0,
                        new byte[0]));
            }
        }
    }

    @Override
    public void close() {
        try {
            control.close();
        } catch (IOException e) {
            // closing anyway
        }
        process.destroy();
    }

    private record Received(int kind, int streamId, int ppid, boolean unordered, boolean complete, int value,
            byte[] octets) {
    }

    /** A socket of the other process. */
    private final class RemoteSocket implements SctpSocket {
        private final int id;
        private final int streams;
        private final int maxMessage;
        private final ConcurrentLinkedQueue<Received> inbox = new ConcurrentLinkedQueue<>();
        private volatile Runnable hook = () -> { };

        RemoteSocket(int id, int streams, int maxMessage) {
            this.id = id;
            this.streams = streams;
            this.maxMessage = maxMessage;
        }

        void arrived(Received received) {
            inbox.add(received);
            hook.run();
        }

        @Override
        public void onReady(Runnable newHook) {
            hook = newHook;
            newHook.run();
        }

        @Override
        public int send(MemorySegment data, long offset, int length, int streamId, int ppid, boolean unordered)
                throws IOException {
            byte[] octets = data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            synchronized (out) {
                out.writeInt(SctpProxyServer.SEND);
                out.writeInt(id);
                out.writeInt(streamId);
                out.writeInt(ppid);
                out.writeBoolean(unordered);
                out.writeInt(length);
                out.write(octets);
                out.flush();
            }
            return length;
        }

        @Override
        public int receive(MemorySegment buffer, ReceivedMessage into) {
            Received received = inbox.poll();
            if (received == null) {
                return WOULD_BLOCK;
            }
            into.kind = received.kind();
            into.streamId = received.streamId();
            into.ppid = received.ppid();
            into.unordered = received.unordered();
            into.complete = received.complete();
            into.value = received.value();
            MemorySegment.copy(MemorySegment.ofArray(received.octets()), 0, buffer, 0, received.octets().length);
            return received.octets().length;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return null;
        }

        @Override
        public boolean writable() {
            return true;
        }

        @Override
        public int streams() {
            return streams;
        }

        @Override
        public int maxMessage() {
            return maxMessage;
        }

        @Override
        public void close() {
            sockets.remove(id);
            command(SctpProxyServer.CLOSE, id);
        }

        @Override
        public void abort() {
            sockets.remove(id);
            command(SctpProxyServer.ABORT, id);
        }
    }
}
