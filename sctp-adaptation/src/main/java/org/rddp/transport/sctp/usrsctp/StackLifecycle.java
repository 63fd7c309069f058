package org.rddp.transport.sctp.usrsctp;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.SocketException;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;

/**
 * The life of this process's one usrsctp stack, shared by every {@link UsrsctpStack}: started on first use, with the
 * process's UDP port chosen and RDDP's protocol parameters as the defaults of every association (usrsctp's sysctls),
 * and stopped once, for good. {@link UsrsctpRuntime} runs it meanwhile.
 *
 * <p>The class's monitor guards the process's port, and the endpoint table of {@link LoopEndpoints}, which binds
 * that port.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class StackLifecycle {
    private static final int MAX_CHUNKS_QUEUED = 512;

    /** The process's UDP port once started; -1 before, {@link Integer#MIN_VALUE} once shut down. */
    private static int udpPort = -1;

    private StackLifecycle() {
    }

    /** Starts usrsctp once per process, with the UDP port bound on the wildcard address (a taken port fails). */
    static synchronized void start() throws IOException {
        if (udpPort >= 0) {
            return;
        }
        if (udpPort == Integer.MIN_VALUE) {
            throw new IOException("the usrsctp stack of this process was shut down");
        }
        String missing = Usrsctp.unavailable();
        if (missing != null) {
            throw new IOException(missing);
        }
        int port = Integer.getInteger(UsrsctpStack.UDP_PORT_PROPERTY, 0);
        if (port == 0) {
            port = freeUdpPort();
        } else {
            try (DatagramSocket probe = new DatagramSocket(port)) {
                probe.getLocalPort(); // free now: the first listener binds it (a taken port fails clearly here)
            } catch (SocketException e) {
                throw new IOException("UDP port " + port + " is taken, and usrsctp needs it for SCTP over UDP "
                        + "(RFC 6951): free it or choose another with -D" + UsrsctpStack.UDP_PORT_PROPERTY + "=PORT",
                        e);
            }
        }
        UsrsctpRuntime.start();
        udpPort = port;
        try {
            // RFC 5043 §10: fewer than 32768 unacknowledged chunks per stream, without relying on ULP flow
            // control. usrsctp blocks a sender once this many chunks of an association are queued or unacked.
            int status = (int) Usrsctp.SET_MAX_CHUNKS_ON_QUEUE.invokeExact(MAX_CHUNKS_QUEUED);
            if (status != 0 || maxChunksInFlight() > DdpSctp.MAX_CHUNKS_IN_FLIGHT_PER_STREAM) {
                throw new IOException("could not bound usrsctp's queued chunks to " + MAX_CHUNKS_QUEUED);
            }
            apply(ProtocolParameters.defaults());
            applyProperties();
            Counters.process().supply(Counter.SCTP_RETRANSMISSIONS, Usrsctp::retransmittedData);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }

    /**
     * Sets the defaults every socket of this process starts with (usrsctp's sysctls, in milliseconds); each
     * connection manager then sets its own on its sockets ({@link SocketSetup}).
     */
    private static void apply(ProtocolParameters parameters) throws Throwable {
        long[] values = {parameters.rtoMin().toMillis(), parameters.rtoMax().toMillis(),
            parameters.rtoInitial().toMillis(), parameters.associationMaxRetrans(), parameters.pathMaxRetrans(),
            parameters.maxInitRetransmits(), parameters.hbInterval().toMillis(), parameters.pfThreshold()};
        String[] names = {"rto_min_default", "rto_max_default", "rto_initial_default", "assoc_rtx_max_default",
            "path_rtx_max_default", "init_rtx_max_default", "heartbeat_interval_default", "path_pf_threshold"};
        for (int i = 0; i < names.length; i++) {
            if (Usrsctp.setSysctl(names[i], values[i]) != 0) {
                throw new IOException("usrsctp refused sctp_" + names[i] + " = " + values[i]);
            }
        }
    }

    /**
     * Sets each of usrsctp's sysctls given as a system property {@code rddp.usrsctp.sysctl.NAME=VALUE} (its
     * {@code sctp_NAME}: {@code default_cc_module=2} for H-TCP, say): a knob for measuring what a setting does.
     */
    private static void applyProperties() throws Throwable {
        for (String property : System.getProperties().stringPropertyNames()) {
            if (!property.startsWith(SYSCTL_PROPERTY)) {
                continue;
            }
            String name = property.substring(SYSCTL_PROPERTY.length());
            long value;
            try {
                value = Long.parseLong(System.getProperty(property).strip());
            } catch (NumberFormatException e) {
                throw new IOException(property + " is a number, not '" + System.getProperty(property) + "'");
            }
            if (Usrsctp.setSysctl(name, value) != 0) {
                throw new IOException("usrsctp refused sctp_" + name + " = " + value + " (" + property + ")");
            }
        }
    }

    /** The system properties that set usrsctp's sysctls: {@code rddp.usrsctp.sysctl.NAME=VALUE}. */
    static final String SYSCTL_PROPERTY = "rddp.usrsctp.sysctl.";

    /**
     * Stops the stack once every socket is closed ({@link UsrsctpRuntime#finish} refuses while any exists), trying
     * until {@code timeout}; returns whether it stopped. Afterwards no stack starts again in this process.
     */
    static synchronized boolean shutdown(java.time.Duration timeout) {
        if (udpPort < 0) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!UsrsctpRuntime.finish()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait(); // sockets still closing: their associations shut down on the timer thread
        }
        udpPort = Integer.MIN_VALUE; // finished for good
        return true; // the endpoints close with their loops
    }

    /** The UDP port this process's first listening socket encapsulates on (RFC 6951): the port to tell peers. */
    static synchronized int udpPort() {
        return udpPort;
    }

    /** The most chunks usrsctp keeps queued or unacknowledged per association (so per stream too). */
    static int maxChunksInFlight() {
        try {
            return (int) Usrsctp.GET_MAX_CHUNKS_ON_QUEUE.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException("usrsctp_sysctl_get_sctp_max_chunks_on_queue failed", e);
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket probe = new DatagramSocket(0)) {
            return probe.getLocalPort();
        } catch (SocketException e) {
            throw new IOException("no free UDP port for usrsctp", e);
        }
    }
}
