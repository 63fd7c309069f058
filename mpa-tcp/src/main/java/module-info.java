/** The RFC 5044 lower layer over TCP with MPA framing; built by the TCP/MPA issue. */
module org.rddp.transport.mpa {
    requires org.rddp.rdmap;
}
