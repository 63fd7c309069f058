package org.rddp.check;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.rddp.sctp.DdpSctp;
import org.rddp.sctp.FunctionCode;
import org.rddp.sctp.SessionControl;
import org.rddp.transport.sctp.raw.RawSctpPeer;
import org.rddp.wire.MalformedFrameException;

/**
 * What arrives from an SCTP peer, stream by stream: chunks for other streams than the one a case waits on are kept
 * for later, so cases on different DDP streams of one association do not see each other's chunks.
 */
final class SctpEvents {
    private final RawSctpPeer peer;
    private final Map<Integer, ArrayDeque<RawSctpPeer.Chunk>> kept = new HashMap<>();
    private String down;

    SctpEvents(RawSctpPeer peer) {
        this.peer = peer;
    }

    RawSctpPeer peer() {
        return peer;
    }

    /** The next chunk on {@code streamId} within {@code wait}, or null (then {@link #silence} says why). */
    RawSctpPeer.Chunk next(int streamId, Duration wait) throws InterruptedException {
        ArrayDeque<RawSctpPeer.Chunk> queue = kept.get(streamId);
        if (queue != null && !queue.isEmpty()) {
            return queue.poll();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (down == null && System.nanoTime() < deadline) {
            try {
                RawSctpPeer.Chunk chunk = peer.next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                if (chunk == null) {
                    break;
                }
                if (chunk.streamId() == streamId) {
                    return chunk;
                }
                kept.computeIfAbsent(chunk.streamId(), id -> new ArrayDeque<>()).add(chunk);
            } catch (IOException e) {
                down = e.getMessage();
            }
        }
        return null;
    }

    /** Puts {@code chunk} back, to be read first (a new session's Initiate that a case was not waiting for). */
    void putBack(RawSctpPeer.Chunk chunk) {
        kept.computeIfAbsent(chunk.streamId(), id -> new ArrayDeque<>()).addFirst(chunk);
    }

    /** The next chunk on any stream within {@code wait}, kept ones first; null if none. */
    RawSctpPeer.Chunk any(Duration wait) throws InterruptedException {
        for (ArrayDeque<RawSctpPeer.Chunk> queue : kept.values()) {
            if (!queue.isEmpty()) {
                return queue.poll();
            }
        }
        if (down != null) {
            return null;
        }
        try {
            return peer.next(wait);
        } catch (IOException e) {
            down = e.getMessage();
            return null;
        }
    }

    /** Why nothing came: the association is down, or the peer was silent. */
    String silence(Duration wait) {
        return down != null ? down : "nothing on the stream for " + wait.toMillis() + " ms";
    }

    boolean down() {
        return down != null;
    }

    /** The chunk as a table shows it: stream, PPID, U bit, DDP-SSN and what it carries. */
    static String describe(RawSctpPeer.Chunk chunk) {
        String head = String.format(Locale.ROOT, "sid %d PPID %d U=%d", chunk.streamId(), chunk.ppid(),
                chunk.unordered() ? 1 : 0);
        if (chunk.octets().length < 2) {
            return head + ", " + chunk.octets().length + " octets";
        }
        head += " SSN " + chunk.ddpSsn() + ": ";
        if (chunk.ppid() == DdpSctp.PPID_DDP_SEGMENT) {
            return head + Ulpdus.decode(Arrays.copyOfRange(chunk.octets(), 2, chunk.octets().length));
        }
        try {
            SessionControl control = chunk.control();
            String text = head + name(control.functionCode()) + ", PD " + control.privateDataLength();
            return control.enhancedData().isPresent() && chunk.octets().length >= 8
                    ? text + ", " + Ulpdus.enhanced(java.nio.ByteBuffer.wrap(chunk.octets()).getInt(4)) : text;
        } catch (MalformedFrameException e) {
            return head + "malformed (" + e.getMessage() + ")";
        }
    }

    static String name(FunctionCode code) {
        String name = code.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return String.format(Locale.ROOT, "%s (0x%X)", Character.toUpperCase(name.charAt(0)) + name.substring(1),
                code.wire());
    }

    /** The function code of a well-formed session control chunk, else null. */
    static FunctionCode code(RawSctpPeer.Chunk chunk) {
        try {
            return chunk != null && chunk.isControl() ? chunk.control().functionCode() : null;
        } catch (MalformedFrameException e) {
            return null;
        }
    }

    /** The raw enhanced data word of an enhanced session control chunk. */
    static int enhancedWord(RawSctpPeer.Chunk chunk) {
        return java.nio.ByteBuffer.wrap(chunk.octets()).getInt(4);
    }
}
