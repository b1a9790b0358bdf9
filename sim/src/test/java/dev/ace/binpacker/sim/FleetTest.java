package dev.ace.binpacker.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.placement.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetTest {
    @Test
    void theFleetGeneratorIsDeterministicPerSeedAndSurvivesTheCsvRoundTrip(@TempDir Path dir) throws Exception {
        List<FleetPod> a = FleetTrace.generate(7, 200, 50, FleetTrace.DEFAULT_MIX);
        assertEquals(a, FleetTrace.generate(7, 200, 50, FleetTrace.DEFAULT_MIX));
        assertNotEquals(a, FleetTrace.generate(8, 200, 50, FleetTrace.DEFAULT_MIX));
        Path f = dir.resolve("fleet.csv");
        FleetTrace.write(f, a);
        List<FleetPod> back = FleetTrace.read(f);
        assertEquals(a.size(), back.size());
        assertEquals(a.get(10).kind(), back.get(10).kind());
        assertEquals(a.get(10).arrival(), back.get(10).arrival(), 1e-3);
        assertTrue(Files.readString(f).startsWith("id,arrival_s,duration_s,kind,gpus,milli,tp"));
    }

    @Test
    void theFleetsHgxCountIsAParameterAndTheOtherPoolsStay() {
        assertEquals(FleetTrace.cluster(), FleetTrace.cluster(FleetTrace.HGX_NODES));
        List<OpenbNode> bigger = FleetTrace.cluster(72);
        assertEquals(72 + 16 + 8, bigger.size());
        assertEquals(72, bigger.stream().filter(n -> n.model().startsWith("HGX")).count());
        assertEquals(Map.of(2, 64L, 8, 576L), new WaitBound(new SimCluster(bigger, new OpenbBoards())).pools());
        assertThrows(IllegalArgumentException.class, () -> FleetTrace.cluster(0));
    }

    @Test
    void aceKeepsEveryTpReplicaOnAnNvlinkCliqueAndFewerSmallPodsOnTheInferencePoolThanKubernetes() {
        ProtocolB b = new ProtocolB(new SimCluster(FleetTrace.cluster(), new OpenbBoards()));
        List<FleetPod> trace = FleetTrace.generate(3, 400, 50, FleetTrace.DEFAULT_MIX);
        FleetResult r = b.run("ace", trace, 3);
        assertEquals(100.0, r.tpFullBandwidthPct(), 1e-9);
        assertEquals(0, r.tpDegraded());
        assertEquals(0, r.strandedGpus(), 1e-9);
        // small pods use the inference pool only once slicing and general are full (TP 2 takes the general pool's pairs first)
        assertTrue(r.smallOnInference() < b.run("k8s-default", trace, 3).smallOnInference() / 4, "small on inference: " + r.smallOnInference());
    }

    @Test
    void kubernetesDefaultPutsSomeTpReplicasOnGpusWithoutNvlink() {
        ProtocolB b = new ProtocolB(new SimCluster(FleetTrace.cluster(), new OpenbBoards()));
        FleetResult r = b.run("k8s-default", FleetTrace.generate(3, 400, 50, FleetTrace.DEFAULT_MIX), 3);
        assertTrue(r.tpDegraded() > 0, "k8s-default placed every TP replica on a clique by luck");
    }

    @Test
    void aceSendsTp2ReplicasToBridgedPairsOfTheGeneralPoolBeforeTheNvswitchNodes() {
        SimContext ctx = SimFixtures.context(FleetTrace.cluster(), TargetWorkload.of(List.of(), 95));
        Policy ace = Policies.create("ace", ctx);
        assertTrue(ace.place(new SimPod("tp2", 0, 0, 2, 1000, "", -1), "tp2", 2, List.of()));
        var r = ace.reservation("tp2").orElseThrow();
        assertTrue(r.node().startsWith("nvl-"), "TP2 went to " + r.node());
        assertTrue(ctx.state().node(ctx.state().indexOf(r.node())).board().isClique(r.gpuMask()));
        assertTrue(ace.place(new SimPod("tp4", 0, 0, 4, 1000, "", -1), "tp4", 4, List.of()));
        assertTrue(ace.reservation("tp4").orElseThrow().node().startsWith("hgx-"));
    }

    @Test
    void aceSendsMultiGpuBatchJobsWhereTheWebhooksBatchPoolRuleSaysSlicingThenGeneralThenInference() {
        SimContext ctx = SimFixtures.context(FleetTrace.cluster(), TargetWorkload.of(List.of(), 95));
        Policy ace = Policies.create("ace", ctx);
        // 8 L4 nodes of 8 GPUs: sixteen 4-GPU jobs fill pool slicing; the next goes to pool general, none to pool inference
        for (int i = 0; i < 17; i++) {
            assertTrue(ace.placeBatch(new SimPod("b" + i, 0, 0, 4, 1000, "", -1), "b" + i, List.of(Pool.INFERENCE), 0));
            String node = ace.reservation("b" + i).orElseThrow().node();
            assertTrue(i < 16 ? node.startsWith("l4-") : node.startsWith("nvl-"), "batch job " + i + " went to " + node);
        }
        // the order the simulator gave batch jobs before the rule (general first, then inference) is a variant row now
        Policy before = Policies.create("ace-batch-general-first", SimFixtures.context(FleetTrace.cluster(), TargetWorkload.of(List.of(), 95)));
        assertTrue(before.placeBatch(new SimPod("b", 0, 0, 4, 1000, "", -1), "b", List.of(), 0));
        assertTrue(before.reservation("b").orElseThrow().node().startsWith("nvl-"));
    }

    @Test
    void aceYieldsPoolInferenceToWaitingTpReplicasForBatchJobs() {
        SimContext ctx = SimFixtures.context(FleetTrace.cluster(), TargetWorkload.of(List.of(), 95));
        Policy ace = Policies.create("ace", ctx);
        for (int i = 0; i < 32; i++) assertTrue(ace.placeBatch(new SimPod("b" + i, 0, 0, 4, 1000, "", -1), "b" + i, List.of(), 0));
        // pools slicing and general are full now: pool inference is the last pool, closed while a TP replica waits
        assertTrue(!ace.placeBatch(new SimPod("late", 0, 0, 2, 1000, "", -1), "late", List.of(), 1));
        assertTrue(ace.placeBatch(new SimPod("late", 0, 0, 2, 1000, "", -1), "late", List.of(), 0));
        assertTrue(ace.reservation("late").orElseThrow().node().startsWith("hgx-"));
    }

    @Test
    void theFleetPageExplainsItsColumnsAndDrawsTpOnCliqueWaitingAndGpusInUse() {
        ProtocolB b = new ProtocolB(new SimCluster(FleetTrace.cluster(), new OpenbBoards()));
        List<FleetPod> trace = FleetTrace.generate(5, 600, 70, FleetTrace.DEFAULT_MIX);
        List<FleetResult> rs = List.of(FleetReport.mean("ace", List.of(b.run("ace", trace, 5))),
                FleetReport.mean("hived", List.of(b.run("hived", trace, 5))));
        String html = FleetHtml.html("fleet", List.of(5L), 70, rs);
        for (String s : List.of("TP replicas on an NVLink clique over time", "TP replicas waiting over time", "GPUs in use over time",
                "wait p95 min", "full-BW hours %", "<dt>waited %</dt>")) {
            assertTrue(html.contains(s), s);
        }
        FleetResult.Waits w = rs.get(0).waits();
        assertEquals(w.minutes().length == 0, w.p95Minutes() == 0);
        assertTrue(w.p50Minutes() <= w.p95Minutes());
        assertTrue(w.fullBandwidthHoursPct() > 0 && w.fullBandwidthHoursPct() <= 100);
    }
}
