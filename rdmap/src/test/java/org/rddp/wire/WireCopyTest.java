package org.rddp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** {@link Wire#copy} does what {@link MemorySegment#copy} does, at every length either side of its small path. */
class WireCopyTest {
    private static final int SIZE = 256;

    @Property
    void copiesAsTheJdkDoes(@ForAll @IntRange(min = 0, max = 130) int length,
            @ForAll @IntRange(min = 0, max = 120) int from, @ForAll @IntRange(min = 0, max = 120) int to,
            @ForAll boolean heapSource) {
        MemorySegment source = heapSource ? MemorySegment.ofArray(pattern(SIZE)) : Arena.ofAuto().allocate(SIZE);
        if (!heapSource) {
            MemorySegment.copy(MemorySegment.ofArray(pattern(SIZE)), 0, source, 0, SIZE);
        }
        MemorySegment expected = Arena.ofAuto().allocate(SIZE);
        MemorySegment actual = Arena.ofAuto().allocate(SIZE);
        MemorySegment.copy(source, from, expected, to, length);
        Wire.copy(source, from, actual, to, length);
        assertThat(actual.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Property
    void overlappingRangesCopyAsThroughABuffer(@ForAll @IntRange(min = 0, max = 100) int length,
            @ForAll @IntRange(min = 0, max = 120) int from, @ForAll @IntRange(min = 0, max = 120) int to) {
        MemorySegment expected = MemorySegment.ofArray(pattern(SIZE));
        MemorySegment actual = MemorySegment.ofArray(pattern(SIZE));
        MemorySegment.copy(expected, from, expected, to, length);
        Wire.copy(actual, from, actual, to, length);
        assertThat(actual.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void aCopyPastTheEndOfEitherSegmentCopiesNothing() {
        for (int length : new int[] {1, 3, 7, 14, 18, 31, 40, 63, 64, 100}) {
            MemorySegment source = MemorySegment.ofArray(pattern(SIZE));
            MemorySegment destination = MemorySegment.ofArray(new byte[SIZE]);
            assertThatThrownBy(() -> Wire.copy(source, 0, destination, SIZE - length + 1, length))
                    .as("%d octets into the last %d", length, length - 1)
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Wire.copy(source, SIZE - length + 1, destination, 0, length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Wire.copy(source, -1, destination, 0, length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(destination.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
        }
        assertThatThrownBy(() -> Wire.copy(MemorySegment.ofArray(new byte[4]), 5, MemorySegment.ofArray(new byte[4]),
                0, 0)).as("an empty copy's offsets are checked too").isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void memoryFreedUnderACopyFailsBeforeAnyOctetMoves() {
        Arena arena = Arena.ofShared();
        MemorySegment gone = arena.allocate(64);
        arena.close();
        MemorySegment destination = MemorySegment.ofArray(new byte[64]);
        assertThatThrownBy(() -> Wire.copy(gone, 0, destination, 0, 14)).isInstanceOf(IllegalStateException.class);
        assertThat(destination.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    private static byte[] pattern(int size) {
        byte[] octets = new byte[size];
        for (int i = 0; i < size; i++) {
            octets[i] = (byte) (i * 7 + 1);
        }
        return octets;
    }
}
