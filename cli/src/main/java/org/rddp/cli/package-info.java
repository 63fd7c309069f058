/** The rddp command-line tool: for now a loopback demo that encodes, frames, decodes and prints real frames. */
package org.rddp.cli;
