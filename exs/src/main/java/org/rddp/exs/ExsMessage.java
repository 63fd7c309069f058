package org.rddp.exs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A message of the EXS protocol, carried in one RDMA Send (the layouts are drawn in the package documentation):
 * an {@link Advertisement} of a block to be read, an {@link Acknowledgement} that it was (or, for a persistent
 * block, a notification that it was read again), or a {@link Rearm} asking for the next such notification. Octets
 * are in network order; reserved fields are sent as zero and ignored on receipt.
 */
sealed interface ExsMessage permits ExsMessage.Advertisement, ExsMessage.Acknowledgement, ExsMessage.Rearm {
    /** The protocol version this implementation speaks, in every message and in the connection's hello. */
    int VERSION = 2;
    /** Type of an advertisement. */
    int ADVERTISEMENT = 1;
    /** Type of an acknowledgement. */
    int ACKNOWLEDGEMENT = 2;
    /** Type of a rearm. */
    int REARM = 3;
    /** Octets of an advertisement's header; immediate data follows it. */
    int ADVERTISEMENT_LENGTH = 32;
    /** Octets of an acknowledgement, and of a rearm. */
    int ACKNOWLEDGEMENT_LENGTH = 16;

    /** The advertisement's I bit: the data follows the header instead of being read. */
    int IMMEDIATE = 0x0001;
    /** The advertisement's P bit: the block stays advertised and serves every receive from now on. */
    int PERSISTENT = 0x0002;
    /** The advertisement's N bit (with P): the sender wants to hear each time the block is read. */
    int NOTIFY = 0x0004;
    /** The acknowledgement's R bit: a persistent block was read; it stays advertised. */
    int READ = 0x0001;

    /** Writes the message at {@code offset} of {@code into}; returns the octets written (header only). */
    int encode(MemorySegment into, long offset);

    /**
     * An offer of {@code length} octets: to be read at {@code stag}/{@code taggedOffset}, or, with the
     * {@link #IMMEDIATE} flag, following the header.
     *
     * @param flags        {@link #IMMEDIATE}, or {@link #PERSISTENT} with or without {@link #NOTIFY}, or 0 (other
     *                     bits are reserved)
     * @param sequence     the sender's number for it, one more than the last one's
     * @param length       octets offered
     * @param stag         where the receiver reads them (0 when immediate)
     * @param taggedOffset the first octet's tagged offset (0 when immediate)
     * @param placement    where the octets go in the receiver's persistent receive ({@code exs_send_offset}); 0
     *                     otherwise
     */
    record Advertisement(int flags, int sequence, int length, int stag, long taggedOffset, long placement)
            implements ExsMessage {
        /** Validates. */
        public Advertisement {
            if (length < 0 || placement < 0) {
                throw new IllegalArgumentException("an advertisement offers 0 to 2^31-1 octets at a placement of 0 "
                        + "to 2^63-1, not " + length + " at " + placement);
            }
        }

        /** Whether the data follows the header. */
        public boolean immediate() {
            return (flags & IMMEDIATE) != 0;
        }

        /** Whether the block stays advertised. */
        public boolean persistent() {
            return (flags & PERSISTENT) != 0;
        }

        /** Whether the sender of a persistent block wants to hear of each read. */
        public boolean notifying() {
            return (flags & NOTIFY) != 0;
        }

        @Override
        public int encode(MemorySegment into, long offset) {
            header(into, offset, ADVERTISEMENT, flags, sequence, length);
            into.set(NetworkOrder.INT, offset + 12, stag);
            into.set(NetworkOrder.LONG, offset + 16, taggedOffset);
            into.set(NetworkOrder.LONG, offset + 24, placement);
            return ADVERTISEMENT_LENGTH;
        }
    }

    /**
     * The receiver's answer to an advertisement once it has taken all of it (or failed to): the sender's block is
     * free again and the advertisement's credit returns. With {@code more} above 0 it also answers the {@code more}
     * advertisements before it, each immediate and taken whole (one message returns their credits together). With
     * the {@link #READ} flag, a notification instead: the persistent block was read, {@code length} octets since the
     * last notification, and stays advertised.
     *
     * @param flags    {@link #READ} or 0
     * @param sequence the advertisement's sequence number
     * @param length   octets the receiver took
     * @param status   {@link #OK}, or why the receiver could not take the data
     * @param more     how many advertisements just before this one it also answers (0 to {@value #MAX_MORE}; only
     *                 with status {@link #OK} and no flag)
     */
    record Acknowledgement(int flags, int sequence, int length, int status, int more) implements ExsMessage {
        /** The data arrived; any other status says the receiver could not take it. */
        public static final int OK = 0;
        /** The data did not fit where {@code exs_send_offset} placed it in the receiver's persistent receive. */
        public static final int NO_ROOM = 1;
        /** The most earlier advertisements one acknowledgement answers besides its own. */
        public static final int MAX_MORE = 0xFFFF;

        /** Validates. */
        public Acknowledgement {
            if (more < 0 || more > MAX_MORE || more > 0 && (flags != 0 || status != OK)) {
                throw new IllegalArgumentException("an acknowledgement answers 0 to " + MAX_MORE + " more "
                        + "advertisements, only with status OK and no flag; not " + more);
            }
        }

        /** An acknowledgement of one advertisement. */
        Acknowledgement(int flags, int sequence, int length, int status) {
            this(flags, sequence, length, status, 0);
        }

        /** Whether this is a notification of a read of a persistent block. */
        public boolean read() {
            return (flags & READ) != 0;
        }

        @Override
        public int encode(MemorySegment into, long offset) {
            header(into, offset, ACKNOWLEDGEMENT, flags, sequence, length);
            into.set(NetworkOrder.SHORT, offset + 12, (short) status);
            into.set(NetworkOrder.SHORT, offset + 14, (short) more);
            return ACKNOWLEDGEMENT_LENGTH;
        }
    }

    /**
     * The sender of a persistent block that asked to hear of reads has taken the last notification: the receiver
     * may send the next (one is outstanding at a time; reads meanwhile are summed into it).
     *
     * @param sequence the persistent advertisement's sequence number
     */
    record Rearm(int sequence) implements ExsMessage {
        @Override
        public int encode(MemorySegment into, long offset) {
            header(into, offset, REARM, 0, sequence, 0);
            into.set(NetworkOrder.INT, offset + 12, 0);
            return ACKNOWLEDGEMENT_LENGTH;
        }
    }

    /**
     * Decodes the message of {@code length} octets at {@code offset} of {@code from} (an advertisement's immediate
     * data stays where it is, after the header).
     *
     * @throws ExsProtocolException when it is not a message of this version: short, of another version or an
     *                              unknown type, an immediate advertisement whose data is not all there, a length
     *                              over 2^31-1
     */
    static ExsMessage decode(MemorySegment from, long offset, int length) throws ExsProtocolException {
        if (length < 4) {
            throw new ExsProtocolException("a message of " + length + " octets: shorter than any header");
        }
        int version = from.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
        int type = from.get(ValueLayout.JAVA_BYTE, offset + 1) & 0xFF;
        int flags = from.get(NetworkOrder.SHORT, offset + 2) & 0xFFFF;
        if (version != VERSION) {
            throw new ExsProtocolException("a message of version " + version + "; this side speaks " + VERSION);
        }
        switch (type) {
            case ADVERTISEMENT -> {
                if (length < ADVERTISEMENT_LENGTH) {
                    throw new ExsProtocolException("an advertisement of " + length + " octets, shorter than its "
                            + ADVERTISEMENT_LENGTH + "-octet header");
                }
                int octets = from.get(NetworkOrder.INT, offset + 8);
                if (octets < 0) {
                    throw new ExsProtocolException("an advertisement of " + Integer.toUnsignedString(octets)
                            + " octets: more than 2^31-1");
                }
                boolean immediate = (flags & IMMEDIATE) != 0;
                if (immediate && (flags & PERSISTENT) != 0) {
                    throw new ExsProtocolException("an advertisement both immediate and persistent");
                }
                if ((flags & (PERSISTENT | NOTIFY)) == NOTIFY) {
                    throw new ExsProtocolException("an advertisement asking for read notifications, not persistent");
                }
                long placement = from.get(NetworkOrder.LONG, offset + 24);
                if (placement < 0) {
                    throw new ExsProtocolException("an advertisement placed at " + Long.toUnsignedString(placement)
                            + ": more than 2^63-1");
                }
                if (immediate && length - ADVERTISEMENT_LENGTH != octets) {
                    throw new ExsProtocolException("an advertisement of " + octets + " immediate octets came with "
                            + (length - ADVERTISEMENT_LENGTH));
                }
                if (!immediate && length != ADVERTISEMENT_LENGTH) {
                    throw new ExsProtocolException("an advertisement to read came with " + (length
                            - ADVERTISEMENT_LENGTH) + " octets after its header");
                }
                return new Advertisement(flags & (IMMEDIATE | PERSISTENT | NOTIFY), from.get(NetworkOrder.INT,
                        offset + 4), octets, from.get(NetworkOrder.INT, offset + 12),
                        from.get(NetworkOrder.LONG, offset + 16), placement);
            }
            case ACKNOWLEDGEMENT -> {
                if (length != ACKNOWLEDGEMENT_LENGTH) {
                    throw new ExsProtocolException("an acknowledgement of " + length + " octets, not "
                            + ACKNOWLEDGEMENT_LENGTH);
                }
                int octets = from.get(NetworkOrder.INT, offset + 8);
                if (octets < 0) {
                    throw new ExsProtocolException("an acknowledgement of " + Integer.toUnsignedString(octets)
                            + " octets: more than 2^31-1");
                }
                int status = from.get(NetworkOrder.SHORT, offset + 12) & 0xFFFF;
                int more = from.get(NetworkOrder.SHORT, offset + 14) & 0xFFFF;
                if (more > 0 && ((flags & READ) != 0 || status != Acknowledgement.OK)) {
                    throw new ExsProtocolException("an acknowledgement answering " + more + " more advertisements "
                            + ((flags & READ) != 0 ? "as a read notification" : "with status " + status));
                }
                return new Acknowledgement(flags & READ, from.get(NetworkOrder.INT, offset + 4), octets, status,
                        more);
            }
            case REARM -> {
                if (length != ACKNOWLEDGEMENT_LENGTH) {
                    throw new ExsProtocolException("a rearm of " + length + " octets, not " + ACKNOWLEDGEMENT_LENGTH);
                }
                return new Rearm(from.get(NetworkOrder.INT, offset + 4));
            }
            default -> throw new ExsProtocolException("a message of unknown type " + type);
        }
    }

    private static void header(MemorySegment into, long offset, int type, int flags, int sequence, int length) {
        into.set(ValueLayout.JAVA_BYTE, offset, (byte) VERSION);
        into.set(ValueLayout.JAVA_BYTE, offset + 1, (byte) type);
        into.set(NetworkOrder.SHORT, offset + 2, (short) flags);
        into.set(NetworkOrder.INT, offset + 4, sequence);
        into.set(NetworkOrder.INT, offset + 8, length);
    }
}
