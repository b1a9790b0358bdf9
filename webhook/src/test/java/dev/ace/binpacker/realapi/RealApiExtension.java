package dev.ace.binpacker.realapi;

import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * See {@link RealApiTest}. Without the binaries, outside CI, each class is disabled with the reason (surefire and
 * failsafe count it as skipped and print the reason, where an assumption aborted in beforeAll was counted as
 * "Tests run: 0, Skipped: 0"); in CI the class runs and its beforeAll fails with the reason.
 */
public final class RealApiExtension implements ExecutionCondition, BeforeAllCallback, ParameterResolver {
    private static boolean warned;
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(RealApiExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        KubeBinaries.Result found = KubeBinaries.find();
        if (found.binaries() != null) return ConditionEvaluationResult.enabled("control-plane binaries in " + found.binaries().dir());
        if (KubeBinaries.required()) return ConditionEvaluationResult.enabled("required (CI): beforeAll fails with the reason");
        return ConditionEvaluationResult.disabled(skipReason(found));
    }

    static String skipReason(KubeBinaries.Result found) {
        return "real-API suite skipped: " + found.missing();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster();
    }

    static RealCluster cluster() {
        KubeBinaries.Result found = KubeBinaries.find();
        if (found.binaries() == null) {
            if (KubeBinaries.required()) throw new IllegalStateException("real-API suite required (CI) but " + found.missing());
            String why = skipReason(found);
            if (!warned) System.err.println("[WARNING] " + why);
            warned = true;
            Assumptions.abort(why);
        }
        return RealCluster.get(found.binaries());
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> t = p.getParameter().getType();
        return t == RealCluster.class || t == TestNamespace.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        RealCluster c = cluster();
        if (p.getParameter().getType() == RealCluster.class) return c;
        String prefix = e.getRequiredTestMethod().getName().replaceAll("[^A-Za-z0-9]", "").toLowerCase();
        prefix = prefix.substring(0, Math.min(20, prefix.length()));
        String ns = c.createNamespace(prefix, Map.of());
        e.getStore(STORE).put("ns-" + ns, (ExtensionContext.Store.CloseableResource) () -> c.deleteNamespace(ns));
        return new TestNamespace(ns);
    }
}
