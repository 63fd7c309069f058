/**
 * {@code rddp exs-bw} and {@code rddp exs-lat}: the Extended Sockets API measured as section 5 of the UNH-EXS paper
 * measures it, next to the same transport's RDMA Read and a TCP socket.
 */
package org.rddp.cli.exs;
