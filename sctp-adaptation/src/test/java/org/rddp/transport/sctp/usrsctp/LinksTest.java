package org.rddp.transport.sctp.usrsctp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.rddp.sctp.DdpSctp;
import org.rddp.transport.sctp.SctpStack;
import org.rddp.llp.Counter;
import org.rddp.llp.Counters;

/**
 * The packet side of the usrsctp backend: crafted SCTP packets go in through a link whose output is recorded.
 * usrsctp answers an INIT with an INIT ACK inside {@code usrsctp_conninput}, so what went out is known when the
 * input call returns. Listening sockets hear only the address and kind of link they were bound to.
 */
class LinksTest {
    private static final byte INIT = 1;
    private static final byte INIT_ACK = 2;

    /** A local endpoint that keeps every packet sent through it. */
    private static final class Recorder extends Links.Endpoint {
        /** The loop the recorders belong to: it drives usrsctp's clock, as every endpoint's loop does. */
        private static final org.rddp.loop.Loop LOOP = org.rddp.loop.Loop.start("links-test",
                org.rddp.loop.Poller.parking(), org.rddp.loop.IdleStrategy.BLOCKING);
        final List<byte[]> sent = new CopyOnWriteArrayList<>();

        Recorder(boolean udp) throws Exception {
            super(InetAddress.getByAddress(new byte[4]), udp, LOOP, -1); // no socket
        }

        @Override
        boolean open() {
            return true;
        }

        @Override
        void send(MemorySegment packet, Links.Link link) {
            sent.add(packet.toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        int port() {
            return 9;
        }

        @Override
        int receive(int most) {
            return 0; // no socket: the tests hand packets to usrsctp themselves
        }

        @Override
        public void close() {
            // nothing to release
        }
    }

    /** An SCTP packet with one INIT chunk (RFC 9260 §3.3.2), checksummed. */
    private static MemorySegment init(int destinationPort, int initiateTag) {
        ByteBuffer packet = ByteBuffer.allocate(32);
        packet.putShort((short) 40000).putShort((short) destinationPort).putInt(0).putInt(0); // tag 0, CRC later
        packet.put(INIT).put((byte) 0).putShort((short) 20).putInt(initiateTag).putInt(65536)
                .putShort((short) 8).putShort((short) 8).putInt(1);
        CRC32C crc = new CRC32C();
        crc.update(packet.array(), 0, 32);
        packet.order(ByteOrder.LITTLE_ENDIAN).putInt(8, (int) crc.getValue()); // RFC 9260 Appendix A byte order
        MemorySegment segment = Arena.ofAuto().allocate(32);
        MemorySegment.copy(MemorySegment.ofArray(packet.array()), 0, segment, 0, 32);
        return segment;
    }

    /** The INIT ACKs among {@code packets}, by the verification tag they carry (the INIT's initiate tag). */
    private static List<Integer> initAcks(List<byte[]> packets) {
        return packets.stream().filter(p -> p.length > 12 && p[12] == INIT_ACK)
                .map(p -> ByteBuffer.wrap(p).getInt(4)).toList();
    }

    @Test
    void aListenerBoundToAnAddressHearsOnlyThatAddress() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(loopback, 0), 8,
                DdpSctp.ADAPTATION_INDICATION)) {
            Recorder recorder = new Recorder(true);
            Links.Link link = Links.udpLink(new InetSocketAddress("127.9.9.1", 9), recorder);
            int port = listening.address().getPort();

            Links.input(link, init(port, 0x11111111), 32, InetAddress.getByName("127.0.0.2"));
            Links.input(link, init(port, 0x22222222), 32, null); // a wildcard socket: the address is unknown
            Links.input(link, init(port, 0x33333333), 32, loopback);

            assertThat(initAcks(recorder.sent)).containsExactly(0x33333333);
        }
    }

    @Test
    void aWildcardListenerHearsEveryAddressOfItsKindOnly() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(InetAddress.getByAddress(
                new byte[4]), 0), 8, DdpSctp.ADAPTATION_INDICATION)) {
            Recorder udp = new Recorder(true);
            Recorder ip = new Recorder(false);
            int port = listening.address().getPort();

            Links.input(Links.udpLink(new InetSocketAddress("127.9.9.2", 9), udp), init(port, 0x44444444), 32,
                    null);
            Links.input(Links.ipLink(InetAddress.getByName("127.9.9.3"), ip), init(port, 0x55555555), 32,
                    InetAddress.getByName("127.0.0.1"));

            assertThat(initAcks(udp.sent)).containsExactly(0x44444444);
            assertThat(ip.sent).as("SCTP over IP does not reach an SCTP-over-UDP listener").isEmpty();
        }
    }

    @Test
    void aPacketWithABadChecksumIsDropped() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0), 8, DdpSctp.ADAPTATION_INDICATION)) {
            Recorder recorder = new Recorder(true);
            Links.Link link = Links.udpLink(new InetSocketAddress("127.9.9.4", 9), recorder);
            MemorySegment corrupt = init(listening.address().getPort(), 0x66666666);
            corrupt.set(ValueLayout.JAVA_BYTE, 31, (byte) 2);

            long dropped = Counters.process().get(Counter.SCTP_BAD_CHECKSUMS);
            Links.input(link, corrupt, 32, InetAddress.getLoopbackAddress());
            assertThat(Counters.process().get(Counter.SCTP_BAD_CHECKSUMS) - dropped).as("dropped and counted")
                    .isEqualTo(1);
            Links.input(link, init(listening.address().getPort(), 0x77777777), 32, InetAddress.getLoopbackAddress());

            assertThat(initAcks(recorder.sent)).containsExactly(0x77777777);
        }
    }

    /** usrsctp leaves the checksum to this side (offloaded): every packet leaves with the right one. */
    @Test
    void packetsLeaveWithTheirChecksum() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0), 8, DdpSctp.ADAPTATION_INDICATION)) {
            Recorder recorder = new Recorder(true);
            Links.Link link = Links.udpLink(new InetSocketAddress("127.9.9.5", 9), recorder);
            Links.input(link, init(listening.address().getPort(), 0x78787878), 32, InetAddress.getLoopbackAddress());

            assertThat(recorder.sent).isNotEmpty();
            for (byte[] packet : recorder.sent) {
                ByteBuffer octets = ByteBuffer.wrap(packet.clone()).order(ByteOrder.LITTLE_ENDIAN);
                int carried = octets.getInt(8);
                octets.putInt(8, 0);
                CRC32C crc = new CRC32C();
                crc.update(octets.array());
                assertThat(carried).as("RFC 9260 Appendix A").isNotZero().isEqualTo((int) crc.getValue());
            }
        }
    }

    @Test
    void theLinksOfAClosedEndpointAreGivenBackAndTheirIndicesServeNewPeers() throws Exception {
        UsrsctpStack.udp();
        Recorder closing = new Recorder(true);
        List<Links.Link> links = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Links.Link link = Links.udpLink(new InetSocketAddress("127.9.10.1", 1000 + i), closing);
            links.add(link);
        }
        int before = Links.inUse();
        Links.forget(closing);
        assertThat(Links.inUse()).isEqualTo(before - 50);
        assertThat(links).allMatch(link -> link.freed);

        int registered = Links.registered();
        Recorder next = new Recorder(true);
        for (int i = 0; i < 50; i++) {
            Links.Link link = Links.udpLink(new InetSocketAddress("127.9.10.2", 1000 + i), next);
            assertThat(Links.link(link.handle.address())).isSameAs(link);
        }
        assertThat(Links.registered()).as("new peers take given-back indices").isEqualTo(registered);
        Links.forget(next);
    }

    /**
     * A stranger sending from more ports than there are link indices takes no index a socket holds: the quietest
     * unheld link is given back for each new one, and a held link stays.
     */
    @Test
    void packetsFromMorePortsThanThereAreLinksTakeNoLinkASocketHolds() throws Exception {
        SctpStack stack = UsrsctpStack.udp();
        try (SctpStack.Listening listening = stack.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0), 8, DdpSctp.ADAPTATION_INDICATION)) {
            Recorder stranger = new Recorder(true);
            Links.Link held = Links.udpLink(new InetSocketAddress("127.9.11.1", 1), stranger);
            Links.hold(held);
            int port = listening.address().getPort();
            for (int i = 0; i < 5000; i++) {
                Links.Link link = Links.udpLink(new InetSocketAddress("127.9.11.2", 1 + i), stranger);
                Links.input(link, init(port, 0x1000 + i), 32, InetAddress.getLoopbackAddress());
            }
            assertThat(initAcks(stranger.sent)).as("every INIT was answered").hasSize(5000);
            assertThat(held.freed).isFalse();
            assertThat(Links.link(held.handle.address())).isSameAs(held);
            assertThat(Links.inUse()).isLessThan(4096);
            Links.release(held);
            Links.forget(stranger);
        }
    }

    /** usrsctp's clock is driven by the loops that own endpoints: it advances with no thread of its own. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 20, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void usrsctpsClockAdvancesOnTheLoopsWithNoThreadOfItsOwn() throws Exception {
        try (Recorder recorder = new Recorder(true)) {
            java.util.concurrent.CompletableFuture<Long> seen = new java.util.concurrent.CompletableFuture<>();
            long before = UsrsctpRuntime.ticks();
            Recorder.LOOP.execute(() -> Recorder.LOOP.schedule(System.nanoTime()
                    + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5 * UsrsctpRuntime.TICK_MILLIS),
                    () -> seen.complete(UsrsctpRuntime.ticks())));
            assertThat(seen.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("ticks after five tick intervals")
                    .isGreaterThan(before);
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                    .doesNotContain("usrsctp-timers");
        }
    }
}
