package org.rddp.verbs.spi;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;
import org.rddp.llp.Counters;
import org.rddp.llp.LlpParameters;
import org.rddp.llp.LlpStream;
import org.rddp.loop.Loop;
import org.rddp.verbs.Connection;
import org.rddp.verbs.ConnectionManagerView;
import org.rddp.verbs.QpStatistics;
import org.rddp.verbs.QueuePair;
import org.rddp.verbs.internal.VerbsAccess;

/**
 * A connection manager's own: its {@link Counters} (its streams count into them, {@link LlpStream#counters}), the
 * queue pairs it attached to their streams, and its {@link ConnectionManagerView}, registered with the platform's
 * MBean server while it is open. Queue pairs are held weakly: one the application let go of leaves the list.
 * Thread-safe.
 */
public final class ManagedQueuePairs implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();

    private final String transport;
    private final InetAddress localAddress;
    private final Counters counters = Counters.create();
    private final Set<QueuePair> attached = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private final ObjectName name;

    /** For the connection manager of {@code transport} (its scheme) whose connections leave from {@code local}. */
    public ManagedQueuePairs(String transport, InetAddress local) {
        this.transport = transport;
        this.localAddress = local;
        ObjectName registered = null;
        try {
            registered = new ObjectName("org.rddp:type=ConnectionManager,transport=" + transport + ",id="
                    + IDS.incrementAndGet());
            ManagementFactory.getPlatformMBeanServer().registerMBean(new View(), registered);
        } catch (JMException | SecurityException e) {
            registered = null; // JMX is an operator's window, not a reason to refuse connections
        }
        this.name = registered;
    }

    /** The manager's counters: hand them to its streams. */
    public Counters counters() {
        return counters;
    }

    /**
     * Binds {@code qp} to an established LLP stream, which lives on {@code on}, and moves it to RTS; the engine starts
     * on that loop. The queue pair's Terminates and losses count in the stream's counters.
     *
     * @throws IllegalStateException unless the queue pair is IDLE
     */
    public void attach(QueuePair qp, LlpStream llp, Loop on) {
        VerbsAccess.queuePairs().attach(qp, llp, on);
        attached.add(qp);
    }

    /**
     * Completes {@code result} with the connection once {@code qp} reached RTS on its stream, or exceptionally if it
     * failed first.
     */
    public static void establish(QueuePair qp, LlpParameters parameters, CompletableFuture<Connection> result) {
        qp.established().thenApply(event -> new Connection(qp, parameters)).whenComplete((connection, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(connection);
            }
        });
    }

    /** The statistics of the queue pairs attached that are still referenced, in no particular order. */
    public List<QpStatistics> statistics() {
        List<QueuePair> now;
        synchronized (attached) {
            now = new ArrayList<>(attached);
        }
        return now.stream().map(QueuePair::statistics).toList();
    }

    /** Takes the manager's MBean out of the platform's server. */
    @Override
    public void close() {
        if (name != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (JMException e) {
                // already gone
            }
        }
    }

    private final class View implements ConnectionManagerView {
        @Override
        public String getTransport() {
            return transport;
        }

        @Override
        public String getLocalAddress() {
            return localAddress == null ? "" : localAddress.getHostAddress();
        }

        @Override
        public Map<String, Long> getCounters() {
            Map<String, Long> byLabel = new LinkedHashMap<>();
            counters.snapshot().forEach((counter, value) -> byLabel.put(counter.label(), value));
            return byLabel;
        }

        @Override
        public List<QpStatistics> getQueuePairs() {
            return statistics();
        }
    }
}
