package org.rddp.cli.compare;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code compare --scenarios}: sets the network's conditions before each scenario by running the
 * {@code --scenario-command} with the scenario's words as arguments (e.g. {@code netns.sh loss 0.01}), and with
 * {@code clear} when the comparison ends, however it ends; what the command prints goes to the error stream. Without
 * a command, one scenario only names conditions set by something else (a container's {@code tc}, a VM's netem set
 * before the run).
 */
final class Scenarios implements AutoCloseable {
    /** How long the command may take to set a scenario. */
    private static final long COMMAND_SECONDS = 60;

    private final List<String> command;
    private final PrintWriter err;
    private boolean set;

    private Scenarios(List<String> command, PrintWriter err) {
        this.command = command;
        this.err = err;
    }

    /**
     * The setter for {@code scenarios} ({@code [null]}: none) through {@code command} (null: none).
     *
     * @throws IllegalArgumentException if several scenarios have no command to set them, a command has no scenarios,
     *                                  or a scenario is empty
     */
    static Scenarios of(String command, List<String> scenarios, PrintWriter err) {
        boolean none = scenarios.size() == 1 && scenarios.getFirst() == null;
        if (command == null) {
            if (scenarios.size() > 1) {
                throw new IllegalArgumentException("several --scenarios need a --scenario-command to set each");
            }
        } else if (none) {
            throw new IllegalArgumentException("--scenario-command needs --scenarios to run it with");
        }
        if (!none && scenarios.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("a scenario has words, e.g. 'loss 0.01'");
        }
        return new Scenarios(command == null ? null : Arrays.asList(command.strip().split(" +")), err);
    }

    /** Sets {@code scenario} (null: the network as it is, nothing to set). */
    void set(String scenario) throws IOException, InterruptedException {
        if (command == null || scenario == null) {
            return;
        }
        err.println("compare: network: " + scenario);
        err.flush();
        set = true;
        run(Arrays.asList(scenario.split(" +")), COMMAND_SECONDS);
    }

    /**
     * Runs the command with {@code words} (a failover's {@code fail} or {@code flap}, which fails a path and brings it
     * back before it returns), allowing it {@code longest} more than its own {@link #COMMAND_SECONDS}; returns what it
     * printed, which also goes to the error stream.
     *
     * @throws IllegalStateException if there is no command
     */
    String fault(List<String> words, java.time.Duration longest) throws IOException, InterruptedException {
        if (command == null) {
            throw new IllegalStateException("a failover needs a --scenario-command to fail a path with");
        }
        set = true;
        return run(words, COMMAND_SECONDS + longest.toSeconds());
    }

    /** Clears what the last scenario set: the command with {@code clear}. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (set) {
            set = false;
            run(List.of("clear"), COMMAND_SECONDS);
        }
    }

    private String run(List<String> words, long seconds) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(command);
        line.addAll(words);
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] said = process.getInputStream().readAllBytes(); // until it exits (or closes its output)
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", line) + " did not finish within " + seconds + " s");
        }
        String output = new String(said, StandardCharsets.UTF_8).strip();
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", line) + " failed (exit " + process.exitValue() + "): " + output);
        }
        output.lines().forEach(each -> err.println("compare: " + each)); // what the scenario did, as it says
        err.flush();
        return output;
    }
}
