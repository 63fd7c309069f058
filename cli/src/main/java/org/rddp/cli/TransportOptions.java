package org.rddp.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import org.rddp.llp.LlpParameters;
import org.rddp.rdmap.RtrType;
import org.rddp.loop.Progress;
import org.rddp.transport.mpa.MpaConnectionManager;
import org.rddp.transport.mpa.MpaOptions;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControlChunk;
import org.rddp.transport.sctp.ChunkTap;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.transport.sctp.SctpConnectionManager;
import org.rddp.transport.sctp.SctpLimits;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.transport.sctp.SctpStacks;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.ConnectOptions;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManager;
import org.rddp.wire.MalformedFrameException;
import org.rddp.wire.PrivateData;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every client/server command shares: which transport, and how it sets connections up. The MPA
 * options are what siw fixes at build time (revision, CRC, peer-to-peer); the IRD/ORD and private data go into
 * the RFC 6581 enhanced setup of either transport.
 */
@SuppressWarnings({"exports", "missing-explicit-ctor"}) // public for the command families in the sub-packages only
public final class TransportOptions {
    /** The two transports. */
    public enum Transport { MPA, SCTP }

    @Option(names = {"-t", "--transport"}, defaultValue = "mpa", converter = TransportConverter.class,
            description = "mpa (TCP, RFC 5044) or sctp (RFC 5043); default: ${DEFAULT-VALUE}")
    public Transport transport = Transport.MPA;

    @Option(names = "--sctp-stack", defaultValue = "auto", description = "SCTP backend: auto, kernel, usrsctp, "
            + "usrsctp-udp, usrsctp-native; default: ${DEFAULT-VALUE}")
    public String sctpStack = "auto";

    @Option(names = "--peer-udp-port", description = "usrsctp over UDP: the UDP port the peer's usrsctp "
            + "encapsulates on (RFC 6951), when it is another process")
    public Integer peerUdpPort;

    @Option(names = "--udp-port", description = "usrsctp over UDP: this side's UDP port (RFC 6951); default: a "
            + "free one, printed by the server")
    Integer udpPort;

    @Option(names = "--mpa-rev", defaultValue = "2", description = "the highest MPA revision spoken: 1 or 2 "
            + "(RFC 6581); default: ${DEFAULT-VALUE}")
    int mpaRevision = 2;

    @Option(names = "--crc", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "ask for MPA CRCs (used when either side asks); --no-crc to leave them to the peer")
    public boolean crc = true;

    @Option(names = "--markers", description = "ask the peer for MPA Markers")
    boolean markers;

    @Option(names = "--p2p", converter = RtrConverter.class, description = "as client, ask for the peer-to-peer "
            + "model with this RTR message: send, write or read (RFC 6581 §9.2)")
    RtrType peerToPeer;

    @Option(names = "--rtr-types", split = ",", converter = RtrConverter.class, description = "as server, the "
            + "RTR messages accepted in peer-to-peer mode; default: write,read,send")
    List<RtrType> rtrTypes = List.of(RtrType.WRITE, RtrType.READ, RtrType.SEND);

    @Option(names = "--mpa-mtu", defaultValue = "0", description = "the path MTU MPA cuts FPDUs for (RFC 5044 "
            + "§4.5), when the path's is smaller than the interface's; default: the interface's")
    public int mpaMtu;

    @Option(names = "--mptcp", description = "MPA over Multipath TCP (RFC 8684): the sockets are opened as MPTCP "
            + "ones, so that the connection can use every path the kernel's path manager gives it (ip mptcp endpoint, "
            + "ip mptcp limits); a peer without it answers with plain TCP, which is said")
    public boolean mptcp;

    @Option(names = "--retry-rev1", description = "as MPA client, retry with revision 1 when the server closes "
            + "on an enhanced request (RFC 6581 §10)")
    boolean retryRevision1;

    @Option(names = "--unenhanced", description = "plain setup: no RFC 6581 IRD/ORD negotiation")
    boolean unenhanced;

    @Option(names = "--ird", defaultValue = "16", description = "inbound RDMA Reads this side queues; "
            + "default: ${DEFAULT-VALUE}")
    int ird = 16;

    @Option(names = "--ord", defaultValue = "16", description = "outbound RDMA Reads this side wants; "
            + "default: ${DEFAULT-VALUE}")
    int ord = 16;

    @Option(names = "--private-data", description = "private data for the peer (UTF-8 text)")
    String privateData;

    // 30: SCTP gives up an INIT after up to 37 s (Max.Init.Retransmits 8, RTO.Max 5 s) and a segment lost after a
    // lossy handshake waits its backed-off RTO; 10 s cut off connects that a lossy path completes
    @Option(names = "--setup-timeout", defaultValue = "30", description = "seconds to wait for the peer's "
            + "answer during setup (a server: for a connection's MPA Request); default: ${DEFAULT-VALUE}")
    public int setupTimeoutSeconds = 30;

    @Option(names = "--sctp-profile", defaultValue = "default", description = "SCTP: the protocol parameters to "
            + "start from: default (RTO 1000,200,5000 ms; retransmissions 20,4,0; heartbeats every 1 s), rfc9260 (RFC "
            + "9260's own), fast-failover (for paths of a few ms: RTO.Min 20 ms, RTO.Max 1 s, heartbeats every 100 "
            + "ms, SACKs held 10 ms at most); the options below change them; default: ${DEFAULT-VALUE}")
    public String sctpProfile = "default";

    @Option(names = "--sctp-rto", split = ",", description = "SCTP: RTO.Initial,RTO.Min,RTO.Max in ms; default: "
            + "the profile's")
    List<Long> sctpRto;

    @Option(names = "--sctp-retrans", split = ",", description = "SCTP: Association.Max.Retrans,Path.Max.Retrans,"
            + "the potentially-failed threshold (RFC 7829): timeouts in a row that end the association, fail a path, "
            + "leave a path; default: the profile's")
    List<Integer> sctpRetrans;

    @Option(names = "--multihome", split = ",", description = "SCTP: further local addresses each association binds "
            + "besides the first, so that it outlives a failed path (multi-homing; kernel SCTP)")
    public List<InetAddress> multihome = List.of();

    @Option(names = "--sctp-hb-interval", description = "SCTP: HB.interval in ms, how long an idle path waits to be "
            + "probed; default: the profile's")
    Long sctpHeartbeat;

    @Option(names = "--trace-sessions", description = "SCTP: print every DDP session control message sent and "
            + "received (Initiate, Accept, Reject, Terminate and RFC 6581's enhanced ones), on stderr")
    boolean traceSessions;

    @Option(names = "--stats", description = "on exit, print the process's counters (refused, malformed, "
            + "terminated, lost, retransmitted) on stderr")
    boolean stats;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** A connection manager of the chosen transport, bound to {@code local}, on a loop of its own thread. */
    public ConnectionManager open(InetAddress local) throws IOException {
        return open(local, Progress.automatic());
    }

    /**
     * A connection manager of the chosen transport, bound to {@code local}, its loops driven as {@code progress} says
     * (a manual one by the calling thread); the caller closes it.
     */
    public ConnectionManager open(InetAddress local, Progress progress) throws IOException {
        return open(local, progress, false);
    }

    /**
     * {@link #open(InetAddress, Progress)}, over Multipath TCP if {@code mptcp} (as with {@code --mptcp}; MPA only).
     */
    public ConnectionManager open(InetAddress local, Progress progress, boolean mptcp) throws IOException {
        if (mptcp && transport != Transport.MPA) {
            throw new IllegalArgumentException("Multipath TCP is for MPA's TCP, not for " + transport);
        }
        return switch (transport) {
            case MPA -> new MpaConnectionManager(mpaOptions().withMptcp(this.mptcp || mptcp), local, progress);
            case SCTP -> new SctpConnectionManager(sctpStackFor("SCTP"), java.util.stream.Stream.concat(
                    java.util.stream.Stream.of(local), multihome.stream()).toList(),
                    traceSessions ? this::trace : ChunkTap.NONE, progress, SctpLimits.defaults(),
                    protocolParameters());
        };
    }

    /** The SCTP protocol parameters these options make: the profile's with what was given instead. */
    public ProtocolParameters protocolParameters() {
        ProtocolParameters parameters = ProtocolParameters.named(sctpProfile);
        if (sctpRto != null) {
            if (sctpRto.size() != 3) {
                throw new IllegalArgumentException("--sctp-rto takes RTO.Initial,RTO.Min,RTO.Max in ms");
            }
            parameters = parameters.withRto(Duration.ofMillis(sctpRto.get(0)), Duration.ofMillis(sctpRto.get(1)),
                    Duration.ofMillis(sctpRto.get(2)));
        }
        if (sctpRetrans != null) {
            if (sctpRetrans.size() != 3) {
                throw new IllegalArgumentException("--sctp-retrans takes Association.Max.Retrans,Path.Max.Retrans,"
                        + "the potentially-failed threshold");
            }
            parameters = parameters.withRetransmissions(sctpRetrans.get(0), sctpRetrans.get(1), sctpRetrans.get(2));
        }
        if (sctpHeartbeat != null) {
            parameters = parameters.withHeartbeatInterval(Duration.ofMillis(sctpHeartbeat));
        }
        return parameters;
    }

    /** Prints a session control message sent or received (the owner thread calls it); data chunks pass. */
    private void trace(Object association, boolean outbound, int streamId, int ppid, boolean unordered,
            MemorySegment chunk, int length) {
        if (ppid != DdpSctp.PPID_SESSION_CONTROL) {
            return;
        }
        String message;
        try {
            message = SessionControlChunk.decode(chunk, 0, length).message().getClass().getSimpleName();
        } catch (MalformedFrameException e) {
            message = "a malformed session control chunk (" + e.getMessage() + ")";
        }
        PrintWriter err = mixee.commandLine().getErr();
        err.println("trace: " + association + " stream " + streamId + (outbound ? " sent " : " received ") + message);
        err.flush();
    }

    /** The SCTP backend the options name for {@code what}, which --mptcp does not apply to. */
    private SctpStack sctpStackFor(String what) throws IOException {
        if (mptcp) {
            throw new IllegalArgumentException("--mptcp is for MPA's TCP (-t mpa), not for " + what);
        }
        return sctpStack();
    }

    /** The SCTP backend the options name, with the peer's UDP port when one is given. */
    public SctpStack sctpStack() throws IOException {
        if (udpPort != null) {
            System.setProperty(UsrsctpStack.UDP_PORT_PROPERTY, udpPort.toString()); // read once, when usrsctp starts
        }
        if (peerUdpPort != null) {
            if (!sctpStack.startsWith("usrsctp") || "usrsctp-native".equals(sctpStack)) {
                throw new IllegalArgumentException("--peer-udp-port is for usrsctp over UDP, not " + sctpStack);
            }
            return UsrsctpStack.udp(peerUdpPort);
        }
        return SctpStacks.byName(sctpStack);
    }

    /** Where a peer finds this side beyond its address: usrsctp's UDP port, when SCTP runs over UDP. */
    public String encapsulation(ConnectionManager manager) {
        return manager instanceof SctpConnectionManager sctp ? encapsulation(sctp.stack()) : "";
    }

    /** Where a peer finds {@code stack} beyond its address: usrsctp's UDP port when it runs over UDP, else nothing. */
    public static String encapsulation(SctpStack stack) {
        return stack != null && stack.name().contains("udp")
                ? " (SCTP over UDP port " + UsrsctpStack.udpPort() + ": clients give --peer-udp-port "
                        + UsrsctpStack.udpPort() + ")"
                : "";
    }

    /** The MPA settings these options make. */
    MpaOptions mpaOptions() {
        MpaOptions options = MpaOptions.defaults().withRevision(mpaRevision).withCrc(crc).withMarkers(markers)
                .withRetryRevision1(retryRevision1).withMtu(mpaMtu).withMptcp(mptcp)
                .withStartupTimeout(Duration.ofSeconds(setupTimeoutSeconds));
        if (mpaRevision < 2) {
            return options.withRtrTypes(Set.of());
        }
        return peerToPeer != null ? options.withPeerToPeer(peerToPeer) : options.withRtrTypes(EnumSet.copyOf(rtrTypes));
    }

    /**
     * For a client whose server sends the first message on the connection: over MPA that takes the peer-to-peer
     * model (RFC 5044 §7.1.2 keeps a responder silent until the initiator's first FPDU; RFC 6581's RTR is that
     * FPDU), so unless one was chosen the client asks for it with a Write RTR.
     */
    public void serverSendsFirst() {
        if (transport != Transport.MPA || peerToPeer != null) {
            return;
        }
        if (mpaRevision < 2 || unenhanced) {
            throw new IllegalArgumentException("over MPA the server may send first only in the peer-to-peer model "
                    + "(RFC 6581): give MPA revision 2 with enhanced setup");
        }
        peerToPeer = RtrType.WRITE;
    }

    /** What a client asks for. */
    public ConnectOptions connectOptions() {
        return connectOptions(false);
    }

    /**
     * What a client asks for; if {@code serverSendsFirst}, over MPA in the peer-to-peer model, with a Write RTR unless
     * another was chosen, as {@link #serverSendsFirst()} makes it, these options left as they are.
     */
    public ConnectOptions connectOptions(boolean serverSendsFirst) {
        boolean enhanced = !unenhanced && mpaRevision >= 2;
        RtrType rtr = peerToPeer == null && serverSendsFirst && transport == Transport.MPA ? RtrType.WRITE : peerToPeer;
        if (rtr != null && !enhanced) {
            throw new IllegalArgumentException(peerToPeer != null ? "--p2p needs enhanced setup (MPA revision 2, no "
                    + "--unenhanced)" : "over MPA the server may send first only in the peer-to-peer model (RFC 6581): "
                            + "give MPA revision 2 with enhanced setup");
        }
        return new ConnectOptions(privateData(), enhanced, ird, ord, rtr != null,
                rtr == null ? Set.of() : EnumSet.of(rtr), Duration.ofSeconds(setupTimeoutSeconds));
    }

    /** What a server answers with. */
    public AcceptOptions acceptOptions() {
        return new AcceptOptions(privateData(), ird, ord);
    }

    private PrivateData privateData() {
        return privateData == null ? PrivateData.EMPTY : PrivateData.of(privateData.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Over MPA, what a server waiting for its one client does with the connections its manager refuses before their
     * Request reaches it: one from an MPA peer it cannot serve (a revision it does not speak, a malformed Request)
     * goes to {@code clientRefused} with why; a stranger's (a reset, silence, not MPA) is noted on {@code err} and the
     * wait goes on. Over SCTP the manager itself drops associations that are not RDDP's.
     *
     * @return {@code manager}
     */
    public static ConnectionManager watchRefusals(ConnectionManager manager, String command, PrintWriter err,
            Consumer<String> clientRefused) {
        if (manager instanceof MpaConnectionManager mpa) {
            mpa.onRefusal(refusal -> {
                if (refusal.mpaPeer()) {
                    clientRefused.accept(refusal.reason());
                } else {
                    err.println("rddp " + command + ": ignored a connection from " + refusal.peer() + ": "
                            + refusal.reason() + "; still waiting for the client");
                    err.flush();
                }
            });
        }
        return manager;
    }

    /**
     * How the connection came out: transport (and over MPA, whether Multipath TCP runs under it), CRC and Markers,
     * IRD/ORD, peer-to-peer RTR.
     */
    public static String describe(Connection connection) {
        LlpParameters parameters = connection.parameters();
        RtrType rtr = parameters.rtrToSend() != RtrType.NONE ? parameters.rtrToSend() : parameters.rtrToReceive();
        return "over " + connection.queuePair().stream() + ", IRD " + parameters.ird() + ", ORD " + parameters.ord()
                + (rtr == RtrType.NONE ? ", client-server" : ", peer-to-peer with " + rtr + " RTR");
    }

    /**
     * The transport as perftest's banner names it: TCP/MPA, MPTCP/MPA (asked for: the connection says what runs),
     * SCTP.
     */
    public String transportName() {
        return transport == Transport.SCTP ? "SCTP" : mptcp ? "MPTCP/MPA" : "TCP/MPA";
    }

    /** The local address this machine sends from towards {@code remote}. */
    public static InetAddress localFor(InetAddress remote) {
        if (remote.isLoopbackAddress()) {
            return remote;
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(remote, 9)); // no packet is sent: this only consults the routes
            return probe.getLocalAddress();
        } catch (SocketException e) {
            throw new UncheckedIOException("no route to " + remote.getHostAddress(), e);
        }
    }

    /** Parses a transport name. */
    static final class TransportConverter implements picocli.CommandLine.ITypeConverter<Transport> {
        @Override
        public Transport convert(String value) {
            return Transport.valueOf(value.toUpperCase(Locale.ROOT));
        }
    }

    /** Parses an RTR type name. */
    static final class RtrConverter implements picocli.CommandLine.ITypeConverter<RtrType> {
        @Override
        public RtrType convert(String value) {
            RtrType type = RtrType.valueOf(value.toUpperCase(Locale.ROOT));
            if (type == RtrType.NONE) {
                throw new IllegalArgumentException("an RTR message is send, write or read");
            }
            return type;
        }
    }
}
