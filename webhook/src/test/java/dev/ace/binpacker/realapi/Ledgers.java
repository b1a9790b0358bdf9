package dev.ace.binpacker.realapi;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The GpuLedger objects as the API server holds them, read with an admin client. */
public final class Ledgers {
    /** One ledger entry: node, id, GPU indices, state, exact, owner. */
    public record Entry(String node, String id, List<Integer> gpus, boolean bound, boolean exact, String namespace, String podName, String podUid) {}

    private final KubernetesClient admin;

    Ledgers(KubernetesClient admin) { this.admin = admin; }

    public List<GenericKubernetesResource> objects() {
        return admin.genericKubernetesResources("ace.dev/v1alpha1", "GpuLedger").list().getItems();
    }

    @SuppressWarnings("unchecked")
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        for (GenericKubernetesResource o : objects()) {
            Map<String, Object> spec = (Map<String, Object>) o.getAdditionalProperties().getOrDefault("spec", Map.of());
            for (Map<String, Object> e : (List<Map<String, Object>>) spec.getOrDefault("entries", List.of())) {
                Map<String, Object> owner = (Map<String, Object>) e.getOrDefault("owner", Map.of());
                List<Integer> gpus = ((List<Number>) e.getOrDefault("gpus", List.of())).stream().map(Number::intValue).toList();
                out.add(new Entry(o.getMetadata().getName(), (String) e.get("id"), gpus, "bound".equals(e.get("state")),
                        Boolean.TRUE.equals(e.get("exact")), (String) owner.get("namespace"), (String) owner.get("podName"), (String) owner.get("podUid")));
            }
        }
        return out;
    }

    /** Entries owned by pods of {@code namespace}. */
    public List<Entry> entries(String namespace) {
        return entries().stream().filter(e -> namespace.equals(e.namespace())).toList();
    }

    /** Every GPU index held by two entries on one node, as "node gpu i: id1, id2" lines; empty when none is. */
    public List<String> doubleBooked() {
        Map<String, List<String>> holders = new LinkedHashMap<>();
        for (Entry e : entries()) {
            for (int g : e.gpus()) holders.computeIfAbsent(e.node() + " gpu " + g, k -> new ArrayList<>()).add(e.id() + " (" + e.namespace() + "/" + e.podName() + ")");
        }
        List<String> out = new ArrayList<>();
        holders.forEach((k, v) -> {
            if (v.size() > 1) out.add(k + ": " + String.join(", ", v));
        });
        return out;
    }

    /** Entries per node. */
    public Map<String, Integer> countByNode() {
        Map<String, Integer> m = new HashMap<>();
        for (Entry e : entries()) m.merge(e.node(), 1, Integer::sum);
        return m;
    }
}
