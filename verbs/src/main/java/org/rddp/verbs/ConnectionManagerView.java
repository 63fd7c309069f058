package org.rddp.verbs;

import java.util.List;
import java.util.Map;
import javax.management.MXBean;

/**
 * A connection manager as JMX shows it (an MXBean) while it is open, named
 * {@code org.rddp:type=ConnectionManager,transport=<scheme>,id=<n>}: its counters and its queue pairs' statistics.
 */
@MXBean
public interface ConnectionManagerView {
    /** The transport's scheme ({@code mpa}, {@code sctp}). */
    String getTransport();

    /** Where its connections leave from. */
    String getLocalAddress();

    /** Its counters ({@link org.rddp.llp.Counter}), by label. */
    Map<String, Long> getCounters();

    /** The statistics of the queue pairs it connected that are still referenced. */
    List<QpStatistics> getQueuePairs();
}
