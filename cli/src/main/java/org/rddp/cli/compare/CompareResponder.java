package org.rddp.cli.compare;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.rddp.cli.TransportOptions;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;

/**
 * {@code rddp compare --serve}: the responder of a comparison between two processes or hosts. It listens on a TCP
 * control port; an initiator ({@link ComparePeer}) connects and asks for one point after another, and for each the
 * responder makes the point's server end ({@link CompareEnds#server}) on a port of its own, says where, runs it, and
 * says how it went. One comparison at a time, one after another until closed (or after one, with {@code --once}).
 *
 * <p>The control connection carries lines of UTF-8 text (at most {@value #MAX_LINE} octets each):
 * <pre>
 * initiator                                 responder
 * rddp-compare 1 sctp=STACK|none [mptcp] sctp-profile=NAME -&gt;
 *                                      &lt;-   rddp-compare 1 udp-port=N|none [mptcp=HOW]
 *                                                                         (or: error WHY, and it closes)
 * point SERIES KIND SIZE ITERATIONS    -&gt;
 *                                      &lt;-   ready PORT                         (or: error WHY)
 *         (the two ends run the point on PORT)
 *                                      &lt;-   done                               (or: error WHY)
 * ...
 * bye                                  -&gt;   (closes)
 * </pre>
 * {@code STACK} is the SCTP backend the initiator runs ({@code kernel}, {@code usrsctp-udp}, {@code usrsctp-native});
 * the responder opens the same, and over usrsctp-udp answers the UDP port it encapsulates on (RFC 6951), which the
 * initiator's usrsctp must send to; both run SCTP with the profile named (its protocol parameters:
 * {@code ProtocolParameters.named}). An initiator comparing Multipath TCP asks ({@code mptcp}) how the responder's is
 * set (its path manager's limits and endpoints), for the conditions; one that does not ask is not told. An
 * {@code error} for a point leaves the connection usable.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // a failed point, whatever failed, is told to the initiator
final class CompareResponder implements Closeable {
    /** The protocol's name and version, the first words of the first line each way. */
    static final String HELLO = "rddp-compare 1";
    /** The hello's word asking for, and the answer's key telling, how the responder's Multipath TCP is set. */
    static final String MPTCP = "mptcp";
    /** The hello's key naming the SCTP profile both ends run ({@code ProtocolParameters.named}). */
    static final String SCTP_PROFILE = "sctp-profile";
    /** The control port's default. */
    static final int DEFAULT_PORT = 18516;
    static final int MAX_LINE = 1024;
    /** How long the responder waits for the initiator's next line. */
    private static final Duration IDLE = Duration.ofMinutes(5);

    private final InetAddress bind;
    /** The further local addresses RDDP's SCTP associations bind (kernel SCTP's multi-homing). */
    private final java.util.List<InetAddress> multihome;
    private final PrintWriter out;
    private final PrintWriter err;
    private final ServerSocket control;

    /**
     * Listens on {@code bind}:{@code port}, RDDP's SCTP associations binding {@code multihome} too; says so on
     * {@code out}.
     */
    CompareResponder(InetAddress bind, int port, java.util.List<InetAddress> multihome, PrintWriter out,
            PrintWriter err) throws IOException {
        this.bind = bind;
        this.multihome = java.util.List.copyOf(multihome);
        this.out = out;
        this.err = err;
        control = new ServerSocket();
        control.setReuseAddress(true);
        control.bind(new InetSocketAddress(bind, port));
        out.println("server: listening on " + bind.getHostAddress() + ":" + control.getLocalPort()
                + " (rddp compare responder: initiators run rddp compare --peer HOST:" + control.getLocalPort() + ")");
        out.flush();
    }

    /**
     * Serves comparisons one after another until closed, or only the next one when {@code once}. Returns 0 when
     * the last comparison served went through without an error, else 1.
     */
    int serve(boolean once) throws IOException {
        boolean clean = false;
        do {
            Socket connection;
            try {
                connection = control.accept();
            } catch (SocketException e) {
                if (control.isClosed()) {
                    return clean ? 0 : 1;
                }
                throw e;
            }
            try (Socket socket = connection) {
                clean = comparison(socket);
            } catch (IOException e) {
                err.println("compare: " + connection.getRemoteSocketAddress() + ": " + e.getMessage());
                err.flush();
                clean = false;
            }
        } while (!once);
        return clean ? 0 : 1;
    }

    /** Stops serving: the comparison under way, if any, ends with its control connection. */
    @Override
    public void close() throws IOException {
        control.close();
    }

    /** One comparison; returns whether it ended with the initiator's bye and no error on the way. */
    private boolean comparison(Socket socket) throws IOException {
        String initiator = socket.getRemoteSocketAddress().toString();
        socket.setSoTimeout((int) IDLE.toMillis());
        socket.setTcpNoDelay(true);
        Lines lines = new Lines(socket);
        CompareEnds.Transports transports;
        try {
            transports = hello(lines.read(), lines, initiator);
        } catch (IOException | RuntimeException e) {
            return failed(lines, initiator, e.getMessage());
        }
        if (transports == null) {
            return false;
        }
        boolean clean = true;
        int points = 0;
        while (true) {
            String line;
            try {
                line = lines.read();
            } catch (SocketTimeoutException e) {
                return failed(lines, initiator, "nothing from the initiator for " + IDLE.toMinutes() + " minutes");
            } catch (IOException e) {
                return failed(lines, initiator, e.getMessage());
            }
            if (line == null) {
                err.println("compare: " + initiator + " left without bye after " + points + " points");
                return false;
            }
            if (line.equals("bye")) {
                out.println("compare: " + initiator + " done, " + points + (points == 1 ? " point" : " points"));
                out.flush();
                return clean;
            }
            if (!line.startsWith("point ")) {
                clean = failed(lines, initiator, "bad request '" + line + "': expected point or bye");
                continue;
            }
            Compare.Task task;
            try {
                task = Compare.Task.parse(line.substring("point ".length()));
            } catch (IllegalArgumentException e) {
                clean = failed(lines, initiator, "bad request: " + e.getMessage());
                continue;
            }
            if (point(task, transports, lines, initiator)) {
                points++;
            } else {
                clean = false;
            }
        }
    }

    /** Opens the SCTP stack the initiator runs, if any, and answers the hello; null when it was refused. */
    private CompareEnds.Transports hello(String line, Lines lines, String initiator) throws IOException {
        String prefix = HELLO + " sctp=";
        if (line == null || !line.startsWith(prefix)) {
            failed(lines, initiator, "not an rddp compare initiator (it said '" + line + "'; this responder "
                    + "speaks " + HELLO + ")");
            return null;
        }
        String[] asked = line.substring(prefix.length()).trim().split(" +");
        String stackName = asked[0];
        boolean mptcp = false;
        String profile = "default";
        for (String word : java.util.Arrays.asList(asked).subList(1, asked.length)) {
            if (word.equals(MPTCP)) {
                mptcp = true;
            } else if (word.startsWith(SCTP_PROFILE + "=")) {
                profile = word.substring(SCTP_PROFILE.length() + 1);
            }
        }
        if (!org.rddp.transport.sctp.ProtocolParameters.PROFILES.contains(profile)) {
            failed(lines, initiator, "bad request: no SCTP profile '" + profile + "' (there are "
                    + org.rddp.transport.sctp.ProtocolParameters.PROFILES + ")");
            return null;
        }
        TransportOptions mpa = new TransportOptions();
        TransportOptions sctp = new TransportOptions();
        sctp.transport = TransportOptions.Transport.SCTP;
        sctp.sctpProfile = profile;
        sctp.multihome = multihome;
        SctpStack stack = null;
        String udpPort = "none";
        if (!stackName.equals("none")) {
            if (stackName.equals("auto") || !SctpStacks.NAMES.contains(stackName)) {
                failed(lines, initiator, "bad request: the SCTP backend is kernel, usrsctp-udp or usrsctp-native, "
                        + "not '" + stackName + "'");
                return null;
            }
            try {
                stack = SctpStacks.byName(stackName);
            } catch (IOException | UnsupportedOperationException e) {
                failed(lines, initiator, "no SCTP backend " + stackName + " at the responder: " + e.getMessage());
                return null;
            }
            sctp.sctpStack = stackName;
            if (stack.name().equals("usrsctp-udp")) {
                udpPort = Integer.toString(UsrsctpStack.udpPort());
            }
        }
        lines.write(HELLO + " udp-port=" + udpPort + (mptcp ? " " + MPTCP + "=" + MptcpHost.describe() : ""));
        out.println("compare: serving " + initiator + (stack == null ? "" : " (SCTP: " + stack.name()
                + (udpPort.equals("none") ? "" : " on UDP port " + udpPort) + ", profile " + profile
                + (multihome.isEmpty() ? "" : ", bound to " + multihome.stream().map(InetAddress::getHostAddress)
                        .toList() + " too") + ")"));
        out.flush();
        return new CompareEnds.Transports(mpa, sctp, stack);
    }

    /** Runs one point's server end; returns whether it went through. */
    private boolean point(Compare.Task task, CompareEnds.Transports transports, Lines lines, String initiator)
            throws IOException {
        if (task.series().inProcessOnly()) { // an initiator adds these only when it runs both ends itself
            return failed(lines, initiator, task.encode() + ": " + task.series().label + " runs with both ends in one "
                    + "process only");
        }
        try (CompareEnds.Server server = CompareEnds.server(task, transports, bind)) {
            lines.write("ready " + server.port());
            server.serve();
        } catch (Exception e) {
            return failed(lines, initiator, task.encode() + ": " + e.getMessage());
        }
        lines.write("done");
        return true;
    }

    /** Tells the initiator (if it still listens) and the responder's error stream; returns false. */
    private boolean failed(Lines lines, String initiator, String why) {
        err.println("compare: " + initiator + ": " + why);
        err.flush();
        try {
            lines.write("error " + why.replace('\n', ' '));
        } catch (IOException e) {
            // the initiator is gone: the message above is all there is to say
        }
        return false;
    }

    /** The control connection's lines: UTF-8, newline-terminated, at most {@value #MAX_LINE} octets. */
    static final class Lines {
        private final InputStream in;
        private final OutputStream out;

        Lines(Socket socket) throws IOException {
            in = new java.io.BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        /** The next line without its end, or null at the end of the stream. */
        String read() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            while (true) {
                int octet = in.read();
                if (octet < 0) {
                    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
                }
                if (octet == '\n') {
                    return line.toString(StandardCharsets.UTF_8).strip();
                }
                if (line.size() == MAX_LINE) {
                    throw new IOException("a line longer than " + MAX_LINE + " octets: not an rddp compare peer");
                }
                line.write(octet);
            }
        }

        void write(String line) throws IOException {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }
}
