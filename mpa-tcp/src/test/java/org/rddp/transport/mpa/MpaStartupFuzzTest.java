package org.rddp.transport.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.rdmap.EnhancedConnectionData;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.Listener;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.wire.PrivateData;
import org.rddp.transport.mpa.raw.RawMpaPeer;

/**
 * Coverage-guided fuzzing of MPA connection setup (RFC 5044 §7, RFC 6581) over real loopback TCP, as the responder
 * and as the initiator, with the "state prefix + fuzzed suffix" shape: the fuzzer's octets are the peer's startup
 * frame, or follow a valid one as the first FPDUs. Corpus under {@code MpaStartupFuzzTestInputs}; {@code
 * JAZZER_FUZZ=1} fuzzes (see {@code fuzz/README.md}).
 *
 * <p>Checks: every connection ends within a bound once the peer has sent its octets and closed its side (no stream
 * left waiting on the loop); a connect completes, connected or with an {@link IOException}, never hangs; the
 * listener serves every input (one stranger's octets never stop the next connection). Connections go to loopback
 * only, which Jazzer's request-forgery detector is told to allow.
 */
class MpaStartupFuzzTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final byte[] REQUEST_KEY = MpaStartupFrame.Kind.REQUEST.key();
    private static final byte[] REPLY_KEY = MpaStartupFrame.Kind.REPLY.key();
    private static final int S = MpaStartupFrame.ENHANCED_FLAG;
    private static final int C = MpaStartupFrame.CRC_FLAG;

    private static MpaConnectionManager manager;
    private static Listener listener;
    private static ServerSocket rawServer;

    private static synchronized void start() throws IOException {
        if (manager != null) {
            return;
        }
        manager = new MpaConnectionManager(MpaOptions.defaults().withStartupTimeout(BOUND),
                InetAddress.getLoopbackAddress());
        listener = manager.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), request -> {
            // the ULP's answer depends on the fuzzed private data too: odd lengths are rejected
            if (request.privateData().length() % 2 == 0) {
                request.accept(queuePair(), new AcceptOptions(PrivateData.EMPTY, 1, 1));
            } else {
                request.reject(PrivateData.EMPTY);
            }
        });
        rawServer = new ServerSocket();
        rawServer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        rawServer.setSoTimeout((int) BOUND.toMillis());
    }

    /** The manager's loop and the sockets go with the class: other tests count loop threads. */
    @AfterAll
    static synchronized void stop() throws IOException {
        if (manager != null) {
            listener.close();
            manager.close();
            rawServer.close();
            manager = null;
        }
    }

    /** A fresh queue pair on a device of its own, dropped with the connection. */
    private static QueuePair queuePair() {
        RdmaDevice device = new RdmaDevice("mpa-fuzz");
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(16);
        return pd.createQueuePair(new QpAttributes(cq, cq, null, 4, 4, 1, true, null));
    }

    /** A valid enhanced revision 2 startup frame with CRC, asking for (or granting) IRD = ORD = 1. */
    private static byte[] validFrame(byte[] key) {
        return RawMpaPeer.frame(key, S | C, 2, 4, RawMpaPeer.enhanced(
                EnhancedConnectionData.clientServer(1, 1).encode(), new byte[0]));
    }

    /**
     * Input: a mode octet, then the octets the initiator sends: (mode &amp; 1) 0: they are its Request; 1: a valid
     * Request goes first and they follow it.
     */
    @FuzzTest(maxDuration = "10s")
    void asResponder(byte[] input) throws Exception {
        try (SilentCloseable loopback = BugDetectors.allowNetworkConnections()) {
            respond(input);
        }
    }

    private static void respond(byte[] input) throws Exception {
        start();
        byte[] octets = input.length == 0 ? new byte[0] : Arrays.copyOfRange(input, 1, input.length);
        try (Socket socket = new Socket()) {
            socket.connect(listener.address(), (int) BOUND.toMillis());
            socket.setSoTimeout((int) BOUND.toMillis());
            if (input.length > 0 && (input[0] & 1) == 1) {
                socket.getOutputStream().write(validFrame(REQUEST_KEY));
            }
            socket.getOutputStream().write(octets);
            socket.shutdownOutput();
            drainToEnd(socket.getInputStream(), "the responder");
        }
    }

    /**
     * Input: a mode octet, then the octets the responder sends once it has read the Request: (mode &amp; 1) 0: they
     * are its Reply; 1: a valid Reply goes first and they follow it. (mode &amp; 2): the initiator asks for a
     * plain (unenhanced) connection.
     */
    @FuzzTest(maxDuration = "10s")
    void asInitiator(byte[] input) throws Exception {
        try (SilentCloseable loopback = BugDetectors.allowNetworkConnections()) {
            initiate(input);
        }
    }

    private static void initiate(byte[] input) throws Exception {
        start();
        int mode = input.length == 0 ? 0 : input[0];
        byte[] octets = input.length == 0 ? new byte[0] : Arrays.copyOfRange(input, 1, input.length);
        CompletableFuture<Connection> connecting = manager.connect(queuePair(), rawServer.getLocalSocketAddress(),
                new ConnectOptions(PrivateData.EMPTY, (mode & 2) == 0, 1, 1, false, Set.of(), BOUND));
        try (Socket socket = rawServer.accept()) {
            socket.setSoTimeout((int) BOUND.toMillis());
            InputStream in = socket.getInputStream();
            byte[] header = in.readNBytes(MpaStartupFrame.HEADER_LENGTH);
            assertThat(header).as("the Request's header").hasSize(MpaStartupFrame.HEADER_LENGTH);
            int pdLength = (header[18] & 0xFF) << 8 | header[19] & 0xFF;
            assertThat(in.readNBytes(pdLength)).as("the Request's private data").hasSize(pdLength);
            if ((mode & 1) == 1) {
                socket.getOutputStream().write(validFrame(REPLY_KEY));
            }
            socket.getOutputStream().write(octets);
            socket.shutdownOutput();
            try {
                connecting.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).as("why the connect failed").isInstanceOf(IOException.class);
            }
            drainToEnd(in, "the initiator");
        }
    }

    /** Reads (and drops) what the peer sends until it closes; fails if it keeps the connection open. */
    private static void drainToEnd(InputStream in, String who) throws IOException {
        byte[] buffer = new byte[4096];
        try {
            while (in.read(buffer) >= 0) {
                // what it answered: a Reply, a Terminate, FPDUs
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError(who + " kept the connection open " + BOUND + " after the peer closed its side");
        } catch (java.net.SocketException e) {
            // reset: ended
        }
    }
}
