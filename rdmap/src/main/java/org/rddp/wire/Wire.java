package org.rddp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on memory segments, at any alignment. */
public final class Wire {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    /**
     * Copies shorter than this go field by field ({@link #copy}); longer ones through {@link MemorySegment#copy}, whose
     * own path below 64 octets (the JDK's default) loops over checked accesses: 7-16 ns for a 14-octet DDP header
     * where this takes 5-9.
     */
    private static final int SMALL_COPY = 64;

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

    /**
     * Copies {@code length} octets as {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)} does,
     * checks and overlapping ranges included, faster for the short copies of headers and small payloads: below
     * {@value #SMALL_COPY} octets every octet is loaded before any is stored, in at most eight loads that may overlap
     * one another, so overlapping ranges copy as if through a buffer; and the farthest store goes first, so a range
     * past the end of its segment stores nothing. Small enough to inline: each size class is a method of its own.
     *
     * @throws IndexOutOfBoundsException if either range falls outside its segment (nothing is copied then)
     */
    public static void copy(MemorySegment source, long sourceOffset, MemorySegment destination,
            long destinationOffset, int length) {
        if (length >= SMALL_COPY || length <= 0) {
            MemorySegment.copy(source, sourceOffset, destination, destinationOffset, length);
        } else if (length >= 32) {
            copy32(source, sourceOffset, destination, destinationOffset, length);
        } else if (length >= 16) {
            copy16(source, sourceOffset, destination, destinationOffset, length);
        } else {
            copyUnder16(source, sourceOffset, destination, destinationOffset, length);
        }
    }

    /** 32 to 63 octets: the first 32 and the last 32. */
    private static void copy32(MemorySegment source, long s, MemorySegment destination, long d, int length) {
        long tail = length - 32;
        long a = source.get(LONG, s);
        long b = source.get(LONG, s + 8);
        long c = source.get(LONG, s + 16);
        long e = source.get(LONG, s + 24);
        long f = source.get(LONG, s + tail);
        long g = source.get(LONG, s + tail + 8);
        long h = source.get(LONG, s + tail + 16);
        long i = source.get(LONG, s + tail + 24);
        destination.set(LONG, d + tail + 24, i);
        destination.set(LONG, d, a);
        destination.set(LONG, d + 8, b);
        destination.set(LONG, d + 16, c);
        destination.set(LONG, d + 24, e);
        destination.set(LONG, d + tail, f);
        destination.set(LONG, d + tail + 8, g);
        destination.set(LONG, d + tail + 16, h);
    }

    /** 16 to 31 octets: the first 16 and the last 16. */
    private static void copy16(MemorySegment source, long s, MemorySegment destination, long d, int length) {
        long tail = length - 16;
        long a = source.get(LONG, s);
        long b = source.get(LONG, s + 8);
        long c = source.get(LONG, s + tail);
        long e = source.get(LONG, s + tail + 8);
        destination.set(LONG, d + tail + 8, e);
        destination.set(LONG, d, a);
        destination.set(LONG, d + 8, b);
        destination.set(LONG, d + tail, c);
    }

    /** 1 to 15 octets: the first and the last eight, four or two, or the one. */
    private static void copyUnder16(MemorySegment source, long s, MemorySegment destination, long d, int length) {
        if (length >= 8) {
            long a = source.get(LONG, s);
            long b = source.get(LONG, s + length - 8);
            destination.set(LONG, d + length - 8, b);
            destination.set(LONG, d, a);
        } else if (length >= 4) {
            int a = source.get(INT, s);
            int b = source.get(INT, s + length - 4);
            destination.set(INT, d + length - 4, b);
            destination.set(INT, d, a);
        } else if (length >= 2) {
            short a = source.get(SHORT, s);
            short b = source.get(SHORT, s + length - 2);
            destination.set(SHORT, d + length - 2, b);
            destination.set(SHORT, d, a);
        } else {
            destination.set(ValueLayout.JAVA_BYTE, d, source.get(ValueLayout.JAVA_BYTE, s));
        }
    }
}
