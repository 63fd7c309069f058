package org.rddp.check;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.rddp.mpa.MpaStartupFrame;
import org.rddp.transport.mpa.raw.RawMpaPeer;
import org.rddp.wire.MalformedFrameException;

/**
 * What an MPA peer did next, read off a {@link RawMpaPeer}: a startup frame, an FPDU, or the end of the
 * connection, or nothing for a while. Exactly one of the three is set.
 *
 * @param frame a startup frame, as it came
 * @param fpdu  the DDP segment an FPDU carried
 * @param end   how the connection ended, or that the peer stayed silent
 */
record MpaEvents(RawMpaPeer.Frame frame, Ulpdus.Received fpdu, String end) {

    /** Whether the peer ended the connection (FIN or reset) rather than sending or staying silent. */
    boolean closed() {
        return end != null && !end.startsWith("silent");
    }

    /** The next startup frame, or how the connection ended. */
    static MpaEvents frame(RawMpaPeer peer, Duration wait) {
        try {
            peer.timeout(wait);
            return new MpaEvents(peer.readFrame(), null, null);
        } catch (IOException e) {
            return ended(e, wait);
        }
    }

    /** The next FPDU (no markers; the CRC checked when {@code crc}), or how the connection ended. */
    static MpaEvents fpdu(RawMpaPeer peer, boolean crc, Duration wait) {
        try {
            peer.timeout(wait);
            return new MpaEvents(null, Ulpdus.decode(peer.readFpdu(crc)), null);
        } catch (IOException e) {
            return ended(e, wait);
        }
    }

    private static MpaEvents ended(IOException e, Duration wait) {
        String end;
        if (e instanceof SocketTimeoutException) {
            end = "silent for " + wait.toMillis() + " ms";
        } else if (e instanceof EOFException) {
            end = "closed the connection";
        } else if (e instanceof SocketException) {
            end = "reset the connection (" + e.getMessage() + ")";
        } else {
            end = "sent something unreadable: " + e.getMessage();
        }
        return new MpaEvents(null, null, end);
    }

    /** The startup frame decoded as {@code kind}, or {@code null} if it is malformed. */
    MpaStartupFrame decoded(MpaStartupFrame.Kind kind) {
        try {
            return frame.decode(kind);
        } catch (MalformedFrameException e) {
            return null;
        }
    }

    /** The raw enhanced data word of an S=1 frame, or -1. */
    int enhancedWord() {
        byte[] octets = frame.octets();
        boolean enhanced = frame.flag(MpaStartupFrame.ENHANCED_FLAG) && frame.revision() >= 2
                && octets.length >= MpaStartupFrame.HEADER_LENGTH + 4;
        return enhanced ? ByteBuffer.wrap(octets).getInt(MpaStartupFrame.HEADER_LENGTH) : -1;
    }

    /** The event as a table shows it. */
    String describe(MpaStartupFrame.Kind kind) {
        if (end != null) {
            return end;
        }
        if (fpdu != null) {
            return "an FPDU: " + fpdu;
        }
        byte[] key = Arrays.copyOf(frame.octets(), MpaStartupFrame.KEY_LENGTH);
        String name = Arrays.equals(key, MpaStartupFrame.Kind.REPLY.key()) ? "Reply"
                : Arrays.equals(key, MpaStartupFrame.Kind.REQUEST.key()) ? "Request" : "a frame with a bad key";
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%s Rev %d M=%d C=%d R=%d S=%d "
                + "PD_Length %d", name, frame.revision(), bit(MpaStartupFrame.MARKERS_FLAG),
                bit(MpaStartupFrame.CRC_FLAG), bit(MpaStartupFrame.REJECT_FLAG), bit(MpaStartupFrame.ENHANCED_FLAG),
                frame.pdLength()));
        int word = enhancedWord();
        if (word != -1) {
            text.append(", ").append(Ulpdus.enhanced(word));
        }
        try {
            frame.decode(kind);
        } catch (MalformedFrameException e) {
            text.append(" (malformed: ").append(e.getMessage()).append(')');
        }
        return text.toString();
    }

    private int bit(int mask) {
        return frame.flag(mask) ? 1 : 0;
    }
}
