package org.rddp.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.rddp.verbs.Counters;
import org.rddp.wire.MalformedFrameException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code rddp} command. Without a subcommand it runs the main job. */
@Command(name = "rddp", mixinStandardHelpOptions = true, version = "rddp 0.1.0",
        description = "RDMA (RFC 5040/5041) over SCTP (RFC 5043) and TCP/MPA (RFC 5044), with RFC 6581 setup.",
        subcommands = {CompareCommand.class, PingCommand.class, InteropCommand.class, ExsCommand.Bandwidth.class,
                ExsCommand.Latency.class, Main.Demo.class})
public final class Main implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    /** Runs {@code rddp args} and exits with its status. */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Runs {@code rddp args}, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine line = new CommandLine(new Main());
        PerfCommand.all().forEach((name, command) -> {
            CommandLine sub = new CommandLine(command);
            sub.getCommandSpec().usageMessage().description(command.description());
            line.addSubcommand(name, sub);
        });
        line.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        line.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("rddp: " + e.getMessage());
            return 1;
        });
        int status = line.execute(args);
        if (asked(line.getParseResult(), "--stats")) {
            printCounters(line.getErr());
        }
        line.getOut().flush();
        line.getErr().flush();
        return status;
    }

    private static boolean asked(CommandLine.ParseResult parsed, String option) {
        for (CommandLine.ParseResult at = parsed; at != null; at = at.subcommand()) {
            if (at.hasMatchedOption(option)) {
                return true;
            }
        }
        return false;
    }

    /** The counters of {@link Counters}, one per line. */
    static void printCounters(PrintWriter err) {
        err.println("rddp: counters of this process:");
        Counters.snapshot().forEach((counter, value) ->
                err.printf("  %-22s %d%n", counter.label(), value));
    }

    /** The main job on its embedded default: {@code rddp compare}. */
    @Override
    public Integer call() {
        return spec.commandLine().execute("compare");
    }

    /** {@code rddp demo}: the wire-format demo. */
    @Command(name = "demo", mixinStandardHelpOptions = true,
            description = "Encodes a frame of every wire format, decodes it back and prints both.")
    static final class Demo implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws MalformedFrameException {
            new WireDemo(spec.commandLine().getOut()).run();
            return 0;
        }
    }
}
