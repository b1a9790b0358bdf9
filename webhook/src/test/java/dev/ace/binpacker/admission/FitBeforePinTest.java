package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Resources;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * DESIGN "Fit before pin": ACE pins only to a node that can hold everything the pod asks for besides
 * GPUs (kube-scheduler's NodeResourcesFit: allocatable minus what bound pods request), honours
 * {@code spec.nodeName} (decided there or denied with the reason, never gated), and says why when no
 * node can.
 */
class FitBeforePinTest {
    private static final long GI = 1024L * 1024 * 1024;

    static Resources alloc(long cpu, long memGi, long rdma) {
        Map<String, Long> m = new HashMap<>(Map.of("cpu", cpu * 1000, "memory", memGi * GI * 1000, "pods", 110_000L));
        if (rdma > 0) m.put("rdma/roce_gdr", rdma * 1000);
        return new Resources(m);
    }

    /** "plain" comes first in index order, so the packer prefers it when both fit. */
    private final EngineFixture f = new EngineFixture(
            EngineFixture.hgx("plain").withAllocatable(alloc(96, 1024, 0)),
            EngineFixture.hgx("rdma").withAllocatable(alloc(96, 1024, 8)));

    static Pod vllm(String gpus, String requests, String extra) {
        return Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ml}
                spec:
                  containers:
                  - name: c
                    image: vllm/vllm-openai:v0.8.5
                    args: ["--model", "m", "--tensor-parallel-size", "%s"]
                    resources:
                      requests: {%s}
                      limits: {nvidia.com/gpu: %s}
                %s
                """.formatted(gpus, requests, gpus, extra == null ? "" : extra.indent(2)));
    }


    private String pinnedNode(Pod original, AdmissionResult r) {
        return PodEdits.pinnedNode(f.patched(original, r)).orElse(null);
    }

    @Test
    void a_pod_asking_for_rdma_is_pinned_to_the_node_that_has_it_even_when_another_would_score_better() {
        Pod p = vllm("4", "cpu: '8', memory: 64Gi, rdma/roce_gdr: 1", null);
        AdmissionResult r = f.mutate(p);
        assertEquals("rdma", pinnedNode(p, r));
        EngineFixture fresh = new EngineFixture(EngineFixture.hgx("plain").withAllocatable(alloc(96, 1024, 0)),
                EngineFixture.hgx("rdma").withAllocatable(alloc(96, 1024, 8)));
        Pod plain = vllm("4", "cpu: '8', memory: 64Gi", null);
        assertEquals("plain", PodEdits.pinnedNode(fresh.patched(plain, fresh.mutate(plain))).orElse(null),
                "without RDMA the first node wins as before");
    }

    @Test
    void when_the_rdma_node_has_none_free_the_pod_waits_and_the_gate_says_which_resource() {
        f.allocator.requested("rdma", new Resources(Map.of("rdma/roce_gdr", 8_000L)), Set.of());
        Pod p = vllm("4", "rdma/roce_gdr: 1", null);
        AdmissionResult r = f.mutate(p);
        Pod out = f.patched(p, r);
        assertTrue(PodEdits.hasSchedulingGate(out, AceKeys.GATE), "waiting: the RDMA devices free up when pods end");
        String decision = out.getMetadata().getAnnotations().get(AceKeys.DECISION);
        assertTrue(decision.contains("1 offer less than 1 rdma/roce_gdr in all"), decision);
        assertTrue(decision.contains("1 have less than 1 rdma/roce_gdr free"), decision);
    }

    @Test
    void a_pod_no_node_can_ever_hold_is_not_pinned_and_hears_why_in_numbers() {
        Pod p = vllm("2", "memory: 2000Gi", null);
        AdmissionResult r = f.mutate(p);
        assertNull(pinnedNode(p, r), "left to kube-scheduler, never pinned where it cannot run");
        assertTrue(r.allowed());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("0/2 nodes are available: 2 offer less than 2000Gi memory in all")),
                r.warnings().toString());
    }

    @Test
    void memory_and_cpu_taken_by_pods_bound_there_count_against_the_node() {
        f.allocator.requested("plain", new Resources(Map.of("cpu", 90_000L, "memory", 100 * GI * 1000)), Set.of());
        Pod cpu = vllm("1", "cpu: '8'", null);
        assertEquals("rdma", pinnedNode(cpu, f.mutate(cpu)), "plain has 6 of 96 CPUs free");
        f.allocator.requested("plain", new Resources(Map.of("memory", 1000 * GI * 1000)), Set.of());
        Pod mem = vllm("1", "memory: 64Gi", null);
        assertEquals("rdma", pinnedNode(mem, f.mutate(mem)), "plain has 24Gi of 1024Gi free");
    }

    @Test
    void a_pinned_pod_not_yet_bound_holds_its_other_requests_so_the_next_pin_goes_elsewhere() {
        Pod first = vllm("1", "memory: 900Gi", null);
        assertEquals("plain", pinnedNode(first, f.mutate(first)));
        Pod second = vllm("1", "memory: 900Gi", null);
        assertEquals("rdma", pinnedNode(second, f.mutate(second)), "plain's 1024Gi hold one 900Gi pod, not two");
    }

    @Test
    void a_pod_with_spec_node_name_is_decided_on_that_node_and_never_gated_or_moved() {
        Pod p = vllm("4", "cpu: '4'", "nodeName: rdma");
        AdmissionResult r = f.mutate(p);
        Pod out = f.patched(p, r);
        assertNull(PodEdits.pinnedNode(out).orElse(null), "no affinity added: spec.nodeName binds it already");
        assertFalse(PodEdits.hasSchedulingGate(out, AceKeys.GATE));
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("\"node\":\"rdma\""));
        assertEquals(4, f.allocator.ledger().onNode("rdma").stream().mapToInt(x -> x.gpuCount()).sum());
    }

    @Test
    void a_pod_with_spec_node_name_that_node_cannot_hold_is_denied_with_the_reason_not_gated() {
        Pod p = vllm("4", "rdma/roce_gdr: 1", "nodeName: plain");
        AdmissionResult r = f.mutate(p);
        assertFalse(r.allowed());
        assertTrue(r.message().contains("spec.nodeName binds this"), r.message());
        assertTrue(r.message().contains("1 offer less than 1 rdma/roce_gdr in all"), r.message());
        f.modes.put("ml", NamespaceMode.WARN);
        AdmissionResult warned = f.mutate(p);
        assertTrue(warned.allowed());
        assertFalse(PodEdits.hasSchedulingGate(f.patched(p, warned), AceKeys.GATE), "the API server forbids a gate beside nodeName");
        assertEquals(0, f.allocator.ledger().size(), "nothing reserved for a pod that cannot run where it is bound");
    }

    @Test
    void a_node_selector_typo_reads_as_a_selector_problem_not_a_full_cluster() {
        Pod p = vllm("4", "cpu: '1'", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HMB3}");
        AdmissionResult r = f.mutate(p);
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("2 do not match the pod's nodeSelector or node affinity")),
                r.warnings().toString());
    }
}
