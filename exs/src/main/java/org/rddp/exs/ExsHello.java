package org.rddp.exs;

import java.lang.foreign.MemorySegment;
import org.rddp.wire.PrivateData;

/**
 * What each side says about itself in the connection's private data (the MPA Request/Reply or the RFC 5043
 * Session Initiate/Accept): the protocol version, how many advertisements it can hold, and how many octets of
 * immediate data one may carry to it. Both sides then use the smaller number of slots; a sender attaches immediate
 * data up to the smaller of its own {@code small_packet_max_size} and the peer's limit.
 *
 * @param slots     advertisements this side can hold at once, 1 to {@value #MAX_SLOTS}
 * @param immediate octets of immediate data one advertisement may carry to this side, 0 to
 *                  {@value #MAX_IMMEDIATE}
 */
record ExsHello(int slots, int immediate) {
    /** Octets of a hello. */
    static final int LENGTH = 12;
    /** Most advertisements a side may hold. */
    static final int MAX_SLOTS = 1024;
    /** Most immediate octets one advertisement may carry. */
    static final int MAX_IMMEDIATE = 65_536;
    private static final int MAGIC = ('E' << 16) | ('X' << 8) | 'S';

    /** Validates. */
    ExsHello {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("1 to " + MAX_SLOTS + " slots, not " + slots);
        }
        if (immediate < 0 || immediate > MAX_IMMEDIATE) {
            throw new IllegalArgumentException("0 to " + MAX_IMMEDIATE + " immediate octets, not " + immediate);
        }
    }

    /** As private data. */
    PrivateData encode() {
        byte[] octets = new byte[LENGTH];
        MemorySegment into = MemorySegment.ofArray(octets);
        into.set(NetworkOrder.INT, 0, (MAGIC << 8) | ExsMessage.VERSION);
        into.set(NetworkOrder.SHORT, 4, (short) slots);
        into.set(NetworkOrder.INT, 8, immediate);
        return PrivateData.of(octets);
    }

    /**
     * The peer's hello.
     *
     * @throws ExsProtocolException when the private data is not an EXS hello of this version, or its numbers are
     *                              out of range
     */
    static ExsHello decode(PrivateData data) throws ExsProtocolException {
        if (data.length() != LENGTH) {
            throw new ExsProtocolException("the peer's private data is " + data.length() + " octets, not an EXS "
                    + "hello (" + LENGTH + ")");
        }
        MemorySegment from = MemorySegment.ofArray(data.toByteArray());
        int first = from.get(NetworkOrder.INT, 0);
        if (first >>> 8 != MAGIC) {
            throw new ExsProtocolException("the peer's private data is not an EXS hello: it starts 0x"
                    + Integer.toHexString(first));
        }
        int version = first & 0xFF;
        if (version != ExsMessage.VERSION) {
            throw new ExsProtocolException("the peer speaks EXS version " + version + ", this side "
                    + ExsMessage.VERSION);
        }
        int slots = from.get(NetworkOrder.SHORT, 4) & 0xFFFF;
        long immediate = from.get(NetworkOrder.INT, 8) & 0xFFFF_FFFFL;
        if (slots < 1 || slots > MAX_SLOTS || immediate > MAX_IMMEDIATE) {
            throw new ExsProtocolException("the peer's hello offers " + slots + " slots and " + immediate
                    + " immediate octets; 1 to " + MAX_SLOTS + " and at most " + MAX_IMMEDIATE + " are allowed");
        }
        return new ExsHello(slots, (int) immediate);
    }
}
