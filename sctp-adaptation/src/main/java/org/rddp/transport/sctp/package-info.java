/**
 * The SCTP adaptation of RFC 5043 with RFC 6581 §7: one SCTP association carries many DDP streams, each a pair
 * of like-numbered SCTP streams; every chunk is unordered and starts with its DDP-SSN; PPID 16 carries DDP
 * segments and PPID 17 session control. {@link org.rddp.transport.sctp.SctpSocket} is the small interface the
 * backends implement (usrsctp, and the kernel's SCTP through lksctp); everything above it is shared. An
 * association lives on one loop from its first packet to its last: connect, accept, the check of the peer's
 * Adaptation Layer Indication and every timeout run there, none of them blocking.
 *
 * <p>Abbreviations: DDP-SSN = DDP source sequence number, PPID = payload protocol identifier, PMTU = path MTU.
 */
package org.rddp.transport.sctp;
