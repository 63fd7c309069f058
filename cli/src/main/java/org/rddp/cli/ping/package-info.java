/** {@code rddp ping}: rping's client and server, with rping's protocol: the peer of rdma-core's {@code rping}. */
package org.rddp.cli.ping;
