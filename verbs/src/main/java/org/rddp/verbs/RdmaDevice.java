package org.rddp.verbs;

import java.security.SecureRandom;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A software RDMA device ({@code ibv_context}): the STag table and the limits every object checks against.
 * Thread-safe.
 */
public final class RdmaDevice {
    private static final int PAGE_BITS = 12;
    private static final int PAGE = 1 << PAGE_BITS;
    private final String name;
    private final DeviceAttributes attributes;
    /**
     * The STag table by index, in pages made when an index in them is first claimed: indexes are taken at random
     * from the whole space, and a device with a few regions costs a few pages, not the table of its limit.
     */
    private final AtomicReferenceArray<AtomicReferenceArray<TaggedMemory>> pages;
    /** Indexes {@code 1..indexes - 1} name objects. */
    private final int indexes;
    private final BitSet claimed = new BitSet(); // index 0 stays claimed: STag 0 is special to some RNICs
    private final SecureRandom random = new SecureRandom();
    private final AtomicInteger queuePairNumbers = new AtomicInteger(1);
    private int taken;

    /** A device named {@code name} with the given limits. */
    public RdmaDevice(String name, DeviceAttributes attributes) {
        this.name = name;
        this.attributes = attributes;
        this.indexes = attributes.maxTaggedObjects() + 1;
        this.pages = new AtomicReferenceArray<>((indexes + PAGE - 1) / PAGE);
        claimed.set(0);
    }

    /** A device with {@link DeviceAttributes#defaults()}. */
    public RdmaDevice(String name) {
        this(name, DeviceAttributes.defaults());
    }

    /** The device's name. */
    public String name() {
        return name;
    }

    /** The device's limits. */
    public DeviceAttributes attributes() {
        return attributes;
    }

    /** A new protection domain ({@code ibv_alloc_pd}). */
    public ProtectionDomain allocateProtectionDomain() {
        return new ProtectionDomain(this);
    }

    /** A new completion queue with room for {@code capacity} completions ({@code ibv_create_cq}). */
    public CompletionQueue createCompletionQueue(int capacity) {
        if (capacity < 1 || capacity > attributes.maxCqEntries()) {
            throw new IllegalArgumentException("CQ capacity " + capacity + " outside 1.." + attributes.maxCqEntries());
        }
        return new CompletionQueue(capacity);
    }

    int nextQueuePairNumber() {
        return queuePairNumbers.getAndIncrement();
    }

    /**
     * A random 8-bit key other than {@code previous} (-1: none). With {@link #claimIndex()} it makes STags hard to
     * guess (RFC 5042 §5.1): a peer that learns one STag cannot derive another.
     */
    synchronized int nextKey(int previous) {
        int key;
        do {
            key = random.nextInt(256);
        } while (key == previous);
        return key;
    }

    /** A free STag index taken at random: the first free one from a random place on. */
    synchronized int claimIndex() {
        if (taken >= attributes.maxTaggedObjects()) {
            throw new IllegalStateException("device " + name + " has no free STag: "
                    + attributes.maxTaggedObjects() + " regions and windows exist");
        }
        int index = claimed.nextClearBit(1 + random.nextInt(indexes - 1));
        if (index >= indexes) {
            index = claimed.nextClearBit(1);
        }
        claimed.set(index);
        taken++;
        if (pages.get(index >>> PAGE_BITS) == null) {
            pages.set(index >>> PAGE_BITS, new AtomicReferenceArray<>(PAGE));
        }
        return index;
    }

    void install(TaggedMemory memory) {
        pages.get(memory.index >>> PAGE_BITS).set(memory.index & (PAGE - 1), memory);
    }

    synchronized void release(TaggedMemory memory) {
        if (pages.get(memory.index >>> PAGE_BITS).compareAndSet(memory.index & (PAGE - 1), memory, null)) {
            claimed.clear(memory.index);
            taken--;
        }
    }

    /** The object an STag names if the STag is current (index and key) and valid, else {@code null}. */
    TaggedMemory lookup(int stag) {
        TaggedMemory memory = at(stag >>> 8);
        return memory != null && memory.stag == stag && memory.valid ? memory : null;
    }

    /** The object at an STag's index, valid or not, if its key matches. */
    TaggedMemory lookupAny(int stag) {
        TaggedMemory memory = at(stag >>> 8);
        return memory != null && memory.stag == stag ? memory : null;
    }

    private TaggedMemory at(int index) {
        if (index == 0 || index >= indexes) {
            return null;
        }
        AtomicReferenceArray<TaggedMemory> page = pages.get(index >>> PAGE_BITS);
        return page == null ? null : page.get(index & (PAGE - 1));
    }

    @Override
    public String toString() {
        return "RdmaDevice[" + name + "]";
    }
}
