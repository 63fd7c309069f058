package org.rddp.transport.sctp.usrsctp;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.rddp.loop.Loop;
import org.rddp.transport.sctp.ProtocolParameters;
import org.rddp.transport.sctp.SctpStack;

/**
 * A connect waiting for the handshake. Its upcall may come from whichever thread is inside usrsctp (the loop's,
 * reading a packet, or one driving usrsctp's timers): it only queues a look on the loop. Loop thread otherwise.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
final class PendingConnect implements SctpStack.Connecting {
    private final Loop loop;
    private final MemorySegment socket;
    private final InetSocketAddress remote;
    private final int mtu;
    private final Links.Link link;
    private final Runnable onFree;
    private final SctpStack.Connected done;
    private final int id;
    /** The failure detection the association takes: some of it only once it is up. */
    private final ProtocolParameters parameters;
    /** When the INIT went ({@link System#nanoTime}). */
    private final long started = System.nanoTime();
    private boolean over;

    private PendingConnect(Loop loop, MemorySegment socket, InetSocketAddress remote, int mtu, Links.Link link,
            Runnable onFree, ProtocolParameters parameters, SctpStack.Connected done)
            throws IOException {
        this.loop = loop;
        this.parameters = parameters;
        this.socket = socket;
        this.remote = remote;
        this.mtu = mtu;
        this.link = link;
        this.onFree = onFree;
        this.done = done;
        this.id = Upcalls.attach(socket, () -> loop.execute(this::look), "connecting");
    }

    /**
     * Starts the handshake on {@code loop}, through {@code endpoint} (the loop's UDP one, or its raw IP one
     * {@code raw}, null with UDP): opens and binds the socket, holds the link to {@code remote} and sends the INIT,
     * {@code usrsctp_connect} not blocking. If that fails, all is given back: the socket, the link, {@code endpoint}.
     * {@code stack} chooses the link's UDP port and the path MTU. Loop thread.
     */
    static PendingConnect start(UsrsctpStack stack, Loop loop, Links.Endpoint endpoint, RawIpEndpoint raw,
            InetSocketAddress local, InetSocketAddress remote, int streams, int adaptation,
            ProtocolParameters parameters, SctpStack.Connected done) throws IOException {
        int port = 0;
        MemorySegment socket = MemorySegment.NULL;
        Links.Link held = null;
        PendingConnect pending = null;
        boolean started = false;
        try (Arena arena = Arena.ofConfined()) {
            Links.Link link = raw == null
                    ? Links.udpLink(new InetSocketAddress(remote.getAddress(), stack.remoteUdpPort(remote)), endpoint)
                    : Links.ipLink(remote.getAddress(), raw);
            int mtu = stack.sctpMtu(local.getAddress(), remote.getAddress());
            socket = SocketSetup.open(streams, adaptation, mtu, parameters, true);
            MemorySegment state = Usrsctp.captureState(arena);
            if (raw != null) {
                // a port this loop's raw socket takes
                port = SocketSetup.bindEphemeral(socket, arena, state, link.handle);
                raw.own(port);
            } else {
                SocketSetup.bind(socket, arena, state, link.handle, 0); // one address: the link's
            }
            Links.hold(link); // released when the socket is freed, or the connect fails
            held = link;
            pending = new PendingConnect(loop, socket, remote, mtu, link, LoopEndpoints.freeing(endpoint, port, link),
                    parameters, done);
            int status = (int) Usrsctp.CONNECT.invokeExact(state, socket, Usrsctp.sockaddrConn(arena, link.handle,
                    remote.getPort()), (int) Usrsctp.SOCKADDR_CONN_SIZE);
            if (status != 0 && Usrsctp.errno(state) != Usrsctp.EINPROGRESS) {
                throw new IOException("SCTP connect to " + remote + " failed, errno " + Usrsctp.errno(state));
            }
            started = true;
            return pending;
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        } finally {
            if (started) {
                // the handshake is under way: the pending connect owns the socket now
            } else if (pending != null) {
                pending.abandon(); // closes the socket, gives back the link and the endpoint
            } else {
                if (!socket.equals(MemorySegment.NULL)) {
                    SocketSetup.closeQuietly(socket);
                }
                LoopEndpoints.freeing(endpoint, port, held).run();
            }
        }
    }

    /** Whether the handshake ended, and how: established, or the association gone (refused, aborted, lost). */
    private void look() {
        if (over) {
            return;
        }
        int state;
        int streams;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Usrsctp.captureState(arena);
            MemorySegment status = arena.allocate(Usrsctp.STATUS_SIZE, 8);
            MemorySegment length = Usrsctp.intValue(arena, (int) Usrsctp.STATUS_SIZE);
            int result = (int) Usrsctp.GETSOCKOPT.invokeExact(errno, socket, Usrsctp.IPPROTO_SCTP,
                    Usrsctp.SCTP_STATUS, status, length);
            if (result != 0) { // no association any more: the socket's error says why it ended
                int error = socketError(arena, errno);
                String why = "SCTP connect to " + remote + " failed after " + elapsed() + ": " + describe(error);
                fail(error == Usrsctp.ECONNREFUSED ? new java.net.ConnectException(why) : new IOException(why));
                return;
            }
            state = status.get(JAVA_INT, Usrsctp.STATUS_STATE);
            streams = Math.min(Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_INSTRMS)),
                    Short.toUnsignedInt(status.get(JAVA_SHORT, Usrsctp.STATUS_OUTSTRMS)));
        } catch (Throwable e) {
            fail(new IOException("SCTP connect to " + remote + " failed", e));
            return;
        }
        if (state == Usrsctp.SCTP_COOKIE_WAIT || state == Usrsctp.SCTP_COOKIE_ECHOED) {
            return; // still shaking hands: the next upcall looks again
        }
        if (state != Usrsctp.SCTP_ESTABLISHED) {
            fail(new IOException("SCTP connect to " + remote + " failed: the association is in state 0x"
                    + Integer.toHexString(state) + ", not established"));
            return;
        }
        if (streams < 1) {
            fail(new IOException("the association has no stream in one direction (SCTP_STATUS)"));
            return;
        }
        try {
            SocketSetup.handshakeDone(socket, parameters);
        } catch (IOException e) {
            fail(new IOException("SCTP connect to " + remote + ": " + e.getMessage(), e));
            return;
        }
        over = true;
        Upcalls.release(id);
        UsrsctpSocket connected;
        try {
            connected = new UsrsctpSocket(socket, streams, mtu, remote, link, onFree);
        } catch (IOException | RuntimeException e) {
            SocketSetup.closeQuietly(socket);
            onFree.run();
            done.done(null, e instanceof IOException io ? io : new IOException(e));
            return;
        }
        done.done(connected, null);
    }

    /** The socket's error (SO_ERROR), which usrsctp sets as a TCP socket's when the association ends; 0 if none. */
    private int socketError(Arena arena, MemorySegment errno) throws Throwable {
        MemorySegment error = Usrsctp.intValue(arena, 0);
        MemorySegment length = Usrsctp.intValue(arena, 4);
        int result = (int) Usrsctp.GETSOCKOPT.invokeExact(errno, socket, Usrsctp.SOL_SOCKET, Usrsctp.SO_ERROR, error,
                length);
        return result == 0 ? error.get(JAVA_INT, 0) : 0;
    }

    /** Why the association of a handshake ended, from its socket's error. */
    private String describe(int code) {
        return switch (code) {
            case Usrsctp.ECONNREFUSED -> "the peer refused it (an ABORT answered the INIT: nothing listens on that "
                    + "port there)";
            case Usrsctp.ECONNRESET -> "the peer aborted it (an ABORT after the INIT ACK, before it was set up here)";
            case Usrsctp.ETIMEDOUT -> "no answer: the INIT or the COOKIE ECHO went unanswered "
                    + (parameters.maxInitRetransmits() + 1) + " times (Max.Init.Retransmits "
                    + parameters.maxInitRetransmits() + ")";
            case Usrsctp.ECONNABORTED -> "aborted here";
            default -> "the association is gone (socket error " + code + ")";
        };
    }

    private String elapsed() {
        return String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - started) / 1e9);
    }

    private void fail(IOException why) {
        abandon();
        done.done(null, why);
    }

    @Override
    public void abandon() {
        if (!over) {
            over = true;
            Upcalls.release(id);
            SocketSetup.closeQuietly(socket);
            onFree.run();
        }
    }
}
