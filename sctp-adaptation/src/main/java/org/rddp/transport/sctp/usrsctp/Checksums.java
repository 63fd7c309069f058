package org.rddp.transport.sctp.usrsctp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The CRC32c of SCTP packets (RFC 9260 §6.8 and Appendix A), computed here rather than by usrsctp: usrsctp is told
 * the checksum is offloaded ({@code usrsctp_enable_crc32c_offload}), so it leaves the field zero on what it sends
 * and trusts what it is given. {@link java.util.zip.CRC32C} is the JDK's intrinsic, many times faster than the
 * plain C of Debian's libusrsctp. Any thread (usrsctp sends from whichever thread drives it).
 */
final class Checksums {
    /** Where the checksum lies in the SCTP common header. */
    static final int OFFSET = 8;
    /** The smallest SCTP packet: its common header. */
    static final int COMMON_HEADER = 12;
    private static final ValueLayout.OfInt FIELD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] ZERO = new byte[4];
    private static final ThreadLocal<CRC32C> CRC = ThreadLocal.withInitial(CRC32C::new);

    private Checksums() {
    }

    /** The CRC32c of the first {@code length} octets of {@code packet}, its checksum field taken as zero. */
    static int compute(MemorySegment packet, int length) {
        CRC32C crc = CRC.get();
        crc.reset();
        crc.update(packet.asSlice(0, OFFSET).asByteBuffer());
        crc.update(ZERO, 0, ZERO.length);
        crc.update(packet.asSlice(COMMON_HEADER, length - COMMON_HEADER).asByteBuffer());
        return (int) crc.getValue();
    }

    /** Writes the checksum of a packet about to be sent into its common header (byte order of Appendix A). */
    static void put(MemorySegment packet, int length) {
        packet.set(FIELD, OFFSET, compute(packet, length));
    }

    /** Whether a received packet of at least {@value #COMMON_HEADER} octets carries its checksum. */
    static boolean valid(MemorySegment packet, int length) {
        return packet.get(FIELD, OFFSET) == compute(packet, length);
    }
}
