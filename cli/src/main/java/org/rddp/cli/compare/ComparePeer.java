package org.rddp.cli.compare;

import java.io.Closeable;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.rddp.cli.PeerException;
import org.rddp.cli.TransportOptions;
import org.rddp.cli.perftest.PerfResult;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;

/**
 * {@code rddp compare --peer HOST[:PORT]}: the initiator's side of a comparison between two processes or hosts. It
 * holds the control connection to a responder ({@link CompareResponder}, which describes the protocol) and measures
 * each point by asking the responder for the point's server end and running the client end here.
 */
final class ComparePeer implements Compare.Measure, Closeable {
    /** How long the initiator keeps trying a responder that does not listen yet (a container still starting). */
    private static final Duration CONNECT_PATIENCE = Duration.ofSeconds(60);
    private static final Duration CONNECT_PAUSE = Duration.ofMillis(250);

    private final InetSocketAddress responder;
    private final Socket socket;
    private final CompareResponder.Lines lines;
    private final CompareEnds.Transports transports;
    /** How the responder's Multipath TCP is set, as it said; null when not asked (or it did not say). */
    private final String responderMptcp;

    private ComparePeer(InetSocketAddress responder, Socket socket, CompareResponder.Lines lines,
            CompareEnds.Transports transports, String responderMptcp) {
        this.responder = responder;
        this.socket = socket;
        this.lines = lines;
        this.transports = transports;
        this.responderMptcp = responderMptcp;
    }

    /**
     * Connects to the responder (trying again while it does not listen yet, saying so on {@code err}) and agrees on
     * SCTP: {@code stack} is this side's backend, or null without SCTP; over usrsctp-udp this side then sends to the
     * UDP port the responder's usrsctp encapsulates on; both run SCTP with the protocol parameters of
     * {@code sctpProfile}, RDDP's associations here bound to {@code multihome} too. With {@code mptcp}, asks how the
     * responder's Multipath TCP is set, for the conditions.
     */
    @SuppressWarnings("checkstyle:IllegalCatch") // closes the socket on any failure, then rethrows it
    static ComparePeer connect(InetSocketAddress responder, SctpStack stack, String sctpProfile,
            java.util.List<java.net.InetAddress> multihome, int cqMod, int postList, boolean mptcp, PrintWriter err)
            throws IOException, PeerException, InterruptedException {
        Socket socket = open(responder, err);
        try {
            socket.setSoTimeout((int) CompareEnds.TIMEOUT.multipliedBy(2).toMillis());
            socket.setTcpNoDelay(true);
            CompareResponder.Lines lines = new CompareResponder.Lines(socket);
            lines.write(CompareResponder.HELLO + " sctp=" + (stack == null ? "none" : stack.name())
                    + (mptcp ? " " + CompareResponder.MPTCP : "") + " " + CompareResponder.SCTP_PROFILE + "="
                    + sctpProfile);
            String answer = expect(lines, CompareResponder.HELLO + " udp-port=", "its hello");
            int said = answer.indexOf(" " + CompareResponder.MPTCP + "=");
            String responderMptcp = said < 0 ? null : answer.substring(said + CompareResponder.MPTCP.length() + 2);
            answer = said < 0 ? answer : answer.substring(0, said);
            TransportOptions mpa = new TransportOptions();
            TransportOptions sctp = new TransportOptions();
            sctp.transport = TransportOptions.Transport.SCTP;
            SctpStack mine = stack;
            sctp.sctpProfile = sctpProfile;
            sctp.multihome = multihome;
            if (stack != null) {
                sctp.sctpStack = stack.name();
                if (stack.name().equals("usrsctp-udp")) {
                    if (answer.equals("none")) {
                        throw new PeerException("the responder runs usrsctp over UDP but gave no UDP port");
                    }
                    sctp.peerUdpPort = Integer.parseInt(answer);
                    mine = UsrsctpStack.udp(sctp.peerUdpPort);
                }
            }
            return new ComparePeer(responder, socket, lines, new CompareEnds.Transports(mpa, sctp, mine, cqMod,
                    postList), responderMptcp);
        } catch (IOException | PeerException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private static Socket open(InetSocketAddress responder, PrintWriter err) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + CONNECT_PATIENCE.toNanos();
        boolean said = false;
        while (true) {
            Socket socket = new Socket();
            try {
                socket.connect(responder, (int) CompareEnds.TIMEOUT.toMillis());
                return socket;
            } catch (ConnectException e) {
                socket.close();
                if (System.nanoTime() - deadline > 0) {
                    throw new ConnectException("no rddp compare responder at " + responder + " (" + e.getMessage()
                            + "): start one with rddp compare --serve");
                }
                if (!said) {
                    err.println("compare: waiting for the responder at " + responder + " to listen");
                    err.flush();
                    said = true;
                }
                Thread.sleep(CONNECT_PAUSE); // a responder still starting: ask again, up to the patience above
            }
        }
    }

    /** "; MPTCP at the responder: …" as it said, or "" when it was not asked or did not say. */
    String responderMptcp() {
        return responderMptcp == null ? "" : "; MPTCP at the responder: " + responderMptcp;
    }

    /** The transports this side runs the client ends over. */
    CompareEnds.Transports transports() {
        return transports;
    }

    /** Where the comparison runs, for the JSON. */
    String setup() {
        return "two processes: initiator " + socket.getLocalAddress().getHostAddress() + ", responder "
                + responder.getAddress().getHostAddress() + ":" + responder.getPort() + Compare.mtu(
                        socket.getLocalAddress());
    }

    @Override
    public PerfResult run(Compare.Task task) throws Exception {
        return failover(task, null);
    }

    @Override
    public PerfResult failover(Compare.Task task, org.rddp.cli.perftest.Arrivals arrivals) throws Exception {
        lines.write("point " + task.encode());
        String ready = expect(lines, "ready ", "the point " + task.encode());
        int port;
        try {
            port = Integer.parseInt(ready);
        } catch (NumberFormatException e) {
            throw new PeerException("the responder said 'ready " + ready + "': no port");
        }
        PerfResult result = CompareEnds.client(task, transports, new InetSocketAddress(responder.getAddress(), port),
                arrivals);
        expect(lines, "done", "the end of the point " + task.encode());
        return result;
    }

    /** Reads the responder's next line, which must start with {@code prefix}; returns the rest. */
    private static String expect(CompareResponder.Lines lines, String prefix, String what)
            throws IOException, PeerException {
        String line;
        try {
            line = lines.read();
        } catch (SocketTimeoutException e) {
            throw new PeerException("the responder did not answer " + what + " within "
                    + CompareEnds.TIMEOUT.multipliedBy(2).toSeconds() + " s");
        }
        if (line == null) {
            throw new PeerException("the responder closed the control connection, waiting for " + what, true);
        }
        if (line.startsWith("error ")) {
            throw new PeerException("the responder: " + line.substring("error ".length()));
        }
        if (!line.startsWith(prefix)) {
            throw new PeerException("the responder said '" + line + "' to " + what);
        }
        return line.substring(prefix.length()).trim();
    }

    /** Says bye and closes the control connection. */
    @Override
    public void close() throws IOException {
        try (socket) {
            lines.write("bye");
        }
    }
}
