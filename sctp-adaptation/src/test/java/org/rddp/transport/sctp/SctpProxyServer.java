package org.rddp.transport.sctp;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;

/**
 * The other process of the two-process scenario suite: it owns a usrsctp stack and lends its SCTP sockets to
 * the test process over a loopback TCP control connection ({@link RemoteSctpStack}), so that the suite's
 * responder speaks SCTP from this process's stack while its DDP engine runs in the test. Prints
 * {@code PROXY tcpPort udpPort}.
 */
public final class SctpProxyServer {
    static final int LISTEN = 1;
    static final int SEND = 2;
    static final int CLOSE = 3;
    static final int ABORT = 4;
    static final int UNLISTEN = 5;
    static final int ACCEPTED = 10;
    static final int MESSAGE = 11;
    static final int LISTENING = 12;

    private final Map<Integer, SctpSocket> sockets = new ConcurrentHashMap<>();
    private final Map<Integer, SctpStack.Listening> listenings = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final LinkedBlockingQueue<Integer> ready = new LinkedBlockingQueue<>();
    private final DataOutputStream out;
    private final SctpStack stack;
    private final InetAddress address;

    private SctpProxyServer(DataOutputStream out, SctpStack stack, InetAddress address) {
        this.out = out;
        this.stack = stack;
        this.address = address;
    }

    /**
     * Serves one control connection, then exits. Arguments: the SCTP backend ({@link SctpStacks#byName}, default
     * usrsctp-udp) and the address to listen on, for control and SCTP alike (default loopback).
     */
    public static void main(String[] args) throws Exception {
        SctpStack stack = SctpStacks.byName(args.length > 0 ? args[0] : "usrsctp-udp");
        InetAddress address = args.length > 1 ? InetAddress.getByName(args[1]) : InetAddress.getLoopbackAddress();
        try (ServerSocket server = new ServerSocket(0, 1, address)) {
            System.out.println("PROXY " + server.getLocalPort() + " "
                    + (stack instanceof UsrsctpStack ? UsrsctpStack.udpPort() : 0));
            System.out.flush();
            try (Socket control = server.accept()) {
                control.setTcpNoDelay(true);
                SctpProxyServer proxy = new SctpProxyServer(new DataOutputStream(new BufferedOutputStream(
                        control.getOutputStream())), stack, address);
                Thread pump = Thread.ofPlatform().daemon(true).start(proxy::pump);
                proxy.serve(new DataInputStream(new BufferedInputStream(control.getInputStream())));
                pump.interrupt();
            }
        }
        System.exit(0);
    }

    private void serve(DataInputStream in) throws IOException {
        MemorySegment buffer = Arena.ofAuto().allocate(70000);
        while (true) {
            int command;
            try {
                command = in.readInt();
            } catch (java.io.EOFException e) {
                return;
            }
            switch (command) {
                case LISTEN -> {
                    int port = in.readInt();
                    int streams = in.readInt();
                    int adaptation = in.readInt();
                    SctpStack.Listening listening = stack.listen(new InetSocketAddress(address, port), streams,
                            adaptation);
                    listenings.put(port, listening);
                    listening.start(socket -> accepted(port, socket));
                    synchronized (out) {
                        out.writeInt(LISTENING);
                        out.writeInt(port);
                        out.flush();
                    }
                }
                case UNLISTEN -> {
                    SctpStack.Listening listening = listenings.remove(in.readInt());
                    if (listening != null) {
                        listening.close();
                    }
                }
                case SEND -> {
                    int id = in.readInt();
                    int streamId = in.readInt();
                    int ppid = in.readInt();
                    boolean unordered = in.readBoolean();
                    int length = in.readInt();
                    byte[] octets = new byte[length];
                    in.readFully(octets);
                    SctpSocket socket = sockets.get(id);
                    if (socket != null) {
                        MemorySegment.copy(MemorySegment.ofArray(octets), 0, buffer, 0, length);
                        try {
                            while (socket.send(buffer, 0, length, streamId, ppid, unordered)
                                    == SctpSocket.WOULD_BLOCK) {
                                Thread.onSpinWait(); // the control connection back-pressures the test process
                            }
                        } catch (IOException e) {
                            // the association is gone; its reader reports that
                        }
                    }
                }
                case CLOSE, ABORT -> {
                    SctpSocket socket = sockets.remove(in.readInt());
                    if (socket != null) {
                        if (command == CLOSE) {
                            socket.close();
                        } else {
                            socket.abort();
                        }
                    }
                }
                default -> throw new IOException("unknown command " + command);
            }
        }
    }

    private void accepted(int port, SctpSocket socket) {
        int id = ids.incrementAndGet();
        sockets.put(id, socket);
        try {
            synchronized (out) {
                out.writeInt(ACCEPTED);
                out.writeInt(port);
                out.writeInt(id);
                out.writeInt(socket.streams());
                out.writeInt(socket.maxMessage());
                out.flush();
            }
        } catch (IOException e) {
            socket.abort();
            return;
        }
        socket.onReady(() -> ready.add(id));
    }

    /** Moves whatever the sockets received to the test process. */
    private void pump() {
        MemorySegment buffer = Arena.ofAuto().allocate(70000);
        SctpSocket.ReceivedMessage message = new SctpSocket.ReceivedMessage();
        try {
            while (true) {
                int id = ready.take();
                SctpSocket socket = sockets.get(id);
                if (socket == null) {
                    continue;
                }
                while (true) {
                    int length;
                    try {
                        length = socket.receive(buffer, message);
                    } catch (IOException e) {
                        message.kind = SctpSocket.ReceivedMessage.ASSOCIATION_DOWN;
                        length = 0;
                    }
                    if (length == SctpSocket.WOULD_BLOCK) {
                        break;
                    }
                    synchronized (out) {
                        out.writeInt(MESSAGE);
                        out.writeInt(id);
                        out.writeInt(message.kind);
                        out.writeInt(message.streamId);
                        out.writeInt(message.ppid);
                        out.writeBoolean(message.unordered);
                        out.writeBoolean(message.complete);
                        out.writeInt(message.value);
                        out.writeInt(Math.max(0, length));
                        out.write(buffer.asSlice(0, Math.max(0, length)).toArray(ValueLayout.JAVA_BYTE));
                        out.flush();
                    }
                    if (message.kind == SctpSocket.ReceivedMessage.ASSOCIATION_DOWN) {
                        sockets.remove(id);
                        break;
                    }
                }
            }
        } catch (InterruptedException | IOException e) {
            // the control connection closed: the test process is done
        }
    }
}
