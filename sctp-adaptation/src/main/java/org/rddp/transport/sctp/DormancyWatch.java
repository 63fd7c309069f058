package org.rddp.transport.sctp;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands the reading back to the owner thread of an association whose polling consumer went away without saying
 * so. While a consumer polls a completion queue, the association's ready hook leaves the reading to it instead of
 * waking the owner thread for every message (see {@link DdpAssociation}); a consumer that then stops polling
 * without pausing on the queue would leave what arrived after its last look unread until its next one, and a Read
 * Request unanswered. One daemon thread per process looks, every {@link #GRACE_NANOS}, at the associations whose
 * hook left something to a consumer, and wakes the owner thread of each whose consumer did not look since.
 */
final class DormancyWatch {
    /** How long a consumer may not look before its association's owner thread reads again: a millisecond. */
    static final long GRACE_NANOS = 1_000_000;
    private static final Queue<DdpAssociation> REQUESTS = new ConcurrentLinkedQueue<>();
    private static final Thread THREAD = Thread.ofPlatform().daemon().name("sctp-dormancy-watch")
            .start(DormancyWatch::run);

    private DormancyWatch() {
    }

    /** Watches {@code association} until {@link DdpAssociation#lookAfterGrace()} says it is done. Any thread. */
    static void watch(DdpAssociation association) {
        REQUESTS.offer(association);
        LockSupport.unpark(THREAD);
    }

    private static void run() {
        List<DdpAssociation> watched = new ArrayList<>();
        while (true) {
            for (DdpAssociation association = REQUESTS.poll(); association != null; association = REQUESTS.poll()) {
                watched.add(association);
            }
            if (watched.isEmpty()) {
                LockSupport.park();
                continue;
            }
            LockSupport.parkNanos(GRACE_NANOS);
            watched.removeIf(DdpAssociation::lookAfterGrace);
        }
    }
}
