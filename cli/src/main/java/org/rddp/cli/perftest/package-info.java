/**
 * {@code rddp write-bw}, {@code read-bw}, {@code send-bw}, {@code write-lat}, {@code read-lat} and {@code send-lat}:
 * perftest's tools with perftest's rdma_cm control protocol and output, each the peer of perftest's {@code -R} run;
 * their session and results are also what {@code rddp compare} measures RDDP with.
 */
package org.rddp.cli.perftest;
