package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodPolicyTest {
    static final String VLLM = "vllm/vllm-openai:v0.8.5";

    static Pod tp(int n) {
        return Pods.gpuPod(VLLM, "[--model, m, --tensor-parallel-size, '" + n + "']", Integer.toString(n), null);
    }

    @Test
    void tp4_on_an_empty_hgx_gets_one_numa_half_pinned_and_annotated() {
        EngineFixture f = EngineFixture.small();
        Pod pod = tp(4);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed());
        Pod out = f.patched(pod, r);
        String reservation = out.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        assertTrue(reservation.contains("\"gpus\":[0,1,2,3]"), reservation);
        NodeSelectorTerm term = out.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0);
        assertEquals(AceKeys.NODE_NAME_FIELD, term.getMatchFields().get(0).getKey());
        assertEquals("hgx-0", term.getMatchFields().get(0).getValues().get(0));
        assertTrue(term.getMatchExpressions() == null || term.getMatchExpressions().isEmpty(),
                "never the hostname label: it may differ from the node's name");
        assertEquals(1, f.allocator.ledger().size());
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.DECISION).contains("NVLink clique"));
    }

    @Test
    void the_node_name_pin_is_added_to_every_term_of_the_pods_own_affinity() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod(VLLM, "[--tp, '2']", "2", """
                affinity:
                  nodeAffinity:
                    requiredDuringSchedulingIgnoredDuringExecution:
                      nodeSelectorTerms:
                      - matchExpressions: [{key: ace.dev/pool, operator: In, values: [inference]}]
                      - matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}]
                """);
        Pod out = f.patched(pod, f.mutate(pod));
        List<NodeSelectorTerm> terms = out.getSpec().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        assertEquals(2, terms.size());
        for (NodeSelectorTerm t : terms) {
            assertEquals(1, t.getMatchExpressions().size(), "the pod's own requirement is kept");
            assertEquals(1, t.getMatchFields().size());
            assertEquals(AceKeys.NODE_NAME_FIELD, t.getMatchFields().get(0).getKey());
        }
    }

    @Test
    void patch_paths_escape_slashes_in_annotation_and_resource_keys() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod("ghcr.io/huggingface/text-embeddings-inference:hopper-1.5", "[--model-id, BAAI/bge-m3]", "1", null);
        pod.getMetadata().setAnnotations(new java.util.HashMap<>(java.util.Map.of("keep", "me")));
        AdmissionResult r = f.mutate(pod);
        String ops = r.patch().toString();
        assertTrue(ops.contains("/metadata/annotations/ace.dev~1rewritten-from"), ops);
        assertTrue(ops.contains("/spec/containers/0/resources/limits/nvidia.com~1gpu"), ops);
        assertFalse(ops.contains("\"/metadata/annotations/keep\""), "no spurious ops: " + ops);
    }

    @Test
    void an_embedding_server_moves_to_the_smallest_mig_profile_of_10gi() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod("ghcr.io/huggingface/text-embeddings-inference:hopper-1.5", "[--model-id, BAAI/bge-m3]", "1", null);
        Pod out = f.patched(pod, f.mutate(pod));
        var limits = out.getSpec().getContainers().get(0).getResources().getLimits();
        assertEquals(new Quantity("1"), limits.get("nvidia.com/mig-1g.10gb"));
        assertNull(limits.get(AceKeys.GPU));
        assertEquals("slicing", out.getSpec().getNodeSelector().get(AceKeys.POOL));
        assertEquals("ace.dev/pool", out.getSpec().getTolerations().get(0).getKey());
        assertEquals("nvidia.com/gpu=1", out.getMetadata().getAnnotations().get(AceKeys.REWRITTEN_FROM));
        assertEquals(0, f.allocator.ledger().size(), "slices are the device plugin's business, not the ledger's");
    }

    @Test
    void gpu_memory_annotation_sizes_the_profile() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod("ghcr.io/huggingface/text-embeddings-inference:hopper-1.5", "[]", "1", null);
        pod.getMetadata().setAnnotations(java.util.Map.of(AceKeys.GPU_MEMORY, "24Gi"));
        Pod out = f.patched(pod, f.mutate(pod));
        assertTrue(out.getSpec().getContainers().get(0).getResources().getLimits().containsKey("nvidia.com/mig-3g.40gb"));
    }

    @Test
    void an_image_built_for_one_gpu_architecture_is_placed_on_those_gpus_only() {
        EngineFixture f = EngineFixture.small();
        // text-embeddings-inference's Ada build (compute capability 8.9) as a whole-GPU inference replica: H100 (9.0)
        // would refuse it, so ACE pins it to the L40S node, the only one with 8.9 GPUs.
        Pod pod = Pods.gpuPod("ghcr.io/huggingface/text-embeddings-inference:89-1.5", "[--model-id, BAAI/bge-reranker-large]", "1", null);
        pod.getMetadata().setLabels(java.util.Map.of(AceKeys.WORKLOAD_CLASS, "inference"));
        AdmissionResult r = f.mutate(pod);
        Pod out = f.patched(pod, r);
        assertEquals(java.util.Optional.of("l40s-0"), PodEdits.pinnedNode(out), out.getMetadata().getAnnotations().toString());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("compute capability 8.9") && w.contains("89-1.5")), r.warnings().toString());
        // Control: the same pod with an image for every GPU goes where ACE puts any 1-GPU replica.
        Pod control = Pods.gpuPod("vllm/vllm-openai:v0.8.5", "[--model, BAAI/bge-reranker-large]", "1", null);
        control.getMetadata().setLabels(java.util.Map.of(AceKeys.WORKLOAD_CLASS, "inference"));
        Pod controlOut = f.patched(control, f.mutate(control));
        assertTrue(PodEdits.pinnedNode(controlOut).orElseThrow().startsWith("hgx-"), controlOut.getMetadata().getAnnotations().toString());
    }

    @Test
    void a_one_gpu_inference_replica_gets_a_whole_gpu_on_the_inference_pool_never_a_slice() {
        EngineFixture f = EngineFixture.small();
        Pod pod = tp(1);
        Pod out = f.patched(pod, f.mutate(pod));
        assertEquals(new Quantity("1"), out.getSpec().getContainers().get(0).getResources().getLimits().get(AceKeys.GPU));
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.DECISION).startsWith("reserved a whole GPU on "));
    }

    @Test
    void dry_run_shows_the_decision_as_a_warning_and_reserves_nothing() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.engine.mutate(f.request(tp(8), "ml", true));
        assertTrue(r.allowed());
        assertTrue(r.patch() != null);
        assertTrue(r.warnings().get(0).startsWith("reserved GPUs"), r.warnings().toString());
        assertEquals(0, f.allocator.ledger().size());
        assertEquals(0, f.pending.size());
    }

    @Test
    void reinvocation_with_the_patched_pod_reserves_nothing_twice() {
        EngineFixture f = EngineFixture.small();
        Pod pod = tp(4);
        Pod once = f.patched(pod, f.mutate(pod));
        AdmissionResult again = f.mutate(once);
        assertTrue(again.allowed());
        assertNull(again.patch());
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void a_tp_pod_that_selects_pcie_only_nodes_gets_the_best_connected_set_and_a_warning() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod(VLLM, "[--tp, '2']", "2", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}");
        AdmissionResult r = f.mutate(pod);
        Pod out = f.patched(pod, r);
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("no NVLink clique")), r.warnings().toString());
        String res = out.getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        assertTrue(res.contains("\"node\":\"l40s-0\"") && res.contains("[0,1]"), "same NUMA half: " + res);
    }
}
