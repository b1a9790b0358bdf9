package dev.ace.binpacker.cluster;

import dev.ace.binpacker.workload.AceKeys;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * Whole GPUs a pod the API server already accepted holds on its node, by Kubernetes' own rule for
 * the effective request (FACTS "How a real cluster behaves"): app containers summed, restartable
 * init containers (sidecars) added to them, and each ordinary init container counted with the
 * sidecars started before it, the largest of all winning. Lenient: it never refuses a pod that
 * exists, it counts it.
 */
final class PodGpus {
    private PodGpus() {}

    static int effective(PodSpec spec) {
        if (spec == null) return 0;
        int app = 0;
        for (Container c : nullSafe(spec.getContainers())) app += gpus(c);
        int sidecars = 0;
        int init = 0;
        for (Container c : nullSafe(spec.getInitContainers())) {
            if ("Always".equals(c.getRestartPolicy())) sidecars += gpus(c);
            else init = Math.max(init, gpus(c) + sidecars);
        }
        return Math.max(app + sidecars, init);
    }

    /** The request, or the limit when only that is set (extended resources default their request to it). */
    private static int gpus(Container c) {
        if (c.getResources() == null) return 0;
        Integer request = amount(c.getResources().getRequests());
        return request != null ? request : nullToZero(amount(c.getResources().getLimits()));
    }

    private static Integer amount(Map<String, Quantity> m) {
        Quantity q = m == null ? null : m.get(AceKeys.GPU);
        if (q == null) return null;
        try {
            BigDecimal v = Quantity.getAmountInBytes(q);
            return v.signum() <= 0 ? 0 : v.setScale(0, RoundingMode.CEILING).intValueExact();
        } catch (RuntimeException e) {
            return 0; // the API server validated the pod; an unreadable quantity here is not ours to refuse
        }
    }

    private static int nullToZero(Integer i) { return i == null ? 0 : i; }

    private static <T> List<T> nullSafe(List<T> l) { return l == null ? List.of() : l; }
}
