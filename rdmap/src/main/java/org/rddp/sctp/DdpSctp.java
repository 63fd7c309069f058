package org.rddp.sctp;

/** Code points and limits of the DDP adaptation of SCTP (RFC 5043 §5, §9, §10, §12; RFC 5061 §4.2.6). */
public final class DdpSctp {
    /** PPID of a DDP Segment chunk (IANA, RFC 5043 §5.2); SCTP carries it without byte-swapping. */
    public static final int PPID_DDP_SEGMENT = 16;
    /** PPID of a DDP Stream Session Control chunk. */
    public static final int PPID_SESSION_CONTROL = 17;
    /** Adaptation Code Point of DDP in the Adaptation Layer Indication (RFC 5043 §5.1). */
    public static final int ADAPTATION_INDICATION = 0x00000001;
    /** Parameter type of the Adaptation Layer Indication in INIT and INIT-ACK (RFC 5061 §4.2.6). */
    public static final int ADAPTATION_PARAMETER_TYPE = 0xC006;
    /** Parameter length of the Adaptation Layer Indication. */
    public static final int ADAPTATION_PARAMETER_LENGTH = 8;
    /**
     * Smallest maximum chunk size the adaptation may advertise (RFC 5043 §9): DDP-SSN, function code and 512
     * octets of private data, so that every session control message fits.
     */
    public static final int MIN_MAX_CHUNK_LENGTH = 516;
    /** Most DATA chunks a sender may have unacknowledged on one stream, so DDP-SSN stays unambiguous (§10). */
    public static final int MAX_CHUNKS_IN_FLIGHT_PER_STREAM = 32767;
    /** Octets of the DDP-SSN field that starts every chunk. */
    public static final int DDP_SSN_LENGTH = 2;

    private DdpSctp() {
    }
}
