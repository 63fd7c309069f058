package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * STags are hard to guess (RFC 5042 §5.1, issue 16 item 8): indexes and keys are random, so two processes do not
 * hand out the same STags and one STag says nothing of the next; the table still fills to its limit and frees.
 */
class StagTest {
    private static final int COUNT = 1000;

    private static List<Integer> stags(RdmaDevice device, int count) {
        ProtectionDomain pd = device.allocateProtectionDomain();
        List<Integer> stags = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            stags.add(pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.REMOTE_WRITE, Access.LOCAL_WRITE))
                    .rkey());
        }
        return stags;
    }

    @Test
    void twoDevicesDoNotHandOutTheSameStags() {
        List<Integer> first = stags(new RdmaDevice("one"), COUNT);
        List<Integer> second = stags(new RdmaDevice("two"), COUNT);
        assertThat(new HashSet<>(first)).as("distinct on one device").hasSize(COUNT);
        Set<Integer> common = new HashSet<>(first);
        common.retainAll(second);
        assertThat(common.size()).as("a few in common at most, by chance").isLessThan(COUNT / 10);
        assertThat(first).doesNotContain(0x100, 0x200).noneMatch(stag -> stag >>> 8 == 0);
    }

    @Test
    void oneStagDoesNotGiveAwayTheNext() {
        List<Integer> stags = stags(new RdmaDevice("guess"), COUNT);
        int nextIndex = 0;
        int nextKey = 0;
        Set<Integer> keys = new HashSet<>();
        for (int i = 1; i < stags.size(); i++) {
            int previous = stags.get(i - 1);
            int stag = stags.get(i);
            nextIndex += stag >>> 8 == (previous >>> 8) + 1 ? 1 : 0;
            nextKey += (stag & 0xFF) == ((previous + 1) & 0xFF) ? 1 : 0;
            keys.add(stag & 0xFF);
        }
        assertThat(nextIndex).as("indexes handed out one after another").isLessThan(COUNT / 10);
        assertThat(nextKey).as("keys counting up").isLessThan(COUNT / 10);
        assertThat(keys).as("keys spread over the 8 bits").hasSizeGreaterThan(200);
    }

    @Test
    void theTableStillFillsToItsLimitAndFrees() {
        RdmaDevice device = new RdmaDevice("small", new DeviceAttributes(16, 64, 4, 64, 8, 4, 4));
        ProtectionDomain pd = device.allocateProtectionDomain();
        List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            regions.add(pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.LOCAL_WRITE)));
        }
        assertThat(regions.stream().map(region -> region.lkey() >>> 8).distinct()).as("every index 1..8 once")
                .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8);
        assertThatThrownBy(() -> pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.LOCAL_WRITE)))
                .hasMessageContaining("no free STag");
        int freed = regions.get(3).lkey() >>> 8;
        regions.get(3).deregister();
        assertThat(pd.register(Arena.ofAuto().allocate(64), EnumSet.of(Access.LOCAL_WRITE)).lkey() >>> 8)
                .isEqualTo(freed);
    }
}
