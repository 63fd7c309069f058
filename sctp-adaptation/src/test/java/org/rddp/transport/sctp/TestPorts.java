package org.rddp.transport.sctp;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** SCTP ports for the tests of one JVM: one counter, so no two listeners ever ask for the same port. */
final class TestPorts {
    private static final AtomicInteger NEXT = new AtomicInteger(20000 + ThreadLocalRandom.current().nextInt(20000));

    private TestPorts() {
    }

    /** A port no other test of this JVM was given. */
    static int next() {
        return NEXT.incrementAndGet();
    }
}
