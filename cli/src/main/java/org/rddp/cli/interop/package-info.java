/**
 * {@code rddp interop}: the session-control interop checks of {@code org.rddp.check} against a peer, as initiator or
 * as responder, or this stack's own accepting responder for other implementations' checks.
 */
package org.rddp.cli.interop;
