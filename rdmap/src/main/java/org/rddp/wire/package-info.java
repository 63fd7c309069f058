/**
 * Shared wire-level vocabulary: big-endian field access on {@link java.lang.foreign.MemorySegment}s, the
 * outcome of decoding a frame ({@link org.rddp.wire.DecodeStatus}), and the opaque private data carried by
 * MPA Request/Reply frames (RFC 5044 §7.1.1) and SCTP session control chunks (RFC 5043 §5.2.3).
 *
 * <p>Conventions: all multi-octet fields are big-endian (network order) unless a class says otherwise;
 * unsigned 32-bit fields live in {@code int} and are compared with {@link Integer#compareUnsigned}.
 */
package org.rddp.wire;
