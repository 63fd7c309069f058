/** Cross-transport, session-control interop and VM test harness; its tests live under src/test. */
module org.rddp.interop {
    requires org.rddp.rdmap;
    requires org.rddp.transport.sctp;
    requires org.rddp.transport.mpa;
}
