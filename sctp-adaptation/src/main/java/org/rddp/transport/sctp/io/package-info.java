/**
 * The socket layer the SCTP backends share, not exported: libc and epoll through {@code java.lang.foreign}
 * ({@link org.rddp.posix.Posix}, {@link org.rddp.transport.sctp.io.EpollPoller}), the native socket both
 * backends build on and what keeps its calls and its close apart, the listening socket that hands associations to a
 * loop, and the per-backend shared loops for sockets nobody gave a loop.
 */
package org.rddp.transport.sctp.io;
