/**
 * A hand-driven MPA peer that writes startup frames and FPDUs octet by octet, legal or not, for the session-control
 * interop checks ({@code org.rddp.check}) and the tests; exported to the checks only, not part of the API.
 */
package org.rddp.transport.mpa.raw;
