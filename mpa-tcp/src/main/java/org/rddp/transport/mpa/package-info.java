/**
 * DDP over TCP with MPA (RFC 5044) and the enhanced setup of RFC 6581. {@link
 * org.rddp.transport.mpa.MpaConnectionManager} runs the startup phase (Request/Reply, revision 1 and 2, markers
 * and CRC negotiation, IRD/ORD, peer-to-peer RTR) on the loop the connection will live on, non-blocking, within
 * deadlines the loop keeps, then hands the socket to an {@code MpaStream} on the same loop for Full Operation: FPDUs
 * with CRC32c, markers when the peer asked for them, payload gathered from registered memory on send and FPDUs
 * checked in place in the receive buffer.
 *
 * <p>Abbreviations: FPDU = framed protocol data unit, ULPDU = upper-layer PDU (a DDP segment), MULPDU = largest
 * ULPDU, EMSS = effective maximum segment size, RTR = ready to receive, PD = private data.
 */
package org.rddp.transport.mpa;
