/**
 * The RFC 5044 lower layer: DDP over TCP with MPA framing (markers and CRC32c as negotiated) and the enhanced
 * connection setup of RFC 6581 (IRD/ORD, peer-to-peer with RTR), as an LLP for the engine and a connection
 * manager for the verbs.
 */
@SuppressWarnings("module") // the raw peer is exported to the checks, a module built after this one
module org.rddp.transport.mpa {
    requires transitive org.rddp.verbs;

    exports org.rddp.transport.mpa;
    // a hand-driven peer for the session-control checks, not for applications
    exports org.rddp.transport.mpa.raw to org.rddp.check;

    provides org.rddp.verbs.spi.TransportProvider with org.rddp.transport.mpa.MpaTransportProvider;
}
