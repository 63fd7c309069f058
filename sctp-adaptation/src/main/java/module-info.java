/** The RFC 5043 lower layer over SCTP (usrsctp and kernel SCTP); built by the SCTP adaptation issue. */
module org.rddp.transport.sctp {
    requires org.rddp.rdmap;
}
