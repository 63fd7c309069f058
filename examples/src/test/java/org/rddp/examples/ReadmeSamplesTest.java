package org.rddp.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's two code samples are real code: each is, verbatim, the region of an example between
 * {@code // readme:NAME:begin} and {@code // readme:NAME:end}, less the indentation the region's lines share.
 */
class ReadmeSamplesTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCES = Path.of("src", "main", "java", "org", "rddp", "examples");
    private static final Pattern JAVA_BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```$", Pattern.DOTALL);

    @Test
    void theReadmesJavaBlocksAreTheVerbsAndExsRegionsInThatOrder() throws IOException {
        List<String> blocks = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(Files.readString(README));
        while (block.find()) {
            blocks.add(block.group(1));
        }

        assertThat(blocks).containsExactly(region("verbs", "WriteAndRead.java"), region("exs", "ExsEchoServer.java"));
    }

    @Test
    void eachRegionIsMarkedOnceInOneSourceOnly() throws IOException {
        for (String name : List.of("verbs", "exs")) {
            long marked;
            try (Stream<Path> sources = Files.list(SOURCES)) {
                marked = sources.filter(source -> read(source).contains("// readme:" + name + ":begin")).count();
            }
            assertThat(marked).as("sources marking the %s region", name).isEqualTo(1);
        }
    }

    /** The lines between the region's markers, less their common indentation, each ending in a newline. */
    private static String region(String name, String file) throws IOException {
        List<String> lines = Files.readAllLines(SOURCES.resolve(file));
        List<Integer> begins = marked(lines, "// readme:" + name + ":begin");
        List<Integer> ends = marked(lines, "// readme:" + name + ":end");
        assertThat(begins).as("%s marks the %s region's beginning once", file, name).hasSize(1);
        assertThat(ends).as("%s marks the %s region's end once", file, name).hasSize(1);
        assertThat(ends.getFirst()).as("an end after the beginning").isGreaterThan(begins.getFirst() + 1);
        List<String> region = lines.subList(begins.getFirst() + 1, ends.getFirst());
        int indent = region.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : region) {
            text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return text.toString();
    }

    /** The indexes of the lines that hold {@code marker} alone. */
    private static List<Integer> marked(List<String> lines, String marker) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                at.add(i);
            }
        }
        return at;
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
