/**
 * Direct Data Placement, RFC 5041: the DDP segment and its tagged and untagged headers (§4).
 *
 * <p>Abbreviations: T = tagged flag, L = last flag, DV = DDP version, RsvdULP = octets reserved for the ULP
 * (RDMAP's control field and Invalidate STag), STag = steering tag, TO = tagged offset, QN = queue number,
 * MSN = message sequence number, MO = message offset, MULPDU = maximum ULPDU the LLP accepts.
 */
package org.rddp.ddp;
