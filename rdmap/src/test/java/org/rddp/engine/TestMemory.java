package org.rddp.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import org.rddp.llp.PlacementTarget;

/**
 * The memory one engine sees through STags, for tests: regions and windows whose TO starts at 0, checked as the verbs
 * layer checks them (RFC 5042 §5: unsigned bounds, TO wrap, access rights, the stream an STag belongs to), with
 * windows the only memory a Send with Invalidate or a local invalidate can revoke. Owner thread.
 */
final class TestMemory implements StagResolver {
    /** One STag's memory. */
    static final class Tagged {
        final int stag;
        final MemorySegment memory;
        final int access;
        /** Of another protection domain or stream: {@link StagResolver#NOT_ASSOCIATED}. */
        final boolean foreign;
        /** A memory window: invalidatable, for the peer only, never placed into ahead of its turn. */
        final boolean window;
        boolean valid = true;

        Tagged(int stag, MemorySegment memory, int access, boolean foreign, boolean window) {
            this.stag = stag;
            this.memory = memory;
            this.access = access;
            this.foreign = foreign;
            this.window = window;
        }

        /** The STag, as the tests name it. */
        int stag() {
            return stag;
        }

        /** The memory behind it. */
        MemorySegment memory() {
            return memory;
        }
    }

    private final Map<Integer, Tagged> tags = new HashMap<>();
    private int next;

    /** STags {@code prefix + 0x100}, {@code prefix + 0x200}, ... in the order things are registered. */
    TestMemory(int prefix) {
        next = prefix;
    }

    /** A region of {@code size} zeroed octets with {@code access} (local read always). */
    Tagged region(long size, int access) {
        return region(Arena.ofAuto().allocate(Math.max(1, size), 8), access);
    }

    /** A region over {@code memory} with {@code access} (local read always). */
    Tagged region(MemorySegment memory, int access) {
        return add(memory, access | LOCAL_READ, false, false);
    }

    /** A region of another protection domain, with every right. */
    Tagged foreign(MemorySegment memory) {
        return add(memory, LOCAL_READ | LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE, true, false);
    }

    /** A window over {@code memory} for the peer, with remote {@code access}. */
    Tagged window(MemorySegment memory, int access) {
        return add(memory, access, false, true);
    }

    private Tagged add(MemorySegment memory, int access, boolean foreign, boolean window) {
        next += 0x100;
        Tagged tagged = new Tagged(next, memory, access, foreign, window);
        tags.put(tagged.stag, tagged);
        return tagged;
    }

    @Override
    public int resolve(int stag, long to, long length, int access, PlacementTarget target) {
        Tagged tagged = tags.get(stag);
        if (tagged == null || !tagged.valid) {
            return INVALID_STAG;
        }
        if (tagged.foreign) {
            return NOT_ASSOCIATED;
        }
        if (tagged.window) {
            if ((access & (LOCAL_READ | LOCAL_WRITE)) != 0) {
                return ACCESS_RIGHTS;
            }
            if ((access & BEFORE_ITS_TURN) != 0) {
                return CANNOT_INVALIDATE; // a Send with Invalidate ahead of the Write may revoke it: not early
            }
        }
        int wanted = access & ~BEFORE_ITS_TURN;
        if ((tagged.access & wanted) != wanted) {
            return ACCESS_RIGHTS;
        }
        if (length != 0 && Long.compareUnsigned(to + length - 1, to) < 0) {
            return TO_WRAP;
        }
        long extent = tagged.memory.byteSize();
        if (Long.compareUnsigned(to, extent) > 0 || Long.compareUnsigned(length, extent - to) > 0) {
            return BASE_OR_BOUNDS;
        }
        target.set(tagged.memory, to);
        return OK;
    }

    @Override
    public int invalidate(int stag, boolean remote) {
        Tagged tagged = tags.get(stag);
        if (tagged == null || !tagged.valid) {
            return INVALID_STAG;
        }
        if (tagged.foreign) {
            return NOT_ASSOCIATED;
        }
        if (!tagged.window) {
            return CANNOT_INVALIDATE;
        }
        tagged.valid = false;
        return OK;
    }
}
