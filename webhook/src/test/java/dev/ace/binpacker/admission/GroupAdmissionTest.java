package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 19 at admission: every rank of a group is gated, nothing reserved, whatever is free; forged sizes denied. */
class GroupAdmissionTest {
    static Pod lwsRank(String name, Map<String, String> labels, Map<String, String> annotations) {
        Pod p = Pods.gpuPod(PodPolicyTest.VLLM, "[--model, m, --tensor-parallel-size, '8']", "8", null);
        p.getMetadata().setName(name);
        p.getMetadata().setLabels(new HashMap<>(labels));
        p.getMetadata().setAnnotations(new HashMap<>(annotations));
        return p;
    }

    @Test
    void an_lws_leader_is_gated_with_a_group_decision_even_with_a_free_clique_and_reserves_nothing() {
        EngineFixture f = EngineFixture.small();
        Pod leader = lwsRank("llama-405b-0", Map.of("leaderworkerset.sigs.k8s.io/name", "llama-405b"),
                Map.of("leaderworkerset.sigs.k8s.io/size", "2"));
        AdmissionResult r = f.mutate(leader);
        assertTrue(r.allowed());
        Pod out = f.patched(leader, r);
        assertTrue(GateRelease.isGated(out), "the leader waits for its worker");
        assertFalse(out.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION));
        assertEquals(0, f.allocator.ledger().size(), "half a group holds no GPU");
        String text = out.getMetadata().getAnnotations().get(AceKeys.DECISION);
        assertTrue(text.startsWith("waiting for group llama-405b/0 (lws, leader of 2 pods)"), text);
    }

    @Test
    void the_same_pod_without_a_group_is_placed_at_once() {
        EngineFixture f = EngineFixture.small();
        Pod solo = lwsRank("solo", Map.of(), Map.of());
        Pod out = f.patched(solo, f.mutate(solo));
        assertFalse(GateRelease.isGated(out));
        assertEquals(1, f.allocator.ledger().size());
    }

    @Test
    void a_forged_group_size_is_denied_naming_the_field() {
        EngineFixture f = EngineFixture.small();
        Pod p = lwsRank("x-0", Map.of("ace.dev/group", "g"), Map.of("ace.dev/group-size", "5000"));
        AdmissionResult r = f.mutate(p);
        assertFalse(r.allowed());
        assertTrue(r.message().contains("ace.dev/group-size"), r.message());
        assertEquals(0, f.allocator.ledger().size());
    }

    @Test
    void a_group_name_without_a_size_is_placed_alone_with_a_warning_that_says_what_to_add() {
        EngineFixture f = EngineFixture.small();
        Pod p = lwsRank("x-0", Map.of("ace.dev/group", "g"), Map.of());
        AdmissionResult r = f.mutate(p);
        assertTrue(r.allowed());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("ace.dev/group-size")), r.warnings().toString());
        assertEquals(1, f.allocator.ledger().size());
    }

    /** Issue 35: the selector typo an LWS template carries to every rank; one pod with it is told "0/N nodes". */
    private static Pod typoRank() {
        Pod p = lwsRank("llama-405b-0", Map.of("leaderworkerset.sigs.k8s.io/name", "llama-405b"),
                Map.of("leaderworkerset.sigs.k8s.io/size", "2"));
        p.getSpec().setNodeSelector(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM"));
        return p;
    }

    @Test
    void a_rank_whose_selector_matches_no_node_is_denied_not_gated_naming_the_count_in_enforce() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(typoRank());
        assertFalse(r.allowed(), "a group that can never be placed does not wait for ever");
        assertEquals("group llama-405b/0 (lws, 2 pods) can never be placed: no node can ever hold its leader (8 GPUs), whatever is free: "
                + "0/4 nodes are available: 4 do not match the pod's nodeSelector or node affinity.", r.message());
        assertEquals(0, f.allocator.ledger().size());
    }

    @Test
    void in_warn_mode_the_never_rank_is_admitted_ungated_with_the_reason() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.WARN);
        Pod p = typoRank();
        AdmissionResult r = f.mutate(p);
        assertTrue(r.allowed());
        Pod out = f.patched(p, r);
        assertFalse(GateRelease.isGated(out), "not gated: it would never be released");
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("can never be placed")), r.warnings().toString());
        assertTrue(out.getMetadata().getAnnotations().get(AceKeys.DECISION).startsWith("warn: would deny: group llama-405b/0"),
                out.getMetadata().getAnnotations().toString());
    }

    @Test
    void a_rank_that_fits_once_pods_leave_is_still_gated() {
        EngineFixture f = EngineFixture.small();
        Pod p = lwsRank("llama-405b-0", Map.of("leaderworkerset.sigs.k8s.io/name", "llama-405b"),
                Map.of("leaderworkerset.sigs.k8s.io/size", "2"));
        p.getSpec().setNodeSelector(Map.of("kubernetes.io/hostname", "hgx-0"));
        f.allocator.adopt(new dev.ace.binpacker.placement.Reservation("busy", "hgx-0", 0x01L, 1000, 0, 1, null, 0, false));
        Pod out = f.patched(p, f.mutate(p));
        assertTrue(GateRelease.isGated(out), "not now is not never");
    }
}
