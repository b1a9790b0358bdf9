package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.Resources;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a pod takes from a node besides whole GPUs, as kube-scheduler's NodeResourcesFit counts it
 * (k8s.io/component-helpers {@code PodRequests}): the sum of the app containers' requests and the
 * sidecars' (init containers with {@code restartPolicy: Always}), or the largest single init
 * container plus the sidecars started before it if that is more, plus {@code spec.overhead}, plus one
 * of the node's {@code pods}. Pod-level {@code spec.resources} requests, where set, stand for the
 * containers' cpu and memory. A container with a limit and no request requests its limit (the API
 * server defaults it so). {@code nvidia.com/gpu} is left out: the ledger counts whole GPUs.
 * Quantities that do not parse are skipped (the API server's validation answers for them).
 */
public final class PodRequests {
    private PodRequests() {}

    /** Node allocatable keys that are not resources a pod requests through its containers. */
    private static final Set<String> NOT_REQUESTED = Set.of(AceKeys.GPU);

    public static Resources besidesGpus(Pod pod) {
        return pod == null ? Resources.NONE : besidesGpus(pod.getSpec());
    }

    public static Resources besidesGpus(PodSpec spec) {
        if (spec == null) return Resources.NONE;
        Map<String, Long> apps = new HashMap<>();
        for (Container c : nullSafe(spec.getContainers())) add(apps, requests(c.getResources()));
        Map<String, Long> sidecars = new HashMap<>();
        Map<String, Long> init = new HashMap<>();
        for (Container c : nullSafe(spec.getInitContainers())) {
            Map<String, Long> r = requests(c.getResources());
            Map<String, Long> during;
            if ("Always".equals(c.getRestartPolicy())) {
                add(apps, r);
                add(sidecars, r);
                during = new HashMap<>(sidecars);
            } else {
                during = new HashMap<>(r);
                add(during, sidecars);
            }
            during.forEach((k, v) -> init.merge(k, v, Math::max));
        }
        init.forEach((k, v) -> apps.merge(k, v, Math::max));
        ResourceRequirements podLevel = spec.getResources();
        if (podLevel != null) {
            Map<String, Long> p = requests(podLevel);
            for (String k : List.of("cpu", Resources.MEMORY)) if (p.containsKey(k)) apps.put(k, p.get(k));
        }
        add(apps, milli(spec.getOverhead()));
        apps.merge(Resources.PODS, 1000L, Long::sum);
        NOT_REQUESTED.forEach(apps::remove);
        return new Resources(apps);
    }

    /** What a Node offers besides whole GPUs ({@code status.allocatable}); NONE when it reports neither cpu, memory nor pods. */
    public static Resources allocatable(Node node) {
        if (node == null || node.getStatus() == null || node.getStatus().getAllocatable() == null) return Resources.NONE;
        Map<String, Long> m = milli(node.getStatus().getAllocatable());
        NOT_REQUESTED.forEach(m::remove);
        if (!m.containsKey("cpu") && !m.containsKey(Resources.MEMORY) && !m.containsKey(Resources.PODS)) return Resources.NONE;
        return new Resources(m);
    }

    private static Map<String, Long> requests(ResourceRequirements r) {
        if (r == null) return Map.of();
        Map<String, Long> out = milli(r.getLimits());
        out.putAll(milli(r.getRequests()));
        return out;
    }

    private static Map<String, Long> milli(Map<String, Quantity> q) {
        Map<String, Long> out = new HashMap<>();
        if (q == null) return out;
        q.forEach((k, v) -> {
            Long m = milli(v);
            if (k != null && m != null) out.put(k, m);
        });
        return out;
    }

    /** A quantity in thousandths of its unit, rounded up; null when it does not parse or is negative. */
    static Long milli(Quantity q) {
        if (q == null) return null;
        try {
            BigDecimal v = Quantity.getAmountInBytes(q).multiply(BigDecimal.valueOf(1000)).setScale(0, RoundingMode.CEILING);
            return v.signum() < 0 || v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 4)) > 0 ? null : v.longValueExact();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void add(Map<String, Long> into, Map<String, Long> r) {
        r.forEach((k, v) -> into.merge(k, v, Long::sum));
    }

    private static <T> List<T> nullSafe(List<T> l) { return l == null ? List.of() : l; }
}
