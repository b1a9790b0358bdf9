package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DESIGN "Rollout": mode observe changes no pod and records every decision ACE would take; observe-only
 * makes every namespace observe (exempt ones stay exempt); unlabelled namespaces get the configured default.
 */
class RolloutModesTest {
    private final EngineFixture f = EngineFixture.small();
    private final List<String> recorded = new ArrayList<>();
    private final AdmissionEngine engine = new AdmissionEngine(f.engine.policy(), ns -> f.modes.getOrDefault(ns, NamespaceMode.ENFORCE),
            dev.ace.binpacker.observability.Metrics.NOOP, f.mapper, f.clock::get,
            (ns, pod, result, text) -> recorded.add(ns + "/" + pod + " " + result + ": " + text));

    private AdmissionResult mutate(Pod p) { return engine.mutate(f.request(p, "ml", false)); }

    @Test
    void observe_admits_a_tp_pod_untouched_reserves_nothing_and_records_the_placement_it_would_make() {
        f.modes.put("ml", NamespaceMode.OBSERVE);
        AdmissionResult r = mutate(Pods.gpuPod(PodPolicyTest.VLLM, "[--tensor-parallel-size, '4']", "4", null));
        assertTrue(r.allowed());
        assertNull(r.patch(), "no pin, no annotation, no gate");
        assertTrue(r.warnings().isEmpty(), "tenants see nothing while the platform team observes");
        assertEquals(0, f.allocator.ledger().size(), "nothing reserved");
        assertEquals("observed", r.outcome());
        assertTrue(r.auditAnnotations().get("would").startsWith("would place: reserved 4 GPUs"), r.auditAnnotations().toString());
        assertEquals(1, recorded.size());
        assertTrue(recorded.get(0).startsWith("ml/p placed: would place: reserved 4 GPUs"), recorded.get(0));
    }

    @Test
    void observe_admits_what_enforce_denies_and_records_the_denial() {
        Pod job = BackgroundAndModesTest.job(3, BackgroundAndModesTest.H100);
        assertFalse(f.engine.mutate(f.request(job, "ml", false)).allowed(), "enforce denies it");
        f.modes.put("ml", NamespaceMode.OBSERVE);
        AdmissionResult r = mutate(job);
        assertTrue(r.allowed());
        assertNull(r.patch());
        assertTrue(r.auditAnnotations().get("would").startsWith("would deny: 3 GPUs"), r.auditAnnotations().toString());
        AdmissionResult v = engine.validate(f.request(job, "ml", false));
        assertTrue(v.allowed(), "/validate observes too");
        assertTrue(recorded.get(0).contains(" denied: would deny"), recorded.toString());
    }

    @Test
    void observe_never_gates_a_pod_when_no_clique_is_free() {
        for (int i = 0; i < 2; i++) f.mutate(Pods.gpuPod(PodPolicyTest.VLLM, "[--tensor-parallel-size, '8']", "8", null));
        f.modes.put("ml", NamespaceMode.OBSERVE);
        AdmissionResult r = mutate(Pods.gpuPod(PodPolicyTest.VLLM, "[--tensor-parallel-size, '8']", "8", null));
        assertNull(r.patch(), "no gate");
        assertTrue(r.auditAnnotations().get("would").startsWith("would gate: waiting for 8 free GPUs"), r.auditAnnotations().toString());
    }

    @Test
    void observe_only_turns_every_namespace_to_observe_but_exempt_stays_exempt() {
        NamespacePolicies labels = ns -> switch (ns) {
            case "a" -> NamespaceMode.ENFORCE;
            case "b" -> NamespaceMode.WARN;
            case "x" -> NamespaceMode.EXEMPT;
            default -> NamespaceMode.AUDIT;
        };
        NamespacePolicies all = NamespacePolicies.observeOnly(labels);
        assertEquals(NamespaceMode.OBSERVE, all.modeOf("a"));
        assertEquals(NamespaceMode.OBSERVE, all.modeOf("b"));
        assertEquals(NamespaceMode.OBSERVE, all.modeOf("c"));
        assertEquals(NamespaceMode.EXEMPT, all.modeOf("x"));
    }

    @Test
    void the_label_value_observe_is_a_mode_unlabelled_namespaces_take_the_default_and_config_typos_fail() {
        assertEquals(NamespaceMode.OBSERVE, NamespaceMode.fromLabel("observe"));
        assertEquals(NamespaceMode.WARN, NamespaceMode.fromLabel(null, NamespaceMode.WARN));
        assertEquals(NamespaceMode.ENFORCE, NamespaceMode.fromLabel("enforce", NamespaceMode.OBSERVE), "a label beats the default");
        assertEquals(NamespaceMode.ENFORCE, NamespaceMode.fromLabel("typo", NamespaceMode.OBSERVE), "an unknown label fails safe");
        assertEquals(NamespaceMode.OBSERVE, NamespaceMode.parse("observe", "ace.policy.default-mode"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NamespaceMode.parse("obsrve", "ace.policy.default-mode"));
        assertTrue(e.getMessage().contains("ace.policy.default-mode"), e.getMessage());
    }
}
