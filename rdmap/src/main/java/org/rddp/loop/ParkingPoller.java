package org.rddp.loop;

import java.util.concurrent.locks.LockSupport;

/** A {@link Poller} without I/O: {@link #await} parks the loop thread until {@link #wakeup}. */
final class ParkingPoller implements Poller {
    private volatile Thread waiter;
    private volatile boolean woken;

    @Override
    public int poll() {
        return 0;
    }

    @Override
    public void await(long timeoutNanos) {
        waiter = Thread.currentThread();
        if (!woken) { // set before the waiter was: the wake-up is not lost, it is seen here
            if (timeoutNanos < 0) {
                LockSupport.park(this);
            } else if (timeoutNanos > 0) {
                LockSupport.parkNanos(this, timeoutNanos);
            }
        }
        waiter = null;
        woken = false;
    }

    @Override
    public void wakeup() {
        woken = true;
        Thread thread = waiter;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void close() {
        // nothing held
    }
}
