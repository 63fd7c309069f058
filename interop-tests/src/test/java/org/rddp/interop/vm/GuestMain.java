package org.rddp.interop.vm;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs JUnit test classes inside the VM and says how it went: a line per test with its time, the summary, then
 * {@code GUEST-RESULT succeeded=N failed=N aborted=N}; exits 0 only if tests ran and none failed or was aborted.
 * Arguments: the classes. Everything runs ~10x slower under emulation, so a test may take up to 10 minutes.
 */
public final class GuestMain {
    private GuestMain() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(args).map(DiscoverySelectors::selectClass).toList())
                .configurationParameter("junit.jupiter.execution.timeout.default", "600 s")
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Map<String, Long> started = new ConcurrentHashMap<>();
        launcher.execute(request, summary, new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                started.put(test.getUniqueId(), System.nanoTime());
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (test.isTest()) {
                    long millis = (System.nanoTime() - started.getOrDefault(test.getUniqueId(), System.nanoTime()))
                            / 1_000_000;
                    System.out.println(result.getStatus() + " " + test.getLegacyReportingName() + " "
                            + test.getUniqueId().replaceAll(".*class:([^/]*)\\].*", "$1") + " " + millis + " ms"
                            + result.getThrowable().map(e -> " -- " + e).orElse(""));
                    System.out.flush();
                }
            }
        });
        TestExecutionSummary outcome = summary.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        outcome.printTo(out);
        outcome.printFailuresTo(out, 20);
        long failed = outcome.getTotalFailureCount();
        long aborted = outcome.getTestsAbortedCount();
        long succeeded = outcome.getTestsSucceededCount();
        out.println("GUEST-RESULT succeeded=" + succeeded + " failed=" + failed + " aborted=" + aborted);
        System.exit(succeeded > 0 && failed == 0 && aborted == 0 ? 0 : 1);
    }
}
