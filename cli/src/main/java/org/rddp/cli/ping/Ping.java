package org.rddp.cli.ping;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.function.Consumer;
import org.rddp.cli.Completions;
import org.rddp.cli.PeerException;
import org.rddp.work.WorkOpcode;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.verbs.WcOpcode;
import org.rddp.verbs.WorkCompletion;

/**
 * rping's protocol (rdma-core, librdmacm/examples/rping.c) over one queue pair, so that {@code rddp ping} and
 * {@code rping} are each other's peers. Per ping the client advertises its source buffer in a Send of 16 octets
 * (big-endian address, rkey, length); the server RDMA Reads it and answers with a Send ("go ahead"); the client
 * advertises its sink buffer; the server RDMA Writes what it read there (up to and including its first zero
 * octet, as rping does) and answers with another Send. The client's data is rping's: "rdma-ping-N: " and then
 * letters from 'A' to 'z' cycling from a start that moves on by one each ping, with a zero last octet.
 *
 * <p>Buffers are registered with their native addresses as tagged offsets, as rping's are.
 */
public final class Ping implements AutoCloseable {
    /** rping's port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default ping size. */
    public static final int DEFAULT_SIZE = 64;
    /** rping's smallest size: room for the longest "rdma-ping-N: " prefix. */
    public static final int MIN_SIZE = 26;
    /** rping's largest size. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** An advertisement: {addr: BE64, rkey: BE32, size: BE32}. */
    static final int INFO = 16;
    private static final ValueLayout.OfLong ADDRESS = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final char FIRST = 'A';
    private static final char LAST = 'z';

    private final Arena arena = Arena.ofAuto(); // freed when unreachable: no late access can fault
    private final int size;
    private final QueuePair qp;
    private final MemoryRegion received;
    private final MemoryRegion sent;
    private final MemoryRegion rdma;
    private final MemoryRegion start;
    private final Completions completions;
    private final ArrayDeque<Advert> adverts = new ArrayDeque<>();
    private final ReceiveWorkRequest receive = new ReceiveWorkRequest(1);
    private final SendWorkRequest send = new SendWorkRequest(1);
    private final SendWorkRequest transfer = new SendWorkRequest(1);

    /** One side's buffers and queue pair on {@code device}, for pings of {@code size} octets. */
    public Ping(RdmaDevice device, int size, Duration timeout) {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("ping size " + size + " outside rping's " + MIN_SIZE + ".." + MAX_SIZE);
        }
        this.size = size;
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(64);
        completions = new Completions(cq, timeout);
        qp = pd.createQueuePair(new QpAttributes(cq, cq, null, 16, 16, 1, true, completions.events()));
        received = register(pd, INFO, EnumSet.of(Access.LOCAL_WRITE));
        sent = register(pd, INFO, EnumSet.noneOf(Access.class));
        rdma = register(pd, size, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        start = register(pd, size, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        receive.sge(0, received, 0, INFO);
        send.opcode(WorkOpcode.SEND).signaled(true).sge(0, sent, 0, INFO);
    }

    private MemoryRegion register(ProtectionDomain pd, int length, java.util.Set<Access> access) {
        MemorySegment memory = arena.allocate(length, 8);
        return pd.register(memory, memory.address(), access);
    }

    /** The queue pair to connect or accept. */
    public QueuePair queuePair() {
        return qp;
    }

    /** Posts the receive for the peer's first message: before connecting or accepting, as rping does. */
    public void armReceive() {
        qp.postReceive(receive);
    }

    /** rping's data for ping {@code ping} of {@code size} octets. */
    public static byte[] data(int ping, int size) {
        byte[] data = new byte[size];
        byte[] prefix = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int prefixLength = Math.min(prefix.length, size - 1);
        System.arraycopy(prefix, 0, data, 0, prefixLength);
        char c = (char) (FIRST + ping % (LAST - FIRST + 1));
        for (int i = prefixLength; i < size; i++) {
            data[i] = (byte) c;
            c = c == LAST ? FIRST : (char) (c + 1);
        }
        data[size - 1] = 0;
        return data;
    }

    /**
     * Runs {@code count} pings as the client on the connected queue pair. With {@code verify} the data written
     * back must equal the data read: the sink is cleared before each ping, so nothing stale passes.
     */
    public void client(int count, boolean verify, Consumer<String> verbose) throws PeerException {
        for (int ping = 0; ping < count; ping++) {
            start.memory().copyFrom(MemorySegment.ofArray(data(ping, size)));
            rdma.memory().fill((byte) 0);
            advertise(start);
            next(WcOpcode.RECV, "the server's go-ahead after its RDMA Read (ping " + ping + ")");
            advertise(rdma);
            next(WcOpcode.RECV, "the server's go-ahead after its RDMA Write (ping " + ping + ")");
            if (verify && rdma.memory().mismatch(start.memory()) >= 0) {
                throw new PeerException("data mismatch in ping " + ping + ": wrote back '" + text(rdma)
                        + "' for '" + text(start) + "'", false);
            }
            verbose.accept("ping data: " + text(rdma));
        }
    }

    /**
     * Serves pings as the server on the connected queue pair until the client disconnects; returns how many were
     * served. With {@code verify} the data read must be rping's for that ping.
     */
    public int server(boolean verify, Consumer<String> verbose) throws PeerException {
        for (int ping = 0;; ping++) {
            Advert source;
            try {
                source = nextAdvert("the client's source advertisement (ping " + ping + ")");
            } catch (PeerException e) {
                if (e.disconnected()) {
                    return ping;
                }
                throw e;
            }
            if (Integer.compareUnsigned(source.length(), size) > 0) { // rping's lengths are unsigned
                throw new PeerException("the client advertises " + Integer.toUnsignedString(source.length())
                        + " octets, more than this server's " + size + " (give both the same size)", false);
            }
            if (source.length() == 0) {
                throw new PeerException("the client advertises an empty buffer (ping " + ping + ")", false);
            }
            rdma.memory().fill((byte) 0);
            transfer.opcode(WorkOpcode.RDMA_READ).signaled(true).remote(source.rkey(), source.address())
                    .sge(0, rdma, 0, source.length());
            post(transfer, "RDMA Read");
            next(WcOpcode.RDMA_READ, "the RDMA Read of ping " + ping);
            if (verify && rdma.memory().asSlice(0, source.length())
                    .mismatch(MemorySegment.ofArray(data(ping, source.length()))) >= 0) {
                throw new PeerException("ping " + ping + " read '" + text(rdma) + "', not rping's data", false);
            }
            verbose.accept("server ping data: " + text(rdma));
            post(send, "go-ahead Send");
            Advert sink = nextAdvert("the client's sink advertisement (ping " + ping + ")");
            // rping writes strlen(rdma_buf) + 1, no more than the sink's (unsigned) length
            int length = (int) Math.min(textLength(rdma) + 1L, Integer.toUnsignedLong(sink.length()));
            transfer.opcode(WorkOpcode.RDMA_WRITE).signaled(true).remote(sink.rkey(), sink.address())
                    .sge(0, rdma, 0, length);
            post(transfer, "RDMA Write");
            next(WcOpcode.RDMA_WRITE, "the RDMA Write of ping " + ping);
            post(send, "go-ahead Send");
        }
    }

    private void advertise(MemoryRegion region) throws PeerException {
        MemorySegment info = sent.memory();
        info.set(ADDRESS, 0, region.iova());
        info.set(WORD, 8, region.rkey());
        info.set(WORD, 12, size);
        post(send, "advertisement Send");
    }

    private void post(SendWorkRequest request, String what) throws PeerException {
        int status = qp.postSend(request);
        if (status != 0) {
            throw new PeerException("posting the " + what + " failed (" + status + "): " + qp, false);
        }
    }

    /** The peer's next advertisement. */
    private Advert nextAdvert(String what) throws PeerException {
        if (adverts.isEmpty()) {
            next(WcOpcode.RECV, what);
        }
        return adverts.removeFirst();
    }

    /**
     * Waits for the next completion of {@code expected}, passing over successful Send completions; a receive is
     * taken apart (it must be exactly 16 octets, as rping requires) and its receive posted again at once.
     */
    private void next(WcOpcode expected, String what) throws PeerException {
        while (true) {
            WorkCompletion completion = completions.next(what);
            if (completion.opcode() == WcOpcode.RECV) {
                if (completion.byteLength() != INFO) {
                    throw new PeerException("received bogus data, size " + completion.byteLength() + " (rping's "
                            + "messages are " + INFO + " octets)", false);
                }
                MemorySegment info = received.memory();
                adverts.addLast(new Advert(info.get(ADDRESS, 0), info.get(WORD, 8), info.get(WORD, 12)));
                qp.postReceive(receive);
            }
            if (completion.opcode() == expected) {
                return;
            }
        }
    }

    private static String text(MemoryRegion region) {
        int length = textLength(region);
        return new String(region.memory().asSlice(0, length).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.US_ASCII);
    }

    /** strlen: octets before the first zero (or all of them). */
    private static int textLength(MemoryRegion region) {
        MemorySegment memory = region.memory();
        for (int i = 0; i < memory.byteSize(); i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return (int) memory.byteSize();
    }

    /**
     * Disconnects gracefully and waits up to {@code wait} for the connection to end: over SCTP the Session
     * Terminate goes out and is answered (RFC 5043 §6.2), before the connection manager is closed.
     *
     * @return whether it ended within the wait
     */
    public boolean disconnect(Duration wait) throws InterruptedException {
        qp.disconnect();
        try {
            completions.ended().get(wait.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        qp.disconnect();
    }

    /** A peer's buffer. */
    private record Advert(long address, int rkey, int length) {
    }
}
