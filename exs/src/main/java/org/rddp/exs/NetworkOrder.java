package org.rddp.exs;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The unaligned network-order layouts the EXS codecs read and write. */
final class NetworkOrder {
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private NetworkOrder() {
    }
}
