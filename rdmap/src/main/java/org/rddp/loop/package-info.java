/**
 * Progress: the loops that run the engines and own the transports' I/O, in the manner of Aeron's agents.
 *
 * <p>A {@link org.rddp.loop.Loop} owns a {@link org.rddp.loop.Poller} (the transport's sockets: a selector over
 * TCP connections, an epoll over UDP or SCTP sockets) and every stream registered with it. One duty cycle runs the
 * commands other threads queued, then the I/O that is ready, and the engines inside it; it returns the work done.
 * Who drives a loop is fixed when it is made ({@link org.rddp.loop.Progress}): its own thread, which idles as its
 * {@link org.rddp.loop.IdleStrategy} says (blocking in the poller, never on a timer), or the application thread that
 * made it, which runs the duty cycle whenever it polls a completion queue or waits on one. No other thread ever
 * runs engine code: other threads queue commands.
 */
package org.rddp.loop;
