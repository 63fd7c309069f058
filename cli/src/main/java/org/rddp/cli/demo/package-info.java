/** {@code rddp demo}: a frame of every wire format, encoded, decoded back and printed. */
package org.rddp.cli.demo;
