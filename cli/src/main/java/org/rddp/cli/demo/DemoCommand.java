package org.rddp.cli.demo;

import java.util.concurrent.Callable;
import org.rddp.wire.MalformedFrameException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code rddp demo}: the wire-format demo. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Encodes a frame of every wire format, decodes it back and prints both.")
public final class DemoCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws MalformedFrameException {
        new WireDemo(spec.commandLine().getOut()).run();
        return 0;
    }
}
