package org.rddp.verbs.internal;

import org.rddp.llp.LlpStream;
import org.rddp.loop.Loop;
import org.rddp.verbs.QueuePair;

/**
 * How {@link org.rddp.verbs.spi} reaches what {@code org.rddp.verbs} keeps from its users (the JDK's
 * {@code SharedSecrets} pattern): the verbs package installs it when {@link QueuePair} is initialised. Not exported.
 */
public final class VerbsAccess {
    /** What the SPI may do to a queue pair. */
    public interface QueuePairAccess {
        /** Binds {@code qp} to an established stream living on {@code on}; see {@code QueuePair.attach}. */
        void attach(QueuePair qp, LlpStream llp, Loop on);
    }

    private static volatile QueuePairAccess queuePairs;

    private VerbsAccess() {
    }

    /** Installed once, by {@link QueuePair}'s class initialiser. */
    public static void install(QueuePairAccess access) {
        queuePairs = access;
    }

    /** The access {@link QueuePair} installed; a queue pair given to the caller means its class was initialised. */
    public static QueuePairAccess queuePairs() {
        return queuePairs;
    }
}
