package org.rddp.transport.sctp;

/**
 * The packet an SCTP stack is filling while it bundles a burst: DATA chunks join it in the order they are handed
 * over, each whole (RFC 5043 §9), while they fit; one that does not starts the next packet (RFC 9260 §6.10, and
 * usrsctp and Linux bundle so). Knowing what is left of it lets the engine cut a long message so that its first
 * segment fills the packet behind the previous message's last one ({@link org.rddp.llp.LlpStream#packetRoom}): 64 KiB
 * RDMA Writes over a 64 KiB path then take one packet each, not a full one and an almost empty one. A model only:
 * if the stack cuts its packets elsewhere (a SACK bundled in, a congestion window that holds chunks back), a segment
 * just goes in the next packet, as it would without it. Owner thread.
 */
final class PacketFill {
    /** A DATA chunk's header (RFC 9260 §3.3.1). */
    static final int CHUNK_HEADER = 16;

    /** Octets of chunks, headers and padding included, that one packet holds. */
    private int capacity;
    /** Octets of the packet being filled taken so far; 0: the next chunk starts a packet. */
    private int used;

    /** @param maxChunk the largest chunk payload that fits a packet alone */
    PacketFill(int maxChunk) {
        this.capacity = CHUNK_HEADER + maxChunk;
    }

    /** The path's MTU changed: the largest chunk payload that fits a packet alone is now {@code maxChunk}. */
    void resize(int maxChunk) {
        capacity = CHUNK_HEADER + maxChunk;
        used = 0;
    }

    /** A chunk of {@code length} octets went to the stack, bundled with what came before it since the last flush. */
    void add(int length) {
        int size = CHUNK_HEADER + (length + 3 & ~3);
        used = used > 0 && used + size <= capacity ? used + size : size;
    }

    /** The stack sent everything it held: the next chunk starts a packet. */
    void flushed() {
        used = 0;
    }

    /** The largest chunk payload that still joins the packet being filled, or the largest of all to start one. */
    int room() {
        if (used == 0) {
            return capacity - CHUNK_HEADER;
        }
        return Math.max(0, capacity - used - CHUNK_HEADER);
    }
}
