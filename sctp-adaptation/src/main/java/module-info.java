/**
 * DDP over SCTP (RFC 5043, with the enhanced session control of RFC 6581 §7) as an LLP for the engine, over an
 * SCTP socket interface with two backends: user-space usrsctp and the Linux kernel's SCTP, both through
 * java.lang.foreign.
 */
@SuppressWarnings("module") // the raw peer is exported to the checks, a module built after this one
module org.rddp.transport.sctp {
    requires transitive org.rddp.verbs;

    exports org.rddp.transport.sctp;
    exports org.rddp.transport.sctp.usrsctp;
    exports org.rddp.transport.sctp.kernel;
    // a hand-driven peer for the session-control checks, not for applications
    exports org.rddp.transport.sctp.raw to org.rddp.check;

    provides org.rddp.verbs.spi.TransportProvider with org.rddp.transport.sctp.SctpTransportProvider;
}
