/**
 * Remote Direct Memory Access Protocol, RFC 5040: the RDMAP control field and opcodes (§4.1, §4.2), the RDMA
 * Read Request header (§4.4), the Terminate header (§4.8), and the enhanced RDMA connection establishment data
 * of RFC 6581 §9 shared by MPA and SCTP.
 *
 * <p>Abbreviations: RV = RDMAP version, STag = steering tag, TO = tagged offset, RDMARDSZ = RDMA Read message
 * size, IRD/ORD = inbound/outbound RDMA Read queue depth, RTR = ready to receive (RFC 6581 §3), SE = solicited
 * event.
 */
package org.rddp.rdmap;
