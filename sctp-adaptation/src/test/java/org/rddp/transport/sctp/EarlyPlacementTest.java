package org.rddp.transport.sctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rddp.ddp.DdpSegment;
import org.rddp.error.DdpError;
import org.rddp.rdmap.RdmapControl;
import org.rddp.rdmap.RdmapOpcode;
import org.rddp.rdmap.TerminateHeader;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.usrsctp.UsrsctpStack;
import org.rddp.verbs.AcceptOptions;
import org.rddp.verbs.Access;
import org.rddp.verbs.CompletionQueue;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionRequest;
import org.rddp.verbs.Listener;
import org.rddp.verbs.MemoryRegion;
import org.rddp.verbs.MemoryWindow;
import org.rddp.verbs.PostStatus;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.QpAttributes;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.RdmaDevice;
import org.rddp.verbs.ReceiveWorkRequest;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WcStatus;
import org.rddp.verbs.WorkCompletion;
import org.rddp.wire.PrivateData;
import org.rddp.transport.sctp.raw.RawSctpPeer;

/**
 * Tagged payload that arrives ahead of its turn (RFC 5043 §10) against what must hold in DDP-SSN order (RFC 5040
 * §5.5, §7.2; RFC 5042 §6.4): a Write is placed early into a region, never into a memory window (the peer's Send with
 * Invalidate still on its way may revoke it), and every Write is checked again in its turn, so a Write behind a Send
 * with Invalidate of its window gets the Terminate for an invalid STag and leaves the window's memory as it was. A
 * hand-driven peer sends the chunks out of order on the wire.
 */
@Timeout(60)
class EarlyPlacementTest {
    private static final int SIZE = 4096;
    private static final byte[] LATE = {'l', 'a', 't', 'e'};

    private final RdmaDevice device = new RdmaDevice("early-placement");
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue cq = device.createCompletionQueue(64);
    private final LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
    private final MemorySegment memory = Arena.ofShared().allocate(SIZE, 8);
    private SctpConnectionManager ours;
    private InetSocketAddress address;
    private Listener listener;
    private RawSctpPeer peer;
    private QueuePair qp;

    @BeforeEach
    void setUp() throws Exception {
        ours = new SctpConnectionManager(UsrsctpStack.udp(), InetAddress.getLoopbackAddress());
        address = new InetSocketAddress(InetAddress.getLoopbackAddress(), TestPorts.next());
        listener = ours.listen(address, requests::add);
        peer = RawSctpPeer.connect(address, DdpSctp.ADAPTATION_INDICATION);
        peer.control(1, 0, new SessionControl.Initiate(PrivateData.EMPTY));
        ConnectionRequest request = requests.poll(10, TimeUnit.SECONDS);
        assertThat(request).isNotNull();
        qp = pd.createQueuePair(QpAttributes.of(cq, 16, 4));
        MemoryRegion receive = pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.LOCAL_WRITE));
        qp.postReceive(new ReceiveWorkRequest(1).wrId(1).sge(0, receive, 0, 64));
        CompletableFuture<Connection> accepted = request.accept(qp, new AcceptOptions(PrivateData.EMPTY, 1, 1));
        assertThat(peer.next().control()).isEqualTo(new SessionControl.Accept(PrivateData.EMPTY));
        accepted.get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() {
        peer.close();
        listener.close();
        ours.close();
    }

    private static byte[] write(int stag, long to, byte[] payload) {
        byte[] segment = new byte[DdpSegment.TAGGED_HEADER_LENGTH + payload.length];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeTagged(true, RdmapControl.encode(RdmapOpcode.RDMA_WRITE), stag, to);
        System.arraycopy(payload, 0, segment, DdpSegment.TAGGED_HEADER_LENGTH, payload.length);
        return segment;
    }

    private static byte[] sendWithInvalidate(int stag) {
        byte[] segment = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + 2];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND_WITH_INVALIDATE), stag, 0, 1, 0);
        return segment;
    }

    private WorkCompletion next() {
        return CompletionPolling.next(cq, java.time.Duration.ofSeconds(10));
    }

    private byte[] firstOctets(int count) {
        return memory.asSlice(0, count).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A window's memory is final once its Send with Invalidate is delivered: a Write behind it is refused. */
    @Test
    void aWriteBehindASendWithInvalidateOfItsWindowIsTerminatedAndPlacesNothing() throws Exception {
        MemoryRegion backing = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND));
        MemoryWindow window = pd.allocateWindow();
        assertThat(qp.postSend(new SendWorkRequest(1).wrId(7).bind(window, backing, 0, SIZE, 0,
                EnumSet.of(Access.REMOTE_WRITE)))).isEqualTo(PostStatus.OK);
        assertThat(next().status()).isEqualTo(WcStatus.SUCCESS);
        int stag = window.stag();

        peer.segment(1, 2, write(stag, 0, LATE)); // ahead of its turn: the Send with Invalidate (1) is not there
        peer.segment(1, 1, sendWithInvalidate(stag));

        WorkCompletion received = next();
        assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(received.invalidatedStag()).isEqualTo(stag);
        RawSctpPeer.Chunk answer = peer.next();
        assertThat(answer.ppid()).as("an RDMAP Terminate").isEqualTo(DdpSctp.PPID_DDP_SEGMENT);
        byte[] octets = answer.octets();
        int header = DdpSctp.DDP_SSN_LENGTH + DdpSegment.UNTAGGED_HEADER_LENGTH;
        assertThat(TerminateHeader.decode(MemorySegment.ofArray(octets), header, octets.length - header).cause())
                .contains(DdpError.TAGGED_INVALID_STAG);
        assertThat(firstOctets(LATE.length)).as("nothing of the Write reached the window's memory")
                .containsOnly(0);
    }

    /** A region nobody can invalidate still takes a Write ahead of its turn: placement need not wait (§10). */
    @Test
    void aWriteIntoARegionIsPlacedAheadOfItsTurn() throws Exception {
        MemoryRegion sink = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        peer.segment(1, 2, write(sink.rkey(), 0, LATE)); // DDP-SSN 1 is not coming yet
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!java.util.Arrays.equals(firstOctets(LATE.length), LATE)) {
            assertThat(System.nanoTime()).as("placed within 10 s, before its turn").isLessThan(deadline);
            Thread.onSpinWait();
        }
        peer.segment(1, 1, sendOf(2));
        assertThat(next().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(peer.next(java.time.Duration.ofMillis(300))).as("no Terminate: the Write was valid in its turn")
                .isNull();
    }

    private static byte[] sendOf(int payload) {
        byte[] segment = new byte[DdpSegment.UNTAGGED_HEADER_LENGTH + payload];
        new DdpSegment().bind(MemorySegment.ofArray(segment), 0, segment.length)
                .writeUntagged(true, RdmapControl.encode(RdmapOpcode.SEND), 0, 0, 1, 0);
        return segment;
    }
}
