package org.rddp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on memory segments, at any alignment. */
public final class Wire {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Wire() {
    }

    /** The octet at {@code offset}, 0..255. */
    public static int u8(MemorySegment segment, long offset) {
        return segment.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }

    /** The big-endian 16-bit field at {@code offset}, 0..65535. */
    public static int u16(MemorySegment segment, long offset) {
        return segment.get(U16, offset) & 0xFFFF;
    }

    /** The big-endian 32-bit field at {@code offset}; unsigned, held in an {@code int}. */
    public static int u32(MemorySegment segment, long offset) {
        return segment.get(U32, offset);
    }

    /** The big-endian 64-bit field at {@code offset}; unsigned, held in a {@code long}. */
    public static long u64(MemorySegment segment, long offset) {
        return segment.get(U64, offset);
    }

    /** Writes the low 8 bits of {@code value}. */
    public static void putU8(MemorySegment segment, long offset, int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
    }

    /** Writes the low 16 bits of {@code value}, big-endian. */
    public static void putU16(MemorySegment segment, long offset, int value) {
        segment.set(U16, offset, (short) value);
    }

    /** Writes {@code value} big-endian. */
    public static void putU32(MemorySegment segment, long offset, int value) {
        segment.set(U32, offset, value);
    }

    /** Writes {@code value} big-endian. */
    public static void putU64(MemorySegment segment, long offset, long value) {
        segment.set(U64, offset, value);
    }

    /** Throws {@link IndexOutOfBoundsException} unless {@code [offset, offset + length)} is inside {@code segment}. */
    public static void checkRange(MemorySegment segment, long offset, long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", +" + length + ") outside a segment of "
                    + segment.byteSize() + " octets");
        }
    }
}
