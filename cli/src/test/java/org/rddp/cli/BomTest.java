package org.rddp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a user pins: the BOM lists every library module (those that publish sources and javadoc) at the build's
 * version, and {@code rddp --version} says that version.
 */
class BomTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern VERSION = Pattern.compile("<artifactId>rddp-parent</artifactId>\\s*<version>([^<]+)"
            + "</version>");

    @Test
    void theBomPinsEveryLibraryModuleAtTheBuildsVersion() throws Exception {
        Matcher version = VERSION.matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(version.find()).isTrue();
        String build = version.group(1);
        List<String> libraries = new ArrayList<>();
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (module.find()) {
            String pom = Files.readString(ROOT.resolve(module.group(1)).resolve("pom.xml"));
            if (pom.contains("<maven.javadoc.skip>false</maven.javadoc.skip>")) {
                Matcher artifact = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>").matcher(pom);
                assertThat(artifact.find()).as(module.group(1)).isTrue();
                libraries.add(artifact.group(1));
            }
        }
        assertThat(libraries).contains("rddp-rdmap", "rddp-verbs", "rddp-sctp-adaptation", "rddp-mpa-tcp",
                "rddp-exs", "rddp-session-check");
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
        assertThat(bom).contains("<artifactId>rddp-bom</artifactId>\n  <version>" + build + "</version>");
        Matcher pinned = Pattern.compile("<artifactId>(rddp-[a-z-]+)</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(bom.substring(bom.indexOf("<dependencyManagement>")));
        List<String> pins = new ArrayList<>();
        while (pinned.find()) {
            assertThat(pinned.group(2)).as(pinned.group(1)).isEqualTo(build);
            pins.add(pinned.group(1));
        }
        assertThat(pins).containsExactlyInAnyOrderElementsOf(libraries);
        assertThat(Version.NUMBER).isEqualTo(build);
    }

    @Test
    void versionSaysTheBuildsVersion() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"--version"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("rddp " + Version.NUMBER)
                .doesNotContain("${");
    }
}
