package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Reservation;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, "every path through the shape rules", as a property: random pod specs (node affinity with OR'd terms and
 * In/NotIn/Exists/DoesNotExist, matchFields metadata.name, spec.nodeName, nodeSelector, tolerations, GPU and MIG
 * requests in containers, init containers and sidecars, every class label and a Job owner) are admitted against the
 * demo inventory (k8s/demo/nodes.yaml) in several states of use. For every admitted pod, ACE's JSON patch is applied
 * by zjsonpatch (an independent implementation), and the nodes Kubernetes' own rules then allow are computed. None of them
 * may be a node of pool inference where the pod's whole GPU is not the one ACE reserved there, and no reservation
 * ACE made for a lone GPU may be on an 8-GPU board that was clean.
 *
 * <p>The reference is {@link KubernetesReach}: Kubernetes' node affinity, nodeName and taint rules from its
 * documentation, sharing no code with ACE's evaluator. A pod that says it serves (an inference or embedding label, no
 * Job owner) may have a lone GPU of a clean domain where ACE's packer reserved it; no other pod may. Seeded and deterministic: a failure prints the case number and the pod.
 */
class ReachPropertyTest {
    private static final int CASES = 4000;
    private static final long SEED = 34;

    private static final List<Node> NODES = demoNodes();
    private static final List<String> NAMES = NODES.stream().map(n -> n.getMetadata().getName()).toList();

    /** The states of use the pods meet: node -> GPUs already held there (by index). */
    private static final List<Map<String, int[]>> STATES = List.of(
            Map.of(),
            Map.of("hgx-h100-0", new int[] {0, 1, 2, 3}),
            Map.of("a100-pcie-0", new int[] {0, 1, 2, 3}, "a100-pcie-1", new int[] {0, 1, 2, 3}, "l40s-0", new int[] {0, 1, 2, 3},
                    "hgx-h100-1", new int[] {0}),
            Map.of("a100-pcie-0", new int[] {0, 1, 2, 3}, "a100-pcie-1", new int[] {0, 1, 2, 3}, "l40s-0", new int[] {0, 1, 2, 3},
                    "hgx-h100-0", new int[] {7}, "hgx-h100-1", new int[] {0, 1}, "hgx-h200-0", new int[] {3}),
            Map.of("a100-pcie-0", new int[] {0, 1, 2, 3}, "a100-pcie-1", new int[] {0, 1, 2, 3}, "l40s-0", new int[] {0, 1, 2, 3}));

    @Test
    void no_admitted_pod_can_reach_a_gpu_of_pool_inference_that_ace_did_not_reserve_for_it() {
        List<EngineFixture> fixtures = STATES.stream().map(ReachPropertyTest::fixture).toList();
        Random rnd = new Random(SEED);
        Map<String, Integer> seen = new TreeMap<>();
        for (int i = 0; i < CASES; i++) {
            int state = rnd.nextInt(STATES.size());
            EngineFixture f = fixtures.get(state);
            Pod pod = randomPod(rnd);
            AdmissionRequest req = f.request(pod, "ml", false);
            AdmissionResult r = f.engine.mutate(req);
            Reservation reserved = f.allocator.heldForRequest(req.uid()).orElse(null);
            try {
                boolean mixed = KubernetesReach.reach(pod, NODES).stream().anyMatch(KubernetesReach::isInference) && KubernetesReach.reach(pod, NODES).stream().anyMatch(n -> !KubernetesReach.isInference(n));
                count(seen, (r.allowed() ? reserved != null ? "reserved" : "admitted" : "denied") + (mixed ? ", could reach inference and more" : ""));
                if (pod.getSpec().getNodeName() != null) count(seen, "spec.nodeName " + (r.allowed() ? "admitted" : "denied"));
                if (!r.allowed()) continue;
                Pod after = f.patched(pod, r);
                if (after.getSpec().getSchedulingGates() != null
                        && after.getSpec().getSchedulingGates().stream().anyMatch(g -> AceKeys.GATE.equals(g.getName()))) {
                    count(seen, "gated");
                    continue; // kube-scheduler does not place it; ACE's leader releases it onto GPUs it reserves
                }
                int wholeGpus = KubernetesReach.wholeGpus(after);
                for (Node n : KubernetesReach.reach(after, NODES)) {
                    if (!KubernetesReach.isInference(n) || wholeGpus == 0) continue;
                    String name = n.getMetadata().getName();
                    int at = i;
                    java.util.function.Supplier<String> where = () -> "case " + at + " (state " + state + "): " + name
                            + " reachable after ACE's patch; " + r.message() + "\npatch applied: " + f.mapper.valueToTree(after).toPrettyString();
                    assertTrue(reserved != null && reserved.node().equals(name), () -> "a GPU ACE did not reserve: " + where.get());
                    if (reserved.gpuCount() == 1 && !server(pod)) {
                        assertTrue(STATES.get(state).containsKey(name), () -> "a lone GPU of a clean 8-GPU domain: " + where.get());
                    }
                }
            } finally {
                if (reserved != null) f.allocator.release(reserved.id());
                f.pending.remove(req.uid());
            }
        }
        // The generator reaches the paths the property is about.
        for (String kind : List.of("reserved, could reach inference and more", "denied, could reach inference and more",
                "admitted", "spec.nodeName admitted", "spec.nodeName denied")) {
            assertTrue(seen.getOrDefault(kind, 0) >= 20, kind + ": " + seen);
        }
        fixtures.forEach(f -> assertEquals(fills(STATES.get(fixtures.indexOf(f))), f.allocator.ledger().size(), "each case gave back what it took"));
    }

    private static void count(Map<String, Integer> seen, String kind) { seen.merge(kind, 1, Integer::sum); }

    /**
     * A pod that says it serves (class label inference or embedding) and that no Job owns: docs/webhook.md lets such a
     * pod have a lone GPU where ACE's packer puts it, a clean domain included; every other pod obeys the lone-GPU rule.
     */
    private static boolean server(Pod pod) {
        Map<String, String> l = pod.getMetadata().getLabels();
        String cls = l.get(AceKeys.WORKLOAD_CLASS);
        boolean jobOwned = l.containsKey("batch.kubernetes.io/job-name") || pod.getMetadata().getOwnerReferences() != null
                && pod.getMetadata().getOwnerReferences().stream().anyMatch(o -> "Job".equals(o.getKind()));
        return !jobOwned && ("inference".equals(cls) || "embedding".equals(cls));
    }

    // ---- the generator ----

    private static final List<String> POOLS = List.of("inference", "slicing", "general");
    private static final List<String> PRODUCTS = List.of("NVIDIA-H100-80GB-HBM3", "NVIDIA-H200", "NVIDIA-L40S", "NVIDIA-A100-80GB-PCIe");
    private static final List<String> FAMILIES = List.of("hopper", "ampere", "ada-lovelace");

    static Pod randomPod(Random rnd) {
        Pod p = new Pod();
        p.setApiVersion("v1");
        p.setKind("Pod");
        var meta = new io.fabric8.kubernetes.api.model.ObjectMeta();
        meta.setNamespace("ml");
        meta.setGenerateName("p-");
        Map<String, String> labels = new LinkedHashMap<>();
        switch (rnd.nextInt(7)) {
            case 0 -> labels.put("batch.kubernetes.io/job-name", "train");
            case 1 -> labels.put(AceKeys.WORKLOAD_CLASS, "batch");
            case 2 -> labels.put(AceKeys.WORKLOAD_CLASS, "interactive");
            case 3 -> labels.put(AceKeys.WORKLOAD_CLASS, "embedding");
            case 4 -> { labels.put(AceKeys.WORKLOAD_CLASS, "inference"); labels.put("batch.kubernetes.io/job-name", "eval"); }
            case 5 -> meta.setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                    .withApiVersion("batch/v1").withKind("Job").withName("train").withUid("job-uid").withController(true).build()));
            default -> { } // a bare pod, unclassified
        }
        meta.setLabels(labels);
        p.setMetadata(meta);
        var spec = new io.fabric8.kubernetes.api.model.PodSpec();
        spec.setRestartPolicy("Never");
        int gpus = rnd.nextInt(10) < 7 ? 1 : rnd.nextInt(10) < 6 ? 2 : rnd.nextInt(4);
        List<Container> containers = new ArrayList<>();
        containers.add(container("main", "nvcr.io/nvidia/pytorch:24.05-py3", gpus, rnd.nextInt(12) == 0 ? "nvidia.com/mig-1g.10gb" : null));
        if (rnd.nextInt(6) == 0) containers.add(container("logger", "busybox", 0, null));
        spec.setContainers(containers);
        List<Container> init = new ArrayList<>();
        if (rnd.nextInt(6) == 0) init.add(container("warmup", "nvcr.io/nvidia/pytorch:24.05-py3", 1 + rnd.nextInt(2), null));
        if (rnd.nextInt(6) == 0) {
            Container sidecar = container("sidecar", "nvcr.io/nvidia/pytorch:24.05-py3", rnd.nextInt(2), null);
            sidecar.setRestartPolicy("Always");
            init.add(sidecar);
        }
        if (!init.isEmpty()) spec.setInitContainers(init);
        if (rnd.nextInt(4) == 0) {
            Map<String, String> sel = new LinkedHashMap<>();
            switch (rnd.nextInt(3)) {
                case 0 -> sel.put("ace.dev/pool", pick(rnd, POOLS));
                case 1 -> sel.put("nvidia.com/gpu.product", pick(rnd, PRODUCTS));
                default -> sel.put("kubernetes.io/hostname", pick(rnd, NAMES));
            }
            spec.setNodeSelector(sel);
        }
        if (rnd.nextInt(3) > 0) {
            List<NodeSelectorTerm> terms = new ArrayList<>();
            int n = 1 + rnd.nextInt(3);
            for (int t = 0; t < n; t++) terms.add(term(rnd));
            spec.setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution().withNodeSelectorTerms(terms).endRequiredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity().build());
        }
        if (rnd.nextInt(8) == 0) spec.setNodeName(pick(rnd, NAMES));
        List<Toleration> tols = new ArrayList<>();
        switch (rnd.nextInt(6)) {
            case 0 -> tols.add(new Toleration("NoSchedule", "ace.dev/pool", "Exists", null, null));
            case 1 -> tols.add(new Toleration("NoSchedule", "ace.dev/pool", "Equal", null, "slicing"));
            case 2 -> tols.add(new Toleration(null, null, "Exists", null, null));
            case 3 -> tols.add(new Toleration("NoExecute", "ace.dev/pool", "Exists", null, null)); // the wrong effect
            default -> { }
        }
        if (!tols.isEmpty()) spec.setTolerations(tols);
        p.setSpec(spec);
        return p;
    }

    private static NodeSelectorTerm term(Random rnd) {
        NodeSelectorTerm t = new NodeSelectorTerm();
        List<NodeSelectorRequirement> exprs = new ArrayList<>();
        int n = rnd.nextInt(12) == 0 ? 0 : 1 + rnd.nextInt(2);
        for (int i = 0; i < n; i++) exprs.add(expression(rnd));
        if (!exprs.isEmpty()) t.setMatchExpressions(exprs);
        if (rnd.nextInt(4) == 0 || n == 0 && rnd.nextBoolean()) {
            t.setMatchFields(List.of(new NodeSelectorRequirement("metadata.name", rnd.nextInt(4) == 0 ? "NotIn" : "In",
                    List.of(pick(rnd, NAMES)))));
        }
        return t;
    }

    private static NodeSelectorRequirement expression(Random rnd) {
        String op = switch (rnd.nextInt(6)) {
            case 0, 1 -> "In";
            case 2, 3 -> "NotIn";
            case 4 -> "Exists";
            default -> "DoesNotExist";
        };
        String key;
        List<String> values;
        switch (rnd.nextInt(5)) {
            case 0, 1 -> { key = "ace.dev/pool"; values = some(rnd, POOLS); }
            case 2 -> { key = "kubernetes.io/hostname"; values = some(rnd, NAMES); }
            case 3 -> { key = "nvidia.com/gpu.product"; values = some(rnd, PRODUCTS); }
            default -> { key = "nvidia.com/gpu.family"; values = some(rnd, FAMILIES); }
        }
        if (op.equals("Exists") || op.equals("DoesNotExist")) values = null;
        return new NodeSelectorRequirement(key, op, values);
    }

    private static Container container(String name, String image, int gpus, String slice) {
        Container c = new Container();
        c.setName(name);
        c.setImage(image);
        c.setCommand(List.of("python", "train.py"));
        Map<String, Quantity> limits = new LinkedHashMap<>();
        limits.put("cpu", new Quantity("1"));
        if (gpus > 0) limits.put(KubernetesReach.GPU, new Quantity(Integer.toString(gpus)));
        if (slice != null) limits.put(slice, new Quantity("1"));
        c.setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder().withLimits(limits).build());
        return c;
    }

    private static <T> T pick(Random rnd, List<T> l) { return l.get(rnd.nextInt(l.size())); }

    private static List<String> some(Random rnd, List<String> l) {
        List<String> out = new ArrayList<>();
        for (String s : l) if (rnd.nextInt(3) == 0) out.add(s);
        if (out.isEmpty()) out.add(pick(rnd, l));
        return out;
    }

    // ---- the inventory ----

    private static List<Node> demoNodes() {
        try {
            return NodeListLoader.demo();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The demo inventory with the given GPUs held by entries of no pod. */
    private static EngineFixture fixture(Map<String, int[]> held) {
        NodeMapper m = NodeMapper.standard();
        EngineFixture f = new EngineFixture(NODES.stream().map(m::map).toArray(NodeInfo[]::new));
        held.forEach((node, gpus) -> {
            long mask = 0;
            for (int g : gpus) mask |= 1L << g;
            Reservation r = new Reservation("held-" + node, node, mask, 1000, 0, 1, null, 0, false);
            assertEquals(dev.ace.binpacker.placement.Ledger.Outcome.RESERVED, f.allocator.adopt(r), node);
        });
        return f;
    }

    private static int fills(Map<String, int[]> held) { return held.size(); }
}
