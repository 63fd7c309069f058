package org.rddp.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** This build's version ({@code project.version}, written into {@code version.properties} by the build). */
public final class Version {
    /** The version, e.g. "0.1.0-SNAPSHOT". */
    public static final String NUMBER = read();

    private Version() {
    }

    /** What {@code rddp --version} says: "rddp 0.1.0-SNAPSHOT" and, where the launcher said it, the commit. */
    static final class Provider implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String commit = System.getProperty("rddp.commit");
            return new String[] {"rddp " + NUMBER + (commit == null ? "" : " (commit " + commit + ")")};
        }
    }

    private static String read() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the CLI's jar");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
