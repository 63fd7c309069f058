/**
 * Marker PDU Aligned framing, RFC 5044, with the enhanced connection setup of RFC 6581: the MPA Request and
 * Reply frames (§7.1.1, RFC 6581 §6), FPDU framing with PAD and CRC32c (§4.1, §4.4), Markers every 512 octets
 * of the stream (§4.2, §4.3) and the MULPDU formula (§4.5). No I/O: transports feed bytes in and take bytes out.
 *
 * <p>Abbreviations: FPDU = framed PDU, ULPDU = upper layer PDU (one DDP segment), MULPDU = maximum ULPDU,
 * EMSS = effective maximum segment size of TCP, FPDUPTR = a Marker's back-pointer to its FPDU's header,
 * PD = private data, M/C/R/S = markers/CRC/reject/enhanced flags.
 */
package org.rddp.mpa;
