package org.rddp.interop.vm;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs JUnit test classes inside the VM and says how it went: a line per test with its time, the summary, then
 * {@code GUEST-RESULT succeeded=N failed=N aborted=N}, then {@code GUEST-METHODS passed=N}: the test methods that ran
 * and passed, a parameterized one counting once (the host compares it with what it discovers in the same classes,
 * {@link #testMethods}, so that a test skipped or not found in the guest is seen); exits 0 only if tests ran and
 * none failed or was aborted. Arguments: the classes. Everything runs ~10x slower under emulation, so a test may
 * take up to 10 minutes.
 */
public final class GuestMain {
    private GuestMain() {
    }

    /** The test method {@code test} runs (an invocation of a parameterized one, say), or null. */
    static String method(TestIdentifier test) {
        return test.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                .map(source -> source.getClassName() + "#" + source.getMethodName() + "("
                        + source.getMethodParameterTypes() + ")").orElse(null);
    }

    /** The discovery request for {@code classes}, the same in the guest and on the host. */
    private static LauncherDiscoveryRequest request(String... classes) {
        return LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(classes).map(DiscoverySelectors::selectClass).toList())
                .configurationParameter("junit.jupiter.execution.timeout.default", "600 s")
                .configurationParameter("jqwik.database", "target/jqwik-database") // as the host's Surefire has it
                .build();
    }

    /** How many test methods {@code classes} have, as JUnit discovers them here (a parameterized one once). */
    static int testMethods(String... classes) {
        TestPlan plan = LauncherFactory.create().discover(request(classes));
        Set<String> methods = new HashSet<>();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier test : plan.getDescendants(root)) {
                String method = method(test);
                if (method != null) {
                    methods.add(method);
                }
            }
        }
        return methods.size();
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), args));
    }

    /** Runs {@code classes}, printing to {@code out} as the class says; returns the exit status. */
    static int run(PrintWriter out, String... classes) {
        LauncherDiscoveryRequest request = request(classes);
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Map<String, Long> started = new ConcurrentHashMap<>();
        Set<String> passed = ConcurrentHashMap.newKeySet();
        launcher.execute(request, summary, new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                started.put(test.getUniqueId(), System.nanoTime());
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                String method = method(test);
                if (method != null && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    passed.add(method);
                }
                if (test.isTest()) {
                    long millis = (System.nanoTime() - started.getOrDefault(test.getUniqueId(), System.nanoTime()))
                            / 1_000_000;
                    out.println(result.getStatus() + " " + test.getLegacyReportingName() + " "
                            + test.getUniqueId().replaceAll(".*class:([^/]*)\\].*", "$1") + " " + millis + " ms"
                            + result.getThrowable().map(e -> " -- " + e).orElse(""));
                }
            }
        });
        TestExecutionSummary outcome = summary.getSummary();
        outcome.printTo(out);
        outcome.printFailuresTo(out, 20);
        long failed = outcome.getTotalFailureCount();
        long aborted = outcome.getTestsAbortedCount();
        long succeeded = outcome.getTestsSucceededCount();
        out.println("GUEST-RESULT succeeded=" + succeeded + " failed=" + failed + " aborted=" + aborted);
        out.println("GUEST-METHODS passed=" + passed.size());
        out.flush();
        return succeeded > 0 && failed == 0 && aborted == 0 ? 0 : 1;
    }
}
