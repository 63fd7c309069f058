package org.rddp.cli.perftest;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

/**
 * Each message's arrival at a receiver, for a failover point: messages and octets in bins of {@link #BIN_NANOS} from
 * when it was made, and the longest gap between two arrivals with when it ended, all placed on the wall clock, so that
 * they line up with when a path failed. The receiving thread notes arrivals; nothing is allocated per message. What
 * arrives after {@code span} is counted, not binned. A requester's arrivals are answers: each is noted with when its
 * request was sent ({@link #answered}), the first {@code answers} of them kept one by one, so that each request's
 * round trip can be placed on the same clock.
 */
public final class Arrivals {
    /** A bin's width: a millisecond, finer than any failover worth telling apart. */
    public static final long BIN_NANOS = 1_000_000L;

    private final Instant start = Instant.now();
    private final long startNanos = System.nanoTime();
    private final int[] messagesIn;
    private final long[] octetsIn;
    /** Messages so far: read by the thread that waits for the transfer to be under way. */
    private volatile long messages;
    private long octets;
    private long first = -1;
    private long last;
    private long longestGap;
    private long gapEnded;
    /** Per answer kept, from the start: when its request was sent, and when it arrived. */
    private final long[] asked;
    private final long[] answeredAt;
    private int answers;

    /** For a transfer of at most {@code span} from now. */
    public Arrivals(Duration span) {
        this(span, 0);
    }

    /** For requests and their answers over at most {@code span} from now, the first {@code answers} kept each. */
    public Arrivals(Duration span, int answers) {
        int bins = (int) Math.min(Integer.MAX_VALUE - 8, span.toNanos() / BIN_NANOS + 1);
        messagesIn = new int[bins];
        octetsIn = new long[bins];
        asked = new long[answers];
        answeredAt = new long[answers];
    }

    /**
     * The answer of {@code size} octets to a request sent at {@code askedNanos} ({@link System#nanoTime}) arrived now.
     * The receiving thread.
     */
    public void answered(int size, long askedNanos) {
        arrived(size);
        if (answers < asked.length) {
            asked[answers] = askedNanos - startNanos;
            answeredAt[answers] = last - startNanos;
            answers++;
        }
    }

    /** A message of {@code size} octets arrived now. The receiving thread. */
    public void arrived(int size) {
        long now = System.nanoTime();
        long bin = (now - startNanos) / BIN_NANOS;
        if (bin < messagesIn.length) {
            messagesIn[(int) bin]++;
            octetsIn[(int) bin] += size;
        }
        if (first < 0) {
            first = now;
        } else if (now - last > longestGap) {
            longestGap = now - last;
            gapEnded = now;
        }
        last = now;
        octets += size;
        messages = messages + 1; // one writer
    }

    /** Messages arrived so far. Any thread. */
    public long messages() {
        return messages;
    }

    /** What arrived, once the receiver is done. */
    public Trace trace() {
        return new Trace(start, Duration.ofNanos(BIN_NANOS), messagesIn.clone(), octetsIn.clone(), messages, octets,
                first < 0 ? null : at(first), first < 0 ? null : at(last), Duration.ofNanos(longestGap),
                longestGap == 0 ? null : at(gapEnded), Arrays.copyOf(asked, answers),
                Arrays.copyOf(answeredAt, answers));
    }

    private Instant at(long nanos) {
        return start.plusNanos(nanos - startNanos);
    }

    /**
     * What a receiver saw: per bin from {@code start}, the messages and octets that arrived in it; the totals; the
     * first and last arrival (null: none); the longest gap between two arrivals and when it ended (null: none); for
     * answers, when each one's request was sent and when it arrived (nanoseconds from {@code start}).
     */
    public record Trace(Instant start, Duration bin, int[] messagesIn, long[] octetsIn, long messages, long octets,
            Instant first, Instant last, Duration longestGap, Instant gapEnded, long[] asked, long[] answered) {
        /** Without answers: a transfer's. */
        public Trace(Instant start, Duration bin, int[] messagesIn, long[] octetsIn, long messages, long octets,
                Instant first, Instant last, Duration longestGap, Instant gapEnded) {
            this(start, bin, messagesIn, octetsIn, messages, octets, first, last, longestGap, gapEnded, new long[0],
                    new long[0]);
        }

        /** Answers kept. */
        public int answers() {
            return asked.length;
        }

        /** When the request of answer {@code index} was sent. */
        public Instant askedAt(int index) {
            return start.plusNanos(asked[index]);
        }

        /** The round trip of answer {@code index}'s request. */
        public Duration roundTrip(int index) {
            return Duration.ofNanos(answered[index] - asked[index]);
        }

        /** When answer {@code index} arrived. */
        public Instant answeredAt(int index) {
            return start.plusNanos(answered[index]);
        }

        /** The bin {@code at} falls in: negative before the start, past the last one after the end. */
        public int binOf(Instant at) {
            return (int) Math.floorDiv(Duration.between(start, at).toNanos(), bin.toNanos());
        }

        /** When bin {@code index} begins. */
        public Instant begins(int index) {
            return start.plusNanos(index * bin.toNanos());
        }

        /** Octets that arrived from {@code from} (inclusive) to {@code to} (exclusive), to the bin. */
        public long octetsBetween(Instant from, Instant to) {
            int a = Math.max(0, binOf(from));
            int b = Math.min(octetsIn.length, binOf(to));
            long sum = 0;
            for (int i = a; i < b; i++) {
                sum += octetsIn[i];
            }
            return sum;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Trace t && start.equals(t.start) && Arrays.equals(messagesIn, t.messagesIn)
                    && Arrays.equals(octetsIn, t.octetsIn) && messages == t.messages && octets == t.octets
                    && Arrays.equals(asked, t.asked) && Arrays.equals(answered, t.answered);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(messagesIn) * 31 + Long.hashCode(octets);
        }

        @Override
        public String toString() {
            return messages + " messages, " + octets + " octets from " + first + " to " + last + ", longest gap "
                    + longestGap.toMillis() + " ms ended " + gapEnded;
        }
    }
}
