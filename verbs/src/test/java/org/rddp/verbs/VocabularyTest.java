package org.rddp.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The verbs' words and the engine's name the same things in the same order: {@link Vocabulary} maps by position. */
class VocabularyTest {

    private static String[] names(Enum<?>[] constants) {
        return Arrays.stream(constants).map(Enum::name).toArray(String[]::new);
    }

    @Test
    void everyEngineWordHasItsVerbsWordAtTheSamePosition() {
        assertThat(names(WcStatus.values())).containsExactly(names(org.rddp.engine.WcStatus.values()));
        assertThat(names(QpState.values())).containsExactly(names(org.rddp.engine.QpState.values()));
        assertThat(names(QpEvent.values())).containsExactly(names(org.rddp.engine.QpEvent.values()));
        assertThat(names(WorkOpcode.values())).containsExactly(names(org.rddp.engine.WorkOpcode.values()));
        for (org.rddp.engine.WcStatus status : org.rddp.engine.WcStatus.values()) {
            assertThat(Vocabulary.status(status).name()).isEqualTo(status.name());
        }
        for (WorkOpcode opcode : WorkOpcode.values()) {
            assertThat(Vocabulary.operation(opcode).name()).isEqualTo(opcode.name());
        }
    }
}
