package org.rddp.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** Runs {@code rddp} commands in this JVM, as the command tests of every family do. */
public final class InProcess {
    private InProcess() {
    }

    /** One run of the command: its status and what it printed. */
    public record Run(int status, String out, String err) {
    }

    public static Run rddp(String... args) {
        return rddp(new CompletableFuture<>(), args);
    }

    /** Runs the command; completes {@code listening} once it prints that it listens. */
    public static Run rddp(CompletableFuture<Void> listening, String... args) {
        return rddpUntil(listening, "server: listening on", args);
    }

    /** Runs the command; completes {@code listening} once it prints {@code marker}. */
    public static Run rddpUntil(CompletableFuture<Void> listening, String marker, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                super.write(b, off, len);
                if (toString(StandardCharsets.UTF_8).contains(marker)) {
                    listening.complete(null);
                }
            }
        };
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            listening.complete(null); // a server that never listened: let the client find out
        }
    }

    public static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
