/**
 * Small programs to copy from, one {@code main} each: RDMA Write and Read through the verbs, an echo server and
 * client over the Extended Sockets API, an SCTP connection's paths, and the session-control interop check.
 */
module org.rddp.examples {
    // transitive: the results the programs return hold these modules' types (LlpPath, Verdict)
    requires transitive org.rddp.verbs;
    requires transitive org.rddp.check;
    requires org.rddp.exs;
    requires org.rddp.transport.sctp; // SctpPaths names the SCTP backends

    exports org.rddp.examples;
}
