/**
 * The C library's socket calls the transports share (the SCTP backends' native sockets, Multipath TCP for MPA),
 * through {@code java.lang.foreign} with errno captured, and Linux x86-64's constants and layouts for them. Exported
 * to the transports only: nothing here is an API.
 */
package org.rddp.posix;
