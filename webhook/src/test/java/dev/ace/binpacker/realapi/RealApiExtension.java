package dev.ace.binpacker.realapi;

import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** See {@link RealApiTest}. */
public final class RealApiExtension implements BeforeAllCallback, ParameterResolver {
    private static boolean warned;
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(RealApiExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster();
    }

    static RealCluster cluster() {
        KubeBinaries.Result found = KubeBinaries.find();
        if (found.binaries() == null) {
            if (KubeBinaries.required()) throw new IllegalStateException("real-API suite required (CI) but " + found.missing());
            String why = "real-API suite skipped: " + found.missing();
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
