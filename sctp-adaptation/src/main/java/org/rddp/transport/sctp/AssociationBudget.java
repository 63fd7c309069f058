package org.rddp.transport.sctp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one association holds because of its peer (RFC 5042: nothing a peer sends is held without a bound; RFC 5043
 * §10: no resources for a DDP-SSN not shown valid): the chunks its sessions keep ahead of their turn, and the session
 * control answers waiting for room in a socket the peer does not drain. At most
 * {@link SctpLimits#heldPerAssociation} octets on the association, what its connection manager's
 * {@link SctpLimits#memory} has left once its associations are counted, and a quarter of the heap's limit for every
 * association of the process together, the copies being on the heap. What would pass one of them is not kept, and
 * the budget says which ({@link #refusal}). The association's loop takes and gives; the process's and the manager's
 * totals are shared by every loop.
 */
final class AssociationBudget implements ResequencingWindow.Budget {
    /** What every association of the process holds together: a quarter of the heap's limit. */
    static final long PROCESS_LIMIT = Runtime.getRuntime().maxMemory() / 4;
    private static final AtomicLong PROCESS = new AtomicLong();

    /** A manager's share: what its associations' chunks take together, against what its memory limit leaves. */
    interface Shared {
        /** Nothing shared: the association's and the process's limits only. */
        Shared NONE = new Shared() {
            @Override
            public String take(long octets) {
                return null;
            }

            @Override
            public void give(long octets) {
                // nothing counted
            }
        };

        /** Takes {@code octets}; null when taken, else why not (nothing taken). Any loop. */
        String take(long octets);

        /** Gives {@code octets} back. Any loop. */
        void give(long octets);
    }

    private final long associationLimit;
    private final Shared shared;
    private long held;
    private String refusal;

    /** A budget of {@code associationLimit} octets for one association, within {@code shared} and the process's. */
    AssociationBudget(long associationLimit, Shared shared) {
        this.associationLimit = associationLimit;
        this.shared = shared;
    }

    @Override
    public boolean take(long octets) {
        if (held + octets > associationLimit) {
            refusal = "its association holds " + held + " octets for its peer, and may hold "
                    + associationLimit + " (SctpLimits.withHeldPerAssociation)";
            return false;
        }
        long now = PROCESS.addAndGet(octets);
        if (now > PROCESS_LIMIT) {
            PROCESS.addAndGet(-octets);
            refusal = "the process holds " + PROCESS.get() + " octets for its SCTP peers, and may hold "
                    + PROCESS_LIMIT + " (a quarter of the heap's limit)";
            return false;
        }
        String sharedRefusal = shared.take(octets);
        if (sharedRefusal != null) {
            PROCESS.addAndGet(-octets);
            refusal = sharedRefusal;
            return false;
        }
        held += octets;
        return true;
    }

    @Override
    public void give(long octets) {
        held -= octets;
        PROCESS.addAndGet(-octets);
        shared.give(octets);
    }

    /** Octets this association holds now. Its loop. */
    long held() {
        return held;
    }

    /** Why the last refusal was, or null. Its loop. */
    String refusal() {
        return refusal;
    }

    /** Octets every association of the process holds now. Any thread. */
    static long heldInProcess() {
        return PROCESS.get();
    }
}
