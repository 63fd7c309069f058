package org.rddp.check;

/**
 * One check against the peer: what the RFCs expect, what the peer put on the wire, and the judgement.
 *
 * @param id       a short name for the case
 * @param rfc      where the rule is written
 * @param sent     what this side did
 * @param expected what the RFCs ask of the peer
 * @param observed what the peer did on the wire
 * @param outcome  the judgement
 */
public record Verdict(String id, String rfc, String sent, String expected, String observed, Outcome outcome) {

    /** The judgement of one case. */
    public enum Outcome {
        /** The peer did what the RFCs ask. */
        PASS,
        /** The peer did something else. */
        FAIL,
        /** The case does not apply to this peer (it did not ask for what the case needs). */
        NOT_APPLICABLE;

        /** As printed in tables. */
        public String label() {
            return switch (this) {
                case PASS -> "pass";
                case FAIL -> "FAIL";
                case NOT_APPLICABLE -> "n/a";
            };
        }
    }

    /** A case as it was set up, waiting for its observation. */
    record Case(String id, String rfc, String sent, String expected) {
        Verdict judged(String observed, boolean pass) {
            return new Verdict(id, rfc, sent, expected, observed, pass ? Outcome.PASS : Outcome.FAIL);
        }

        Verdict notApplicable(String why) {
            return new Verdict(id, rfc, sent, expected, why, Outcome.NOT_APPLICABLE);
        }
    }
}
