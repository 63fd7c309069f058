/**
 * The RFC 5044 lower layer: DDP over TCP with MPA framing (markers and CRC32c as negotiated) and the enhanced
 * connection setup of RFC 6581 (IRD/ORD, peer-to-peer with RTR), as an LLP for the engine and a connection
 * manager for the verbs.
 */
module org.rddp.transport.mpa {
    requires transitive org.rddp.verbs;

    exports org.rddp.transport.mpa;

    provides org.rddp.verbs.TransportProvider with org.rddp.transport.mpa.MpaTransportProvider;
}
