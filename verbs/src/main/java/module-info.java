/**
 * The verbs API: device, protection domain, memory regions and windows, queue pairs, completion queues, shared
 * receive queues and the connection manager interface the transports implement.
 */
module org.rddp.verbs {
    requires transitive org.rddp.rdmap;
    requires org.jctools.core;

    exports org.rddp.verbs;

    uses org.rddp.verbs.TransportProvider;
}
