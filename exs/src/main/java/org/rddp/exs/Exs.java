package org.rddp.exs;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import org.rddp.verbs.Access;
import org.rddp.verbs.ConnectionManager;
import org.rddp.verbs.ProtectionDomain;
import org.rddp.verbs.RdmaDevice;

/**
 * The Extended Sockets API over this stack ({@code exs_init}): one per transport a program uses. It registers
 * memory, makes event queues and sockets; the transport is the connection manager given here (TCP/MPA, SCTP, or the
 * in-memory LLP), so an EXS program is the same over each.
 */
public final class Exs {
    private final ConnectionManager manager;
    private final RdmaDevice device;
    private final ProtectionDomain pd;

    private Exs(ConnectionManager manager, String name) {
        this.manager = manager;
        this.device = new RdmaDevice(name);
        this.pd = device.allocateProtectionDomain();
    }

    /** EXS over the transport {@code manager} sets up connections on. */
    public static Exs init(ConnectionManager manager) {
        return new Exs(manager, "exs");
    }

    /** Registers {@code memory} for sends and receives ({@code exs_mregister}). */
    public ExsMemory register(MemorySegment memory) {
        return new ExsMemory(pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND)));
    }

    /**
     * An event queue ({@code exs_qcreate}) driven by the threads that dequeue or await on it: its sockets'
     * operations complete on it.
     */
    public ExsQueue createQueue() {
        return new ExsQueue(this, ExsQueue.Driver.CALLER);
    }

    /** An event queue driven as {@code driver} says. */
    public ExsQueue createQueue(ExsQueue.Driver driver) {
        return new ExsQueue(this, driver);
    }

    /** A new socket whose events go to {@code queue} ({@code exs_socket}). */
    public ExsSocket socket(ExsQueue queue) {
        if (queue.exs != this) {
            throw new IllegalArgumentException("the queue belongs to another EXS instance");
        }
        return new ExsSocket(this, queue);
    }

    ConnectionManager manager() {
        return manager;
    }

    RdmaDevice device() {
        return device;
    }

    ProtectionDomain pd() {
        return pd;
    }
}
