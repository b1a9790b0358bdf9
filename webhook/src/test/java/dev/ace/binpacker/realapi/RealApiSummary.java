package dev.ace.binpacker.realapi;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * One line when a test run that held real-API classes ({@link RealApiTest}) ends: whether the suite ran, and why
 * not. Registered through META-INF/services, so surefire's and failsafe's JVMs both load it; a run without such a
 * class (the unit tests) prints nothing.
 */
public final class RealApiSummary implements TestExecutionListener {
    private final AtomicInteger ran = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger skipped = new AtomicInteger();
    private final AtomicReference<String> reason = new AtomicReference<>();

    @Override
    public void executionSkipped(TestIdentifier id, String why) {
        if (!isRealApiClass(id)) return;
        skipped.incrementAndGet();
        reason.compareAndSet(null, why);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (!isRealApiClass(id)) return;
        switch (result.getStatus()) {
            case SUCCESSFUL -> ran.incrementAndGet();
            case ABORTED -> {
                skipped.incrementAndGet();
                reason.compareAndSet(null, result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
            }
            case FAILED -> {
                failed.incrementAndGet();
                reason.compareAndSet(null, result.getThrowable().map(Throwable::getMessage).orElse("failed"));
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        String line = line(ran.get(), failed.get(), skipped.get(), reason.get());
        if (line != null) System.out.println(line);
    }

    /** The summary line, or null when no real-API class was in the run. */
    static String line(int ran, int failed, int skipped, String reason) {
        if (ran + failed + skipped == 0) return null;
        if (skipped > 0 && ran + failed == 0) {
            return "[WARNING] real-API suite did NOT run: " + skipped + " classes skipped; " + reason
                    + " (CI=true or -Dace.realapi.required=true makes this a failure)";
        }
        String s = (failed > 0 ? "[ERROR]" : "[INFO]") + " real-API suite ran: " + ran + " classes passed, " + failed + " failed";
        if (skipped > 0) s += ", " + skipped + " skipped (" + reason + ")";
        if (failed > 0) s += "; first failure: " + reason;
        return s;
    }

    private static boolean isRealApiClass(TestIdentifier id) {
        Optional<Class<?>> c = id.getSource().filter(ClassSource.class::isInstance).map(s -> ((ClassSource) s).getJavaClass());
        return c.isPresent() && c.get().isAnnotationPresent(RealApiTest.class);
    }
}
