package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

class BackgroundAndModesTest {

    static Pod job(int gpus, String extra) {
        Pod p = Pods.gpuPod("nvcr.io/nvidia/pytorch:24.05-py3", "[python, finetune.py]", Integer.toString(gpus), extra);
        p.getMetadata().setLabels(java.util.Map.of("batch.kubernetes.io/job-name", "ft"));
        return p;
    }

    /** A job that wants H100s: only the flagship boards of pool inference (and the tainted MIG node) match. */
    static final String H100 = "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}";

    @Test
    void three_gpus_of_batch_on_an_8_gpu_board_are_denied_naming_gpus_domain_and_the_fix() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(job(3, H100));
        assertFalse(r.allowed());
        assertTrue(r.message().contains("3 GPUs"), r.message());
        assertTrue(r.message().contains("8-GPU NVLink domains"), r.message());
        assertTrue(r.message().contains("request 2, 4 or 8 GPUs"), r.message());
        assertTrue(r.message().endsWith("accepted now: 2, 4 or 8 GPUs on pool inference (an aligned block)"), r.message());
        assertEquals(0, f.allocator.ledger().size());
    }

    @Test
    void three_gpus_of_batch_that_may_run_anywhere_go_to_the_free_pcie_only_node() {
        EngineFixture f = EngineFixture.small();
        Pod pod = job(3, null);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), r.message());
        var annotations = f.patched(pod, r).getMetadata().getAnnotations();
        assertTrue(annotations.get(AceKeys.RESERVATION).contains("\"node\":\"l40s-0\""), annotations.toString());
        assertTrue(annotations.get(AceKeys.DECISION).contains("pool inference kept whole: it would fracture the 8-GPU NVLink domains"),
                annotations.toString());
    }

    @Test
    void warn_mode_admits_with_the_denial_as_short_warnings_and_a_decision_annotation() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.WARN);
        Pod pod = job(3, H100);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed());
        assertFalse(r.warnings().isEmpty());
        r.warnings().forEach(w -> assertTrue(w.length() <= 120 && !w.startsWith("Warning"), w));
        assertTrue(f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.DECISION).startsWith("warn: would deny"));
    }

    @Test
    void audit_mode_admits_silently_and_records_the_would_be_denial() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.AUDIT);
        AdmissionResult r = f.mutate(job(3, H100));
        assertTrue(r.allowed());
        assertTrue(r.warnings().isEmpty());
        assertTrue(r.auditAnnotations().get("would-deny").contains("3 GPUs"));
    }

    @Test
    void exempt_mode_leaves_the_pod_alone() {
        EngineFixture f = EngineFixture.small();
        f.modes.put("ml", NamespaceMode.EXEMPT);
        AdmissionResult r = f.mutate(PodPolicyTest.tp(4));
        assertTrue(r.allowed());
        assertNull(r.patch());
        assertEquals(0, f.allocator.ledger().size());
    }

    @Test
    void an_aligned_4_gpu_batch_job_is_allowed_while_a_free_8_clique_remains() {
        EngineFixture f = EngineFixture.small();
        Pod pod = job(4, null);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed(), r.message());
        assertTrue(f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION).contains("[0,1,2,3]"));
    }

    @Test
    void a_batch_job_that_would_eat_the_last_free_8_clique_is_denied() {
        EngineFixture f = EngineFixture.small();
        assertTrue(f.mutate(PodPolicyTest.tp(8)).allowed()); // hgx-0 taken by TP 8 inference
        AdmissionResult r = f.mutate(job(2, H100));
        assertFalse(r.allowed());
        assertTrue(r.message().contains("below the reserve of 1"), r.message());
        assertTrue(r.message().endsWith("accepted now: no multi-GPU request fits the nodes this pod allows now"), r.message());
    }

    @Test
    void a_one_gpu_job_pinned_to_a_flagship_node_is_denied() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(job(1, "nodeSelector: {kubernetes.io/hostname: hgx-1}"));
        assertFalse(r.allowed());
        assertTrue(r.message().contains("8-GPU NVLink domains"), r.message());
    }

    @Test
    void a_one_gpu_evaluation_job_gets_a_whole_gpu_mig_profile_on_the_slicing_pool() {
        EngineFixture f = EngineFixture.small();
        Pod pod = job(1, null);
        Pod out = f.patched(pod, f.mutate(pod));
        assertTrue(out.getSpec().getContainers().get(0).getResources().getLimits().containsKey("nvidia.com/mig-7g.80gb"));
    }

    @Test
    void an_unclassifiable_gpu_pod_keeps_its_resources_and_pool_but_its_whole_gpus_are_placed_as_batch_shapes() {
        EngineFixture f = EngineFixture.small();
        Pod pod = Pods.gpuPod("nvcr.io/nvidia/pytorch:24.05-py3", "[python, x.py]", "2", null);
        AdmissionResult r = f.mutate(pod);
        assertTrue(r.allowed());
        assertTrue(r.warnings().get(0).contains(AceKeys.WORKLOAD_CLASS), r.warnings().toString());
        Pod out = f.patched(pod, r);
        assertEquals(pod.getSpec().getContainers().get(0).getResources(), out.getSpec().getContainers().get(0).getResources(),
                "never rewritten to a slice");
        assertTrue(out.getSpec().getNodeSelector() == null || out.getSpec().getNodeSelector().isEmpty(), "never moved to another pool by selector");
        // the batch-pool rule (placement.BatchRule): pool general before pool inference, never pool slicing for a pod ACE cannot classify
        String d = out.getMetadata().getAnnotations().get(AceKeys.DECISION);
        assertTrue(d.startsWith("reserved 2 GPUs") && d.contains("in pool general"), out.getMetadata().getAnnotations().toString());
        assertTrue(out.getSpec().getTolerations() == null || out.getSpec().getTolerations().isEmpty(), "no toleration of pool slicing added");
    }

    @Test
    void an_unclassifiable_pod_that_cannot_reach_pool_inference_is_left_untouched_with_a_warning() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(Pods.gpuPod("nvcr.io/nvidia/pytorch:24.05-py3", "[python, x.py]", "3",
                "nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}"));
        assertTrue(r.allowed());
        assertNull(r.patch());
        assertTrue(r.warnings().get(0).contains(AceKeys.WORKLOAD_CLASS));
    }

    @Test
    void nonsense_gpu_quantity_is_denied_naming_the_field() {
        EngineFixture f = EngineFixture.small();
        AdmissionResult r = f.mutate(Pods.gpuPod(PodPolicyTest.VLLM, "[]", "'0.5'", null));
        assertFalse(r.allowed());
        assertTrue(r.message().startsWith("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]"), r.message());
    }

    @Test
    void mps_pools_get_a_shared_gpu() {
        var labels = new java.util.HashMap<>(java.util.Map.of("kubernetes.io/hostname", "mps-0", "ace.dev/pool", "slicing",
                "nvidia.com/gpu.sharing-strategy", "mps", "nvidia.com/gpu.count", "4"));
        var mps = new dev.ace.binpacker.placement.NodeInfo("mps-0", dev.ace.binpacker.placement.Pool.SLICING, labels,
                java.util.List.of(), TestBoards.pcie(4), "test", "NVIDIA-L40S", 0);
        EngineFixture f = new EngineFixture(EngineFixture.hgx("hgx-0"), mps);
        Pod pod = Pods.gpuPod("michaelf34/infinity:0.0.70", "[v2]", "1", null);
        Pod out = f.patched(pod, f.mutate(pod));
        assertTrue(out.getSpec().getContainers().get(0).getResources().getLimits().containsKey(AceKeys.GPU_SHARED));
    }
}
