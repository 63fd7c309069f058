/**
 * What a transport implements and calls to plug into the verbs: the {@link org.rddp.verbs.spi.TransportProvider}
 * service, and {@link org.rddp.verbs.spi.ManagedQueuePairs}, through which a connection manager attaches a queue
 * pair to its LLP stream, keeps its counters and shows both through JMX. Programs using the verbs need none of it.
 */
package org.rddp.verbs.spi;
