package org.rddp.interop.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the VM tests take as "every test passed in the guest" ({@link Vm#assertAllPassed}): the methods that passed
 * there, a parameterized one once, against what discovery finds on the host; a skipped test shows as one short.
 */
class GuestMainTest {

    /** Runs in {@link GuestMain} only: two test methods, one of them with three invocations. */
    static final class TwoMethods {
        @Test
        void plain() {
            assertThat(1).isOne();
        }

        @ParameterizedTest
        @ValueSource(ints = {1, 2, 3})
        void parameterized(int value) {
            assertThat(value).isPositive();
        }
    }

    /** Runs in {@link GuestMain} only: one method passes, one is skipped. */
    static final class OneSkipped {
        @Test
        void plain() {
            assertThat(1).isOne();
        }

        @Test
        @Disabled("to show that a skipped test is seen")
        void skipped() {
        }
    }

    private static String run(Class<?> suite) {
        StringWriter text = new StringWriter();
        GuestMain.run(new PrintWriter(text, true), suite.getName());
        return text.toString();
    }

    @Test
    void everyMethodThatPassedCountsOnceAndMatchesWhatTheHostDiscovers() {
        assertThat(GuestMain.testMethods(TwoMethods.class.getName())).isEqualTo(2);
        String output = run(TwoMethods.class);
        assertThat(output).contains("GUEST-RESULT succeeded=4 failed=0 aborted=0\n", "GUEST-METHODS passed=2\n");
        Vm.assertAllPassed(new Vm.Outcome(0, output), TwoMethods.class.getName());
    }

    @Test
    void aSkippedMethodLeavesTheGuestOneShortOfTheHost() {
        assertThat(GuestMain.testMethods(OneSkipped.class.getName())).isEqualTo(2);
        String output = run(OneSkipped.class);
        assertThat(output).contains("GUEST-RESULT succeeded=1 failed=0 aborted=0\n", "GUEST-METHODS passed=1\n");
    }
}
