/**
 * Session-control interop checks: hand-driven MPA and SCTP peers that walk the RFC 5044 / RFC 5043 / RFC 6581
 * setup matrix against another implementation, as initiator or as responder, and say per case what was expected,
 * what the peer put on the wire, and whether that is what the RFCs ask.
 */
module org.rddp.check {
    requires transitive org.rddp.transport.mpa;
    requires transitive org.rddp.transport.sctp;

    exports org.rddp.check;
}
