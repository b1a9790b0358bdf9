package dev.ace.binpacker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Multi-GPU batch work that pool inference must not take uses what else exists on the demo
 * inventory (k8s/demo/nodes.yaml: 3 HGX in pool inference, 2 A100 PCIe with bridged pairs and an
 * L40S in pool general, 2 MIG nodes in pool slicing), and a refusal says what would fit now.
 */
class BatchElsewhereTest {

    private static EngineFixture demo() throws Exception {
        NodeMapper m = NodeMapper.standard();
        return new EngineFixture(NodeListLoader.demo().stream().map(m::map).toArray(NodeInfo[]::new));
    }

    private static JsonNode reservation(EngineFixture f, Pod pod, AdmissionResult r) throws Exception {
        assertTrue(r.allowed(), r.message());
        Map<String, String> a = f.patched(pod, r).getMetadata().getAnnotations();
        return f.mapper.readTree(a.get(AceKeys.RESERVATION));
    }

    private static String decision(EngineFixture f, Pod pod, AdmissionResult r) {
        return f.patched(pod, r).getMetadata().getAnnotations().get(AceKeys.DECISION);
    }

    /** Two TP 8 replicas leave one free 8-clique on pool inference: the reserve of 1. */
    private static void takeTwoHgx(EngineFixture f) {
        assertTrue(f.mutate(PodPolicyTest.tp(8)).patch() != null);
        assertTrue(f.mutate(PodPolicyTest.tp(8)).patch() != null);
    }

    @Test
    void a_2_gpu_job_gets_an_nvlink_bridged_pair_of_pool_general_before_pool_inference() throws Exception {
        EngineFixture f = demo();
        Pod job = BackgroundAndModesTest.job(2, null);
        AdmissionResult r = f.mutate(job);
        JsonNode res = reservation(f, job, r);
        assertTrue(res.path("node").asText().startsWith("a100-pcie-"), res.toString());
        assertTrue(f.board(res.path("node").asText()).isClique(mask(res.path("gpus"))), "a bridged pair: " + res);
        String d = decision(f, job, r);
        assertTrue(d.contains("in pool general (NVLink nvl"), d);
        assertTrue(d.endsWith("pool inference kept whole: pools are tried in the order slicing, general, inference (ace.policy.batch-pools)"), d);
    }

    @Test
    void with_pool_general_full_a_2_gpu_job_that_would_eat_the_reserve_is_refused_for_it() throws Exception {
        EngineFixture f = demo();
        for (int i = 0; i < 3; i++) assertTrue(f.mutate(BackgroundAndModesTest.job(4, null)).allowed()); // a100-pcie-0, -1, l40s-0
        takeTwoHgx(f);
        AdmissionRequest req = f.request(BackgroundAndModesTest.job(2, null), "ml", false);
        Decision d = f.engine.policy().decide(req, false, f.clock.get());
        assertEquals(Decision.Verdict.DENY, d.verdict(), d.text());
        assertEquals(Why.Rule.RESERVE, d.why(), d.text());
        assertTrue(d.text().contains("below the reserve of 1 kept for TP 8"), d.text());
    }

    @Test
    void a_3_gpu_job_goes_to_the_pcie_only_node_rather_than_break_two_bridged_pairs() throws Exception {
        EngineFixture f = demo();
        Pod job = BackgroundAndModesTest.job(3, null);
        JsonNode res = reservation(f, job, f.mutate(job));
        assertEquals("l40s-0", res.path("node").asText());
        assertEquals(3, res.path("gpus").size());
    }

    @Test
    void when_pool_general_is_full_too_a_3_gpu_job_is_refused_for_capacity_naming_what_fits_now() throws Exception {
        EngineFixture f = demo();
        for (int i = 0; i < 3; i++) assertTrue(f.mutate(BackgroundAndModesTest.job(3, null)).allowed()); // l40s-0, a100-pcie-0, -1
        Pod job = BackgroundAndModesTest.job(3, null);
        AdmissionRequest req = f.request(job, "ml", false);
        Decision d = f.engine.policy().decide(req, false, f.clock.get());
        assertEquals(Decision.Verdict.DENY, d.verdict());
        assertEquals(Why.Rule.NO_FREE_GPUS, d.why(), "pool general could hold it once GPUs free up: not a shape refusal");
        assertTrue(d.text().contains("would fracture the 8-GPU NVLink domains of pool inference"), d.text());
        assertTrue(d.text().endsWith("accepted now: 2, 4 or 8 GPUs on pool inference (an aligned block)"), d.text());
    }

    @Test
    void a_6_gpu_job_no_node_outside_pool_inference_could_hold_is_refused_as_fracturing() throws Exception {
        EngineFixture f = demo();
        AdmissionRequest req = f.request(BackgroundAndModesTest.job(6, null), "ml", false);
        Decision d = f.engine.policy().decide(req, false, f.clock.get());
        assertEquals(Decision.Verdict.DENY, d.verdict(), d.text());
        assertEquals(Why.Rule.FRACTURING, d.why());
        assertTrue(d.text().contains("accepted now: 2, 4 or 8 GPUs on pool inference (an aligned block), up to 4 GPUs on one node of pool general"),
                d.text());
    }

    private static long mask(JsonNode gpus) {
        long m = 0;
        for (JsonNode g : gpus) m |= 1L << g.asInt();
        return m;
    }
}
