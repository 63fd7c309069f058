/**
 * The lower-layer protocol (LLP) service interface between the DDP/RDMAP engine and a transport (RFC 5041 §3):
 * MPA over TCP (RFC 5044) and the SCTP adaptation (RFC 5043) implement {@link org.rddp.llp.LlpStream}; the
 * engine implements {@link org.rddp.llp.LlpSink}.
 *
 * <p>Threading: every LLP stream lives on one {@link org.rddp.loop.Loop}, whose thread owns its socket. The LLP
 * calls the sink only on it, the engine calls the stream only on it, and other threads queue commands on the loop.
 *
 * <p>Abbreviations: MULPDU = largest DDP segment the LLP accepts, IRD/ORD = inbound/outbound RDMA Read queue
 * depth, RTR = ready-to-receive indication of RFC 6581.
 */
package org.rddp.llp;
