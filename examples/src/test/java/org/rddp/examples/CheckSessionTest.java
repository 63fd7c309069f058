package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rddp.check.Verdict;

/** {@link CheckSession} over each transport: this stack's responder passes every initiator check. */
class CheckSessionTest {

    @ParameterizedTest
    @ValueSource(strings = {"mpa", "sctp"})
    void theServerStartedHerePassesEveryCase(String transport) throws Exception {
        List<Verdict> told = new ArrayList<>();

        List<Verdict> verdicts = CheckSession.run(transport, told::add);

        assertThat(told).as("each verdict handed over as it came").isEqualTo(verdicts);
        // the matrix as it stands: 16 MPA cases, 19 SCTP ones (SctpInitiatorChecks, MpaInitiatorChecks)
        assertThat(verdicts).hasSizeGreaterThanOrEqualTo(transport.equals("mpa") ? 16 : 19);
        assertThat(verdicts).extracting(Verdict::id).doesNotHaveDuplicates();
        assertThat(verdicts).allSatisfy(verdict -> assertThat(verdict.outcome()).as(verdict.toString())
                .isEqualTo(Verdict.Outcome.PASS));
    }
}
