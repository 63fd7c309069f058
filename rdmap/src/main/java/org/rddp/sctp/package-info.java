/**
 * DDP over SCTP, RFC 5043, with the enhanced session control of RFC 6581 §7: the DDP Segment chunk
 * (PPID 16) and the DDP Stream Session Control chunk (PPID 17), their DDP-SSN, the function codes 0x1-0x7, and
 * the Adaptation Layer Indication code point. No I/O.
 *
 * <p>Abbreviations: DDP-SSN = DDP source sequence number (per SCTP stream and direction, §5.2.1), PPID =
 * payload protocol identifier, PD = private data, IRD/ORD = inbound/outbound RDMA Read queue depth.
 */
package org.rddp.sctp;
