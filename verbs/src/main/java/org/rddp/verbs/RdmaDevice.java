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
    private final String name;
    private final DeviceAttributes attributes;
    private final AtomicReferenceArray<TaggedMemory> stags;
    private final BitSet claimed = new BitSet(); // index 0 stays claimed: STag 0 is special to some RNICs
    private final SecureRandom random = new SecureRandom();
    private final AtomicInteger queuePairNumbers = new AtomicInteger(1);
    private int taken;

    /** A device named {@code name} with the given limits. */
    public RdmaDevice(String name, DeviceAttributes attributes) {
        this.name = name;
        this.attributes = attributes;
        this.stags = new AtomicReferenceArray<>(attributes.maxTaggedObjects() + 1);
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
        int index = claimed.nextClearBit(1 + random.nextInt(stags.length() - 1));
        if (index >= stags.length()) {
            index = claimed.nextClearBit(1);
        }
        claimed.set(index);
        taken++;
        return index;
    }

    void install(TaggedMemory memory) {
        stags.set(memory.index, memory);
    }

    synchronized void release(TaggedMemory memory) {
        if (stags.compareAndSet(memory.index, memory, null)) {
            claimed.clear(memory.index);
            taken--;
        }
    }

    /** The object an STag names if the STag is current (index and key) and valid, else {@code null}. */
    TaggedMemory lookup(int stag) {
        int index = stag >>> 8;
        if (index == 0 || index >= stags.length()) {
            return null;
        }
        TaggedMemory memory = stags.get(index);
        return memory != null && memory.stag == stag && memory.valid ? memory : null;
    }

    /** The object at an STag's index, valid or not, if its key matches. */
    TaggedMemory lookupAny(int stag) {
        int index = stag >>> 8;
        if (index == 0 || index >= stags.length()) {
            return null;
        }
        TaggedMemory memory = stags.get(index);
        return memory != null && memory.stag == stag ? memory : null;
    }

    @Override
    public String toString() {
        return "RdmaDevice[" + name + "]";
    }
}
