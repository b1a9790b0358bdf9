package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Taint;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The batch-pool rule at the webhook (issue 20, placement.BatchRule): a multi-GPU batch job goes to pool slicing's
 * whole-GPU nodes first, then pool general, and pool inference last: aligned, past the reserve, and never while a TP
 * replica waits behind the gate, whatever the job's labels or node selector say.
 */
class BatchPoolRuleTest {
    /** An L4 x8 PCIe node of pool slicing that offers plain whole GPUs (no MIG, no MPS), tainted like every slicing node. */
    static NodeInfo l4Slicing(String name) {
        return new NodeInfo(name, Pool.SLICING, Map.of("kubernetes.io/hostname", name, AceKeys.POOL, "slicing",
                "nvidia.com/gpu.product", "NVIDIA-L4", AceKeys.GPU_COUNT, "8", "nvidia.com/gpu.compute.major", "8",
                "nvidia.com/gpu.compute.minor", "9"),
                List.of(new Taint(AceKeys.POOL, "slicing", "NoSchedule")), TestBoards.pcie(8), "test", "NVIDIA-L4", 0);
    }

    /** Inference, general, a whole-GPU slicing node and a MIG slicing node. */
    private static EngineFixture fleet(Map<String, String> settings) {
        return new EngineFixture(settings, EngineFixture.hgx("hgx-0"), EngineFixture.hgx("hgx-1"), EngineFixture.pcieNode("l40s-0", 4),
                l4Slicing("l4-0"), EngineFixture.migNode("mig-0"));
    }

    /** With the reserve at 0, so that only the yield to waiting TP replicas keeps batch work off pool inference. */
    private static Map<String, String> noReserve(boolean yield) {
        return Map.of("ace.policy.reserve-free8-cliques", "0", "ace.policy.batch-yields-to-waiting-tp", String.valueOf(yield));
    }

    private static String node(EngineFixture f, Pod pod, AdmissionResult r) {
        assertTrue(r.allowed(), r.message());
        String res = f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.RESERVATION);
        return res.replaceAll(".*\"node\":\"([^\"]+)\".*", "$1");
    }

    /** Pools slicing (l4-0, 8 GPUs) and general (l40s-0, 4 GPUs) full of batch jobs; then a TP 8 replica gated on a fragmented pool inference. */
    private static void fillAndQueueTp8(EngineFixture f) {
        for (int i = 0; i < 3; i++) {
            Pod job = BackgroundAndModesTest.job(4, null);
            String n = node(f, job, f.mutate(job));
            assertTrue(n.equals("l4-0") || n.equals("l40s-0"), "slicing, then general: " + n);
        }
        for (int tp : new int[] {4, 2, 4}) assertTrue(f.mutate(PodPolicyTest.tp(tp)).allowed());
        assertTrue(f.mutate(PodPolicyTest.tp(8)).allowed(), "gated, not denied");
        assertEquals(1, f.pending.waitingForCliques(), "the TP 8 replica waits for a clique");
    }

    @Test
    void a_2_gpu_batch_job_goes_to_a_whole_gpu_slicing_node_tolerating_its_taint_with_its_resource_unchanged() throws Exception {
        EngineFixture f = fleet(Map.of());
        Pod job = BackgroundAndModesTest.job(2, null);
        AdmissionResult r = f.mutate(job);
        assertEquals("l4-0", node(f, job, r), "not the free HGX boards, not the MIG node");
        Pod out = f.patched(job, r);
        assertTrue(out.getSpec().getTolerations().stream().anyMatch(t -> AceKeys.POOL.equals(t.getKey()) && "Exists".equals(t.getOperator())),
                "tolerates the slicing taint: " + out.getSpec().getTolerations());
        assertEquals(new Quantity("2"), out.getSpec().getContainers().get(0).getResources().getLimits().get(AceKeys.GPU), "whole GPUs stay whole GPUs");
        String d = out.getMetadata().getAnnotations().get(AceKeys.DECISION);
        assertTrue(d.contains("in pool slicing") && d.contains("pools are tried in the order slicing, general, inference"), d);
    }

    @Test
    void an_unclassified_2_gpu_pod_is_never_sent_to_pool_slicing() throws Exception {
        EngineFixture f = fleet(Map.of());
        Pod pod = Pods.gpuPod("nvcr.io/nvidia/pytorch:24.05-py3", "[python, x.py]", "2", null);
        assertEquals("l40s-0", node(f, pod, f.mutate(pod)));
    }

    @Test
    void with_slicing_and_general_full_pool_inference_takes_no_batch_job_while_a_tp_replica_waits() throws Exception {
        EngineFixture f = fleet(noReserve(true));
        fillAndQueueTp8(f);
        Decision d = f.engine.policy().decide(f.request(BackgroundAndModesTest.job(2, null), "ml", false), false, f.clock.get());
        assertEquals(Decision.Verdict.DENY, d.verdict(), d.text());
        assertEquals(Why.Rule.TP_WAITING, d.why());
        assertTrue(d.text().contains("1 TP replica waits for an NVLink clique"), d.text());
        assertTrue(d.text().endsWith("accepted now: no multi-GPU request fits the nodes this pod allows now"), d.text());
    }

    @Test
    void without_the_yield_the_same_job_takes_free_gpus_of_pool_inference_beside_the_waiting_tp_replica() throws Exception {
        EngineFixture f = fleet(noReserve(false));
        fillAndQueueTp8(f);
        Pod job = BackgroundAndModesTest.job(2, null);
        assertTrue(node(f, job, f.mutate(job)).startsWith("hgx-"));
    }

    @Test
    void a_job_pod_that_selects_pool_inference_or_calls_itself_inference_still_yields_to_the_waiting_tp_replica() throws Exception {
        EngineFixture f = fleet(noReserve(true));
        fillAndQueueTp8(f);
        Pod selecting = BackgroundAndModesTest.job(2, "nodeSelector: {ace.dev/pool: inference}");
        Decision d = f.engine.policy().decide(f.request(selecting, "ml", false), false, f.clock.get());
        assertEquals(Why.Rule.TP_WAITING, d.why(), d.text());
        // a Job's pod is batch work whatever its class label says (workload.Classification#identifiedServer)
        Pod labelled = BackgroundAndModesTest.job(2, null);
        labelled.getMetadata().setLabels(Map.of("batch.kubernetes.io/job-name", "ft", AceKeys.WORKLOAD_CLASS, "inference"));
        Decision e = f.engine.policy().decide(f.request(labelled, "ml", false), false, f.clock.get());
        assertEquals(Why.Rule.TP_WAITING, e.why(), "a label gives the class, not the inference pool: " + e.text());
    }

    @Test
    void batch_pools_without_inference_never_use_pool_inference() throws Exception {
        EngineFixture f = fleet(Map.of("ace.policy.batch-pools", "slicing,general"));
        for (int i = 0; i < 3; i++) assertTrue(f.mutate(BackgroundAndModesTest.job(4, null)).allowed());
        Decision d = f.engine.policy().decide(f.request(BackgroundAndModesTest.job(2, null), "ml", false), false, f.clock.get());
        assertEquals(Decision.Verdict.DENY, d.verdict(), d.text());
        assertEquals(Why.Rule.NO_FREE_GPUS, d.why());
        assertTrue(d.text().contains("pool inference takes no such pods (ace.policy.batch-pools)"), d.text());
        assertTrue(!d.text().contains("on pool inference (an aligned block)"), "not offered as accepted now: " + d.text());
    }
}
