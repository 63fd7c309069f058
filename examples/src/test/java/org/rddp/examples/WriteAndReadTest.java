package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link WriteAndRead} over each transport: the octets written reach the peer and come back intact. */
class WriteAndReadTest {

    @ParameterizedTest
    @ValueSource(strings = {"mpa", "sctp"})
    void writesIntoThePeersMemoryAndReadsTheSameOctetsBack(String transport) throws Exception {
        WriteAndRead.Result result = WriteAndRead.run(transport);

        assertThat(result.transport()).isEqualTo(transport);
        assertThat(result.written()).as("the Write's completion").isEqualTo(WriteAndRead.SIZE);
        assertThat(result.read()).as("the Read's completion").isEqualTo(WriteAndRead.SIZE);
        assertThat(result.completions()).isEqualTo(2);
        assertThat(result.verified()).as("the peer's region and the buffer read back hold what was written")
                .isTrue();
    }
}
