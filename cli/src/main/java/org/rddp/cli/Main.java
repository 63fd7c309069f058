package org.rddp.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.rddp.cli.compare.CompareCommand;
import org.rddp.cli.demo.DemoCommand;
import org.rddp.cli.exs.ExsCommand;
import org.rddp.cli.interop.InteropCommand;
import org.rddp.cli.perftest.PerfCommand;
import org.rddp.cli.ping.PingCommand;
import org.rddp.llp.Counters;
import org.rddp.verbs.ConnectionManagerView;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code rddp} command. Without a subcommand it runs the main job, with the options given. */
@Command(name = "rddp", mixinStandardHelpOptions = true, versionProvider = Version.Provider.class,
        description = "RDMA (RFC 5040/5041) over SCTP (RFC 5043) and TCP/MPA (RFC 5044), with RFC 6581 setup.",
        subcommands = {CompareCommand.class, PingCommand.class, InteropCommand.class, ExsCommand.Bandwidth.class,
                ExsCommand.Latency.class, DemoCommand.class, org.rddp.cli.compare.TimelineChartCommand.class})
public final class Main implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The options of {@code rddp} itself; any other option with no command before it is the main job's. */
    private static final List<String> TOP_LEVEL = List.of("-h", "--help", "-V", "--version");

    private Main() {
    }

    /** Runs {@code rddp args} and exits with its status. */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs {@code rddp args}, printing to {@code out} and {@code err}; returns the exit status. Options with no
     * command before them are the main job's: {@code rddp -o DIR} is {@code rddp compare -o DIR}.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && args[0].startsWith("-") && !TOP_LEVEL.contains(args[0])) {
            String[] main = new String[args.length + 1];
            main[0] = "compare";
            System.arraycopy(args, 0, main, 1, args.length);
            args = main;
        }
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
            for (Throwable also : e.getSuppressed()) { // e.g. the other end's failure, which may explain this one
                cmd.getErr().println("rddp: and " + also.getMessage());
            }
            return 1;
        });
        // a server runs until a signal ends the process: its counters are printed on the way out too
        java.util.concurrent.atomic.AtomicBoolean printed = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable printOnce = () -> {
            if (printed.compareAndSet(false, true)) {
                printCounters(line.getErr());
                line.getErr().flush();
            }
        };
        Thread onSignal = List.of(args).contains("--stats") ? Thread.ofPlatform().unstarted(printOnce) : null;
        if (onSignal != null) {
            Runtime.getRuntime().addShutdownHook(onSignal);
        }
        int status = line.execute(args);
        if (onSignal != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException shuttingDown) {
                // the hook prints them, or already did
            }
        }
        if (asked(line.getParseResult(), "--stats")) {
            printOnce.run();
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

    /**
     * The process's counters ({@link Counters#process}), one per line; then each connection manager still open (a
     * server stopped by a signal has its own): its counters that are not zero and its queue pairs' statistics, as
     * its MXBean shows them.
     */
    static void printCounters(PrintWriter err) {
        err.println("rddp: counters of this process:");
        Counters.process().snapshot().forEach((counter, value) ->
                err.printf("  %-22s %d%n", counter.label(), value));
        java.util.Map<String, Long> usrsctp = org.rddp.transport.sctp.usrsctp.UsrsctpStack.statistics();
        if (!usrsctp.isEmpty()) { // how its losses were repaired: what decides SCTP's bandwidth on a lossy path
            err.println("rddp: usrsctp's own counters (this process):");
            usrsctp.forEach((name, value) -> err.printf("  %-22s %d%n", name, value));
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> managers;
        try {
            managers = new TreeSet<>(server.queryNames(new ObjectName("org.rddp:type=ConnectionManager,*"), null));
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        for (ObjectName name : managers) {
            ConnectionManagerView manager = JMX.newMXBeanProxy(server, name, ConnectionManagerView.class);
            try {
                err.printf("rddp: %s connection manager at %s (%s):%n", manager.getTransport(),
                        manager.getLocalAddress(), name);
                manager.getCounters().forEach((label, value) -> {
                    if (value != 0) {
                        err.printf("  %-22s %d%n", label, value);
                    }
                });
                manager.getQueuePairs().forEach(qp -> err.printf("  queue pair %d %s: %d sends %d octets, %d receives"
                        + " %d octets%s%s%s%n", qp.queuePair(), qp.state(), qp.sendsCompleted(), qp.octetsSent(),
                        qp.receivesCompleted(), qp.octetsReceived(), qp.terminateSent() ? ", Terminate sent" : "",
                        qp.terminateReceived() ? ", Terminate received" : "", qp.lost() ? ", lost" : ""));
            } catch (UndeclaredThrowableException e) {
                // closed while we looked: nothing left to say of it
            }
        }
    }

    /** The main job on its embedded default: {@code rddp compare}. */
    @Override
    public Integer call() {
        return spec.commandLine().execute("compare");
    }
}
