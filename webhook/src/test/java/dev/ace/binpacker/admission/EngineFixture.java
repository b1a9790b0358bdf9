package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import dev.ace.binpacker.cluster.AdmissionWiring;
import dev.ace.binpacker.cluster.OfflineConfig;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.ReservationStore;
import dev.ace.binpacker.placement.Taint;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A small cluster and an engine over it, with helpers to post pods and apply the patch independently (zjsonpatch). */
final class EngineFixture {
    final ObjectMapper mapper = Json.newMapper();
    final ReviewCodec codec = new ReviewCodec(mapper);
    final Allocator allocator;
    final PendingDemand pending = new PendingDemand(Metrics.NOOP);
    final Map<String, NamespaceMode> modes = new HashMap<>();
    final AtomicLong clock = new AtomicLong(1_000_000);
    final AdmissionEngine engine;
    private int uid;

    EngineFixture(NodeInfo... nodes) {
        this(Map.of(), nodes);
    }

    /** @param settings {@code ace.*} settings over the packaged ones, as {@code serve} reads them, e.g. {@code ace.policy.max-pending-per-namespace} */
    EngineFixture(Map<String, String> settings, NodeInfo... nodes) {
        this(settings, ReservationStore.IN_MEMORY, nodes);
    }

    /** A replica whose reservations go to {@code store}, shared with other replicas' fixtures. */
    EngineFixture(ReservationStore store, NodeInfo... nodes) {
        this(Map.of(), store, nodes);
    }

    /** Production's wiring ({@link AdmissionWiring}, as {@code serve} and {@code explain} build it) in standalone mode over this fixture's nodes. */
    EngineFixture(Map<String, String> settings, ReservationStore store, NodeInfo... nodes) {
        ClusterState s = new ClusterState();
        for (NodeInfo n : nodes) s.upsert(n);
        allocator = new Allocator(s, PackerConfig.defaults(), store);
        engine = AdmissionWiring.of(OfflineConfig.packaged(settings), AdmissionWiring.Edge.standalone(() -> allocator, pending, mapper,
                ns -> modes.getOrDefault(ns, NamespaceMode.ENFORCE), clock::get)).engine();
    }

    /**
     * What the leader does when the pod of a pending reservation shows up: ties the entry to the pod's
     * UID (in a cluster through the GpuLedger object, mirrored back into every replica's ledger).
     */
    static boolean tieToPod(dev.ace.binpacker.placement.Allocator a, String id) {
        return a.read(al -> al.ledger().get(id)
                .map(r -> al.ledger().update(r.tiedTo("uid-of-" + id, r.owner().podName())))
                .orElse(false));
    }

    /** hgx-0, hgx-1 (inference), l40s-0 (general, PCIe only), mig-0 (slicing, MIG mixed). */
    static EngineFixture small() {
        return new EngineFixture(hgx("hgx-0"), hgx("hgx-1"), pcieNode("l40s-0", 4), migNode("mig-0"));
    }

    static NodeInfo hgx(String name) {
        return new NodeInfo(name, Pool.INFERENCE, Map.of("kubernetes.io/hostname", name, "ace.dev/pool", "inference",
                "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.compute.major", "9", "nvidia.com/gpu.compute.minor", "0"),
                List.of(), TestBoards.hgx8(), "test", "NVIDIA-H100-80GB-HBM3", 0);
    }

    static NodeInfo pcieNode(String name, int gpus) {
        return new NodeInfo(name, Pool.GENERAL, Map.of("kubernetes.io/hostname", name, "nvidia.com/gpu.product", "NVIDIA-L40S",
                        "nvidia.com/gpu.compute.major", "8", "nvidia.com/gpu.compute.minor", "9"),
                List.of(), TestBoards.pcie(gpus), "test", "NVIDIA-L40S", 0);
    }

    static NodeInfo migNode(String name) {
        Map<String, String> labels = new HashMap<>(Map.of("kubernetes.io/hostname", name, "ace.dev/pool", "slicing",
                "nvidia.com/mig.strategy", "mixed", "nvidia.com/gpu.count", "8",
                "nvidia.com/mig-1g.10gb.count", "16", "nvidia.com/mig-2g.20gb.count", "8", "nvidia.com/mig-3g.40gb.count", "8",
                "nvidia.com/mig-7g.80gb.count", "0"));
        labels.put("nvidia.com/mig-7g.80gb.count", "4");
        labels.put("nvidia.com/gpu.compute.major", "9");
        labels.put("nvidia.com/gpu.compute.minor", "0");
        return new NodeInfo(name, Pool.SLICING, labels, List.of(new Taint("ace.dev/pool", "slicing", "NoSchedule")),
                TestBoards.hgx8(), "test", "NVIDIA-H100-80GB-HBM3", 0);
    }

    AdmissionRequest request(Pod pod, String namespace, boolean dryRun) {
        JsonNode obj = mapper.valueToTree(pod);
        return new AdmissionRequest("uid-" + (++uid), ReviewCodec.API_VERSION, "Pod", null, "CREATE", namespace,
                pod.getMetadata().getName() == null ? "" : pod.getMetadata().getName(), dryRun, obj, pod);
    }

    AdmissionResult mutate(Pod pod) { return engine.mutate(request(pod, "ml", false)); }

    /** The pod after the result's patch, applied by zjsonpatch to the object as sent. */
    Pod patched(Pod original, AdmissionResult r) {
        if (r.patch() == null) return original;
        JsonNode out = codec.complete("u", ReviewCodec.API_VERSION, r);
        byte[] patch = Base64.getDecoder().decode(out.path("response").path("patch").asText());
        try {
            JsonNode ops = mapper.readTree(patch);
            JsonNode applied = JsonPatch.apply(ops, mapper.valueToTree(original));
            return mapper.treeToValue(applied, Pod.class);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    GpuBoard board(String node) { return allocator.state().node(allocator.state().indexOf(node)).board(); }
}
