/**
 * The verbs API: device, protection domain, memory regions and windows, queue pairs, completion queues, shared
 * receive queues, the connection manager interface and the transports by name ({@code org.rddp.verbs}); and what the
 * transports implement and call ({@code org.rddp.verbs.spi}).
 */
module org.rddp.verbs {
    requires transitive org.rddp.rdmap;
    requires transitive java.management;
    requires org.jctools.core;

    exports org.rddp.verbs;
    exports org.rddp.verbs.spi;

    uses org.rddp.verbs.spi.TransportProvider;
}
