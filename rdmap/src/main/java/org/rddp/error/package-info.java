/**
 * The error vocabulary of RDDP: every Terminate cause of RFC 5040 §4.8 (RDMAP), RFC 5041 §7.2 (DDP),
 * RFC 5044 §8 (MPA) and RFC 6581 §8 (enhanced MPA), as enums carrying their wire values, with the
 * registries of RFC 6580 §3.
 *
 * <p>Abbreviations: EType = error type (4 bits), HdrCt = header control bits M, D, R of the Terminate
 * Control field, LLP = lower layer protocol (MPA/TCP or SCTP).
 */
package org.rddp.error;
