/** The verbs API (PD, MR, MW, QP, CQ, SRQ, connection manager); built by the engine issue on this module. */
module org.rddp.verbs {
    requires org.rddp.rdmap;
}
