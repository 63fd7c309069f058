/**
 * Session-control interop checks (RFC 5044 and RFC 6581 over TCP; RFC 5043 and RFC 6581 §7 over SCTP): each check
 * set plays one side of the setup by hand, legal and illegal, and judges what the peer does on the wire.
 */
package org.rddp.check;
