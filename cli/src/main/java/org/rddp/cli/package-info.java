/**
 * The rddp command-line tool: {@link org.rddp.cli.Main}, the {@code rddp} command, and what its command families (one
 * sub-package each) share: the transport options, waiting for completions and on a manual loop, a peer's failure.
 */
package org.rddp.cli;
