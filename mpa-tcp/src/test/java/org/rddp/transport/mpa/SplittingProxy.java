package org.rddp.transport.mpa;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;

/**
 * A TCP proxy that cuts the byte stream into tiny pieces: the first {@value #ONE_BY_ONE} octets of each
 * direction go one write per octet, the rest in writes of 1 to {@value #LARGEST_PIECE} octets, with Nagle off,
 * so the reader behind it sees FPDUs (and the startup frames) split at every kind of boundary.
 */
final class SplittingProxy implements AutoCloseable {
    static final int ONE_BY_ONE = 64 << 10;
    static final int LARGEST_PIECE = 4093;

    private final ServerSocket server;
    private final InetSocketAddress target;

    /** A proxy on loopback in front of {@code target}; one thread accepts, two per connection pump. */
    SplittingProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("proxy-" + server.getLocalPort()).start(this::accept);
    }

    /** Where initiators connect. */
    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                pump(client, upstream, 1);
                pump(upstream, client, 2);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void pump(Socket from, Socket to, long seed) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Random random = new Random(seed);
        Thread.ofPlatform().daemon().start(() -> {
            byte[] piece = new byte[LARGEST_PIECE];
            long moved = 0;
            try {
                while (true) {
                    int size = moved < ONE_BY_ONE ? 1 : 1 + random.nextInt(LARGEST_PIECE);
                    int read = in.read(piece, 0, size);
                    if (read < 0) {
                        to.shutdownOutput();
                        return;
                    }
                    out.write(piece, 0, read);
                    moved += read;
                }
            } catch (IOException e) {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
