package org.rddp.wire;

import java.util.Optional;
import org.rddp.error.DdpError;
import org.rddp.error.MpaError;
import org.rddp.error.RdmapError;
import org.rddp.error.TerminateCause;

/**
 * Outcome of decoding one unit from the wire. Hot-path decoders return it (no exception, no allocation);
 * control-path decoders throw it inside a {@link MalformedFrameException}. Each error names the Terminate
 * cause the RFCs prescribe, where they prescribe one; where they do not, the constant says why.
 */
public enum DecodeStatus {
    /** Well-formed. */
    OK(null),

    // DDP segments, RFC 5041 §4, §7.
    /**
     * Shorter than the DDP header its T bit announces (14 or 18 octets). RFC 5041 has no code for a header
     * the LLP cut short; it is an invalid DDP header field (§6.2.2), answered as an RDMAP Remote Operation
     * error because the peer, not this node, broke the stream.
     */
    DDP_SEGMENT_TRUNCATED(RdmapError.REMOTE_OPERATION_UNSPECIFIED),
    /** DV of a tagged segment is not the stream's DDP version (RFC 5041 §4.1, §7.2). */
    DDP_TAGGED_VERSION(DdpError.TAGGED_INVALID_VERSION),
    /** DV of an untagged segment is not the stream's DDP version (RFC 5041 §4.1, §7.2). */
    DDP_UNTAGGED_VERSION(DdpError.UNTAGGED_INVALID_VERSION),

    // RDMAP messages, RFC 5040 §4, §7.2.
    /** RV is not the stream's RDMAP version (RFC 5040 §4.1). */
    RDMAP_VERSION(RdmapError.REMOTE_OPERATION_INVALID_VERSION),
    /** Opcode 0x8-0xF: reserved or experimental (RFC 5040 §4.1, RFC 6580 §3.4). */
    RDMAP_UNKNOWN_OPCODE(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE),
    /** A tagged opcode in an untagged segment or the reverse (RFC 5040 §4.2 Fig. 5). */
    RDMAP_OPCODE_BUFFER_MISMATCH(RdmapError.REMOTE_OPERATION_UNEXPECTED_OPCODE),
    /** An untagged opcode on a QN other than the one RFC 5040 §3.1 assigns it (0 Send, 1 Read, 2 Terminate). */
    RDMAP_WRONG_QUEUE(DdpError.UNTAGGED_INVALID_QN),
    /** A Read Request that is not one whole segment at MO 0 (RFC 5040 §4.4: one untagged message, MO 0). */
    RDMAP_READ_REQUEST_MO(DdpError.UNTAGGED_INVALID_MO),
    /**
     * A Read Request with fewer than 28 octets of header (RFC 5040 §4.4). No code fits a message cut short by
     * the peer; it is a Remote Operation error.
     */
    RDMAP_READ_REQUEST_TRUNCATED(RdmapError.REMOTE_OPERATION_UNSPECIFIED),
    /** A Read Request longer than its 28-octet header: too long for the QN 1 buffer (RFC 5041 §7.2). */
    RDMAP_READ_REQUEST_TOO_LONG(DdpError.UNTAGGED_MESSAGE_TOO_LONG),
    /**
     * A Terminate that is not one segment at MO 0, or shorter than its control field and the optional parts its
     * HdrCt bits announce (RFC 5040 §4.8). Not answered on the wire: a Terminate is never answered with one
     * (§5.4); the stream is torn down and the local user told.
     */
    RDMAP_TERMINATE_MALFORMED(null),

    // MPA, RFC 5044 §4, §7.1 and RFC 6581 §6. RFC 5044 §7.1.2 rules 2, 3, 5, 9: close the TCP connection.
    /** A Request/Reply frame shorter than its 20-octet header plus PD_Length. */
    MPA_FRAME_TRUNCATED(MpaError.INVALID_REQUEST_OR_REPLY),
    /** Not the expected "MPA ID Req Frame" / "MPA ID Rep Frame" key. */
    MPA_BAD_KEY(MpaError.INVALID_REQUEST_OR_REPLY),
    /** A revision this implementation cannot interoperate with (we speak 1 and 2). */
    MPA_BAD_REVISION(MpaError.INVALID_REQUEST_OR_REPLY),
    /** PD_Length above 512. */
    MPA_PRIVATE_DATA_TOO_LONG(MpaError.INVALID_REQUEST_OR_REPLY),
    /** PD_Length does not match the octets that follow the header. */
    MPA_PRIVATE_DATA_LENGTH_MISMATCH(MpaError.INVALID_REQUEST_OR_REPLY),
    /** S=1 with Rev 2 but fewer than 4 octets of private data for the enhanced block (RFC 6581 §6). */
    MPA_ENHANCED_DATA_MISSING(MpaError.INVALID_REQUEST_OR_REPLY),
    /** FPDU CRC32c mismatch (RFC 5044 §4.4, §8). */
    MPA_CRC(MpaError.CRC_ERROR),
    /** A Marker's FPDUPTR does not point at the ULPDU_Length of the FPDU that holds it (RFC 5044 §4.3, §8). */
    MPA_MARKER(MpaError.MARKER_LENGTH_DISAGREE),

    // DDP over SCTP, RFC 5043 §5.2, §6. RFC 5043 defines no LLP error codes (RFC 6581 §8): the action is to
    // terminate the DDP stream session (Session Terminate, function code 0x0004) and tell the local user.
    /** Shorter than DDP-SSN plus what the PPID announces (a DDP segment or a function code). */
    SCTP_CHUNK_TRUNCATED(null),
    /** Larger than the maximum DDP segment size the adaptation advertised (RFC 5043 §9). */
    SCTP_CHUNK_OVERSIZED(null),
    /** A PPID other than 16 and 17 on a DDP association (RFC 5043 §5.2, §7.1). */
    SCTP_UNKNOWN_PPID(null),
    /** A function code RFC 5043 and RFC 6581 do not define, the experimental 0xFFFF included. */
    SCTP_UNKNOWN_FUNCTION_CODE(null),
    /** More than 512 octets of private data (RFC 5043 §5.2.3, RFC 6581 §7). */
    SCTP_PRIVATE_DATA_TOO_LONG(null),
    /** A Session Terminate carrying private data, which it MUST NOT (RFC 5043 §5.2.3). */
    SCTP_TERMINATE_WITH_PRIVATE_DATA(null),
    /** An Enhanced Initiate or Accept with fewer than 4 octets of private data (RFC 6581 §7). */
    SCTP_ENHANCED_DATA_MISSING(null);

    private final TerminateCause cause;

    DecodeStatus(TerminateCause cause) {
        this.cause = cause;
    }

    /** The Terminate cause to send back, if the RFCs prescribe a Terminate for this failure. */
    public Optional<TerminateCause> terminateCause() {
        return Optional.ofNullable(cause);
    }

    /** {@code true} for {@link #OK}. */
    public boolean ok() {
        return this == OK;
    }
}
