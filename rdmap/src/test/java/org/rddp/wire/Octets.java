package org.rddp.wire;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/** Test vectors written as annotated hex. */
public final class Octets {
    private Octets() {
    }

    /** Parses hex digits, ignoring white space, '|' separators and comments from '#' to the end of a line. */
    public static byte[] hex(String text) {
        StringBuilder digits = new StringBuilder();
        for (String line : text.split("\n")) {
            int comment = line.indexOf('#');
            digits.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("[\\s|]", ""));
        }
        return HexFormat.of().parseHex(digits);
    }

    /** A heap segment over {@code octets}. */
    public static MemorySegment segment(byte[] octets) {
        return MemorySegment.ofArray(octets);
    }

    /** Octets as lower-case hex. */
    public static String toHex(byte[] octets) {
        return HexFormat.of().formatHex(octets);
    }
}
