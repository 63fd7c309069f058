/**
 * A hand-driven SCTP peer that speaks RFC 5043's wire format chunk by chunk, legal or not, for the session-control
 * interop checks ({@code org.rddp.check}) and the tests; exported to the checks only, not part of the API.
 */
package org.rddp.transport.sctp.raw;
