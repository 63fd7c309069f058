package org.rddp.exs;

import static org.rddp.exs.ExsConnection.READ;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import org.rddp.exs.ExsMessage.Acknowledgement;
import org.rddp.exs.ExsMessage.Advertisement;
import org.rddp.exs.ExsMessage.Rearm;
import org.rddp.verbs.SendWorkRequest;
import org.rddp.work.WorkOpcode;

/**
 * The receive side of an EXS connection: the peer's advertisements held in order within the credits, the receives
 * matched with them (immediate data copied out of the receive buffer, blocks read with RDMA Reads within ORD), the
 * receives' events in order, and the answers owed for the advertisements (acknowledgements, which give the peer its
 * credits back, and read notifications of its persistent blocks). Runs under its queue's lock, as its
 * {@link ExsConnection} does: on a caller's thread for its receives, on the dequeuing thread for completions.
 */
final class ExsReceiver {
    private final ExsConnection connection;
    private final ExsSocket socket;
    private final ExsQueue queue;
    private int slots;
    private int ord;
    private int expectedSequence;
    private int held;
    private final ArrayDeque<Advert> adverts = new ArrayDeque<>();
    private final ArrayDeque<RecvOp> recvs = new ArrayDeque<>();
    private RecvOp persistentRecv;
    private final ArrayDeque<Chunk> reading = new ArrayDeque<>();
    private int readsInFlight;
    private long reads;

    ExsReceiver(ExsConnection connection, ExsSocket socket, ExsQueue queue) {
        this.connection = connection;
        this.socket = socket;
        this.queue = queue;
    }

    /** The connection is up: the peer holds up to {@code slots} advertisements here; reads within the ORD agreed. */
    void established(int slots, int negotiatedOrd) {
        this.slots = slots;
        this.ord = Math.max(1, Math.min(negotiatedOrd, slots));
    }

    void recv(RecvOp op) {
        if (persistentRecv != null) {
            throw new IllegalStateException("cannot recv: " + socket + " has a persistent receive, which takes every "
                    + "message");
        }
        if (op.persistent) {
            if (!recvs.isEmpty()) {
                throw new IllegalStateException("cannot recv persistently: " + socket + " has " + recvs.size()
                        + " receives waiting");
            }
            persistentRecv = op;
        } else {
            recvs.add(op);
        }
        match();
    }

    // ---- messages and completions ----

    /** The peer's advertisement, in receive buffer {@code buffer}: held there until it is taken (a normal one). */
    void advertised(Advertisement advert, int buffer) throws ExsProtocolException {
        if (advert.sequence() != expectedSequence) {
            throw new ExsProtocolException("advertisement " + advert.sequence() + " where " + expectedSequence
                    + " was next");
        }
        if (held == slots) {
            throw new ExsProtocolException("an advertisement beyond the " + slots + " credits of the connection");
        }
        expectedSequence++;
        held++;
        if (advert.persistent()) {
            connection.repost(buffer); // nothing to keep: the block is read, never copied
            adverts.add(new Advert(advert, -1));
        } else {
            adverts.add(new Advert(advert, buffer));
        }
        match();
    }

    /** The peer's rearm: the read notification of its persistent block is answered; the next one may go. */
    void rearmed(Rearm rearm) throws ExsProtocolException {
        for (Advert advert : adverts) {
            if (advert.message.sequence() == rearm.sequence() && advert.message.notifying()) {
                if (!advert.notificationOut) {
                    throw new ExsProtocolException("a rearm of advertisement " + rearm.sequence()
                            + " with no notification outstanding");
                }
                advert.notificationOut = false;
                notifyReads(advert);
                return;
            }
        }
        throw new ExsProtocolException("a rearm of advertisement " + rearm.sequence()
                + ", which is not a persistent one asking for notifications");
    }

    /** The oldest read in flight completed: its chunk, and the copies behind it, are done in order. */
    void readCompleted() {
        Chunk read = reading.poll();
        if (read == null) {
            return; // nothing was read: not a completion of this connection's
        }
        readsInFlight--;
        complete(read);
        while (!reading.isEmpty() && reading.peek().copied) { // copies behind the read, in order
            complete(reading.poll());
        }
        match();
    }

    // ---- matching ----

    /** Pairs held advertisements with receives: copies immediate data, starts reads, in order. */
    private void match() {
        while (connection.open && !adverts.isEmpty()) {
            Advert advert = adverts.peek();
            if (advert.message.persistent()) {
                if (!matchPersistentBlock(advert)) {
                    return;
                }
            } else if (persistentRecv != null) {
                if (!matchIntoPersistentReceive(advert)) {
                    return;
                }
            } else {
                RecvOp op = recvs.peek();
                if (op == null) {
                    return;
                }
                int length = (int) Math.min(op.length - op.claimed, advert.message.length() - advert.claimed);
                if (!copies(advert, length) && readsInFlight >= ord) {
                    return;
                }
                long source = advert.claimed;
                long target = op.offset + op.claimed;
                advert.claimed += length;
                op.claimed += length;
                if (advert.claimed == advert.message.length()) {
                    adverts.poll();
                }
                boolean last = !op.waitAll || op.claimed == op.length;
                if (last) {
                    recvs.poll();
                }
                take(new Chunk(op, advert, length, last), source, target);
            }
        }
    }

    /** The head advertisement is a persistent block: the next receive reads it (at its remote offset). */
    private boolean matchPersistentBlock(Advert advert) {
        if (persistentRecv != null) {
            RecvOp both = persistentRecv;
            persistentRecv = null;
            refuse(new Chunk(both, advert, 0, true), new ExsException(socket
                    + ": the peer's send is persistent too; both sides of a connection cannot be persistent"));
            return true;
        }
        RecvOp op = recvs.peek();
        if (op == null || readsInFlight >= ord) {
            return false;
        }
        recvs.poll();
        long size = advert.message.length();
        if (op.remoteOffset > size) {
            refuse(new Chunk(op, advert, 0, true), new ExsException(socket + ": offset " + op.remoteOffset
                    + " is beyond the peer's persistent block of " + size + " octets"));
            return true;
        }
        int length = (int) Math.min(op.length, size - op.remoteOffset);
        op.claimed = length;
        take(new Chunk(op, advert, length, true), op.remoteOffset, op.offset);
        return true;
    }

    /** A message for the persistent receive: taken whole where the sender placed it, or refused. */
    private boolean matchIntoPersistentReceive(Advert advert) {
        RecvOp op = persistentRecv;
        int length = advert.message.length();
        long place = advert.message.placement();
        if (place > op.length || length > op.length - place) {
            adverts.poll();
            refuse(new Chunk(op, advert, 0, true), new ExsException(socket + ": a message of " + length
                    + " octets at " + place + " does not fit the persistent receive of " + op.length));
            return true;
        }
        if (!copies(advert, length) && readsInFlight >= ord) {
            return false;
        }
        adverts.poll();
        advert.claimed = length;
        take(new Chunk(op, advert, length, true), 0, op.offset + place);
        return true;
    }

    private static boolean copies(Advert advert, int length) {
        return advert.message.immediate() || length == 0;
    }

    /** A receive that fails for {@code why}, in its turn behind earlier reads. */
    private void refuse(Chunk chunk, ExsException why) {
        chunk.error = why;
        chunk.copied = true;
        if (reading.isEmpty()) {
            complete(chunk);
        } else {
            reading.add(chunk);
        }
    }

    /** Copies the chunk now (its event waits behind earlier reads) or starts its read. */
    private void take(Chunk chunk, long source, long target) {
        Advert advert = chunk.advert;
        if (copies(advert, chunk.length)) {
            if (chunk.length > 0) {
                MemorySegment.copy(connection.receiveBuffers.memory(), (long) advert.buffer * connection.bufferSize
                        + ExsMessage.ADVERTISEMENT_LENGTH + source, chunk.op.memory.segment(), target, chunk.length);
            }
            chunk.copied = true;
            if (reading.isEmpty()) {
                complete(chunk);
            } else {
                reading.add(chunk);
            }
            return;
        }
        SendWorkRequest sendRequest = connection.sendRequest;
        sendRequest.wrId(READ).opcode(WorkOpcode.RDMA_READ).signaled(true).noSge()
                .sge(0, chunk.op.memory.region, target, chunk.length)
                .remote(advert.message.stag(), advert.message.taggedOffset() + source);
        reading.add(chunk);
        readsInFlight++;
        reads++;
        connection.post(sendRequest);
    }

    // ---- answers ----

    /** A chunk's octets are in place: its receive's event, the advertisement's answer. */
    private void complete(Chunk chunk) {
        Advert advert = chunk.advert;
        RecvOp op = chunk.op;
        if (chunk.error != null) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, 0, chunk.error));
            if (!advert.message.persistent()) {
                release(advert, Acknowledgement.NO_ROOM, 0); // a message refused by the persistent receive
            }
            return;
        }
        op.done += chunk.length;
        if (advert.message.persistent()) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, chunk.length, null));
            if (advert.message.notifying()) {
                advert.unnotified += chunk.length;
                notifyReads(advert);
            }
            return;
        }
        advert.consumed += chunk.length;
        if (advert.consumed == advert.message.length() && advert.claimed == advert.message.length()) {
            release(advert, Acknowledgement.OK, advert.message.length());
        }
        if (op.persistent) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, chunk.length, null));
        } else if (chunk.last) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, op.done, null));
        }
    }

    /** An advertisement is done with: its buffer back, its credit back with the acknowledgement. */
    private void release(Advert advert, int status, int length) {
        if (advert.buffer >= 0) {
            connection.repost(advert.buffer);
        }
        held--;
        int invalidate = advert.message.immediate() ? 0 : advert.message.stag();
        connection.acknowledge(advert.message.sequence(), length, status, invalidate, advert.message.immediate());
        connection.controlReady();
    }

    /** Sends a read notification for a persistent block, unless one is outstanding (reads are summed meanwhile). */
    private void notifyReads(Advert advert) {
        if (advert.notificationOut || advert.unnotified == 0) {
            return;
        }
        int length = (int) Math.min(advert.unnotified, Integer.MAX_VALUE);
        advert.unnotified -= length;
        advert.notificationOut = true;
        connection.answer(new Acknowledgement(ExsMessage.READ, advert.message.sequence(), length,
                Acknowledgement.OK), 0, false);
        connection.controlReady();
    }

    // ---- the end ----

    /** Ends every receive not finished with {@code cancelled}, and forgets the advertisements held. */
    void end(ExsException cancelled) {
        Set<RecvOp> unfinished = new LinkedHashSet<>();
        for (Chunk chunk : reading) {
            unfinished.add(chunk.op);
        }
        unfinished.addAll(recvs);
        if (persistentRecv != null) {
            unfinished.add(persistentRecv);
        }
        for (RecvOp op : unfinished) {
            queue.post(new ExsEvent(ExsEvent.Type.RECV, socket, op.context, 0, cancelled));
        }
        reading.clear();
        recvs.clear();
        persistentRecv = null;
        adverts.clear();
    }

    // ---- for tests ----

    long reads() {
        return reads;
    }

    int held() {
        return held;
    }

    /** A receive not yet finished. */
    static final class RecvOp {
        final ExsMemory memory;
        final long offset;
        final int length;
        final long remoteOffset;
        final boolean persistent;
        final boolean waitAll;
        final Object context;
        long claimed;
        long done;

        RecvOp(ExsMemory memory, long offset, int length, long remoteOffset, Set<ExsFlag> flags, Object context) {
            this.memory = memory;
            this.offset = offset;
            this.length = length;
            this.remoteOffset = remoteOffset;
            this.persistent = flags.contains(ExsFlag.PERSISTENT);
            this.waitAll = flags.contains(ExsFlag.WAITALL);
            this.context = context;
        }
    }

    /** A received advertisement, held in its receive buffer (a normal one) until all of it is taken. */
    private static final class Advert {
        final Advertisement message;
        final int buffer;
        long claimed;
        long consumed;
        long unnotified;
        boolean notificationOut;

        Advert(Advertisement message, int buffer) {
            this.message = message;
            this.buffer = buffer;
        }
    }

    /**
     * Part of a receive taken from one advertisement: a read in flight, or a copy (or a refusal) whose event waits
     * its turn.
     */
    private static final class Chunk {
        final RecvOp op;
        final Advert advert;
        final int length;
        final boolean last;
        boolean copied;
        ExsException error;

        Chunk(RecvOp op, Advert advert, int length, boolean last) {
            this.op = op;
            this.advert = advert;
            this.length = length;
            this.last = last;
        }
    }
}
