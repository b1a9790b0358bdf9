package dev.ace.binpacker.cluster;

import static dev.ace.binpacker.cluster.ClusterScenariosTest.job;
import static dev.ace.binpacker.cluster.ClusterScenariosTest.told;
import static dev.ace.binpacker.cluster.ClusterScenariosTest.tp;
import static dev.ace.binpacker.cluster.MockCluster.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.cluster.view.NodeUsage;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node's word reaches the ledger (issue 9): replicas run as in production against the realistic
 * mock API, the scheduler binds pods, and the node agent's report is written to its node's GpuNodeReport as the
 * agent writes it, with the GPUs the kubelet really gave. After the leader applies it, every replica's ledger
 * holds what the node reported and the next pod is placed on GPUs that are really free.
 */
class NodeTruthScenariosTest {
    private static final String HGX = "hgx-h100-0";
    private static final long ALL = 0xffL;
    private MockCluster k8s;

    @BeforeEach
    void cluster() {
        k8s = new MockCluster();
        k8s.namespace("ml", null);
    }

    @AfterEach
    void down() { k8s.close(); }

    private static NodeReport report(long generation, int gpus, long healthy, NodeReport.PodDevices... pods) {
        return new NodeReport(generation, "2026-03-01T12:00:00Z", TopologyManagerPolicy.NONE, gpus, healthy, List.of(pods), List.of());
    }

    private static NodeReport.PodDevices holds(Pod p, long gpus) {
        return new NodeReport.PodDevices(p.getMetadata().getNamespace(), p.getMetadata().getName(), gpus, 0, 0);
    }

    private Optional<Reservation> storeEntryOf(Pod p) {
        String id = told(p).orElseThrow().id();
        return k8s.storeEntries().stream().filter(e -> e.id().equals(id)).findFirst();
    }

    private static boolean holdsExactly(MockReplica r, Pod p, long gpus) {
        String id = told(p).orElseThrow().id();
        return r.entries().stream().anyMatch(e -> e.id().equals(id) && e.gpuMask() == gpus && e.exact());
    }

    private static int drift(String kind, MockReplica... replicas) {
        return Stream.of(replicas).mapToInt(r -> r.metrics.drift(kind)).sum();
    }

    private MockReplica[] twoReplicas(Node... nodes) {
        for (Node n : nodes) k8s.node(n);
        MockReplica a = k8s.replica("a").start();
        MockReplica b = k8s.replica("b").start();
        eventually(() -> a.ready() && b.ready() && (a.leading() ^ b.leading()), "both ready, exactly one leads");
        return new MockReplica[] {a, b};
    }

    @Test
    void swapped_numa_halves_on_hgx_are_rekeyed_on_every_replica_and_the_next_tp4_gets_the_half_really_free() {
        MockReplica[] r = twoReplicas(TestNodes.node(HGX, 8));
        Pod first = k8s.admitAndCreate(r[0], tp(4, "first"));
        long planned = told(first).orElseThrow().gpuMask();
        long real = ALL & ~planned; // the device plugin ignores NVSwitch links: the kubelet took the other NUMA half
        assertEquals(1, k8s.schedule());
        k8s.agentReports(HGX, report(1, 8, ALL, holds(first, real)));

        eventually(() -> storeEntryOf(first).filter(e -> e.gpuMask() == real && e.exact()).isPresent(),
                "the leader re-keys the GpuLedger entry to the GPUs the node reported, marked exact");
        eventually(() -> holdsExactly(r[0], first, real) && holdsExactly(r[1], first, real), "every replica's mirror follows");
        eventually(() -> k8s.ledgerDocs().get(0).confirmed() == 4, "kubectl get gpuledgers counts the 4 GPUs as confirmed");
        eventually(() -> k8s.events("ml", "first").size() == 2, "the pod is told");
        String moved = "GpuBindingDrift: ACE expected GPUs " + list(planned) + " on " + HGX + "; the node gave " + list(real)
                + " (an NVLink clique); the ledger now holds those for this pod";
        String confirmed = "GpuBindingConfirmed: GPUs " + list(real) + " on " + HGX + " confirmed by the node (an NVLink clique)";
        assertEquals(List.of(moved, confirmed).stream().sorted().toList(), k8s.events("ml", "first").stream().sorted().toList());

        Pod next = k8s.admitAndCreate(r[1], tp(4, "next"));
        assertEquals(planned, told(next).orElseThrow().gpuMask(), "the next TP4 gets the half that is really free, a clique");
        assertEquals(1, k8s.schedule());
        k8s.agentReports(HGX, report(2, 8, ALL, holds(first, real), holds(next, planned)));
        eventually(() -> holdsExactly(r[0], next, planned) && holdsExactly(r[1], next, planned), "the second pod confirmed as planned");
        assertEquals(1, drift("moved", r), "the drift is counted once, not once per pass or per report");
        assertEquals(1, k8s.events("ml", "first").stream().filter(e -> e.startsWith("GpuBindingDrift")).count());
        // The leader records the event after it confirms the entry the replicas mirror: wait for it, do not race it.
        List<String> nextConfirmed = List.of(confirmed.replace(list(real), list(planned)));
        eventually(() -> k8s.events("ml", "next").equals(nextConfirmed), "the second pod is told its GPUs are confirmed");
    }

    @Test
    void a_one_gpu_pod_that_split_a_whole_bridged_pair_is_drift_and_no_tp2_is_promised_the_broken_pair() {
        k8s.namespace("team-exempt", "exempt");
        Node pairs = TestNodes.node("a100-pcie-0", 4);
        var labels = new HashMap<>(pairs.getMetadata().getLabels());
        labels.put(AceKeys.POOL, "inference");
        pairs.getMetadata().setLabels(labels);
        MockReplica[] r = twoReplicas(pairs);
        Pod other = k8s.create(job(1, "other", "team-exempt"));
        assertEquals(1, k8s.schedule());
        k8s.agentReports("a100-pcie-0", report(1, 4, 0xfL, holds(other, GpuBoard.mask(2))));
        eventually(() -> Stream.of(r).allMatch(x -> x.fleet.allocator().ledger().get("observed/" + other.getMetadata().getUid())
                .filter(e -> e.gpuMask() == GpuBoard.mask(2)).isPresent()), "every replica charges the exempt pod to GPU 2, where it runs");

        Pod small = k8s.admitAndCreate(r[0], tp(1, "small"));
        assertEquals(GpuBoard.mask(3), told(small).orElseThrow().gpuMask(), "ACE takes the partner of the used GPU, keeping pair 0-1 whole");
        assertEquals(1, k8s.schedule());
        k8s.agentReports("a100-pcie-0", report(2, 4, 0xfL, holds(other, GpuBoard.mask(2)), holds(small, GpuBoard.mask(0))));
        eventually(() -> holdsExactly(r[0], small, GpuBoard.mask(0)) && holdsExactly(r[1], small, GpuBoard.mask(0)),
                "the ledger follows the kubelet's choice, the first listed GPU");
        eventually(() -> drift("split_pair", r) == 1 && drift("moved", r) == 1, "a split pair is counted as such");
        eventually(() -> k8s.events("ml", "small").stream().anyMatch(e -> e.equals("GpuBindingDrift: ACE chose GPU 3 on a100-pcie-0, next to a GPU"
                + " already in use; the node gave 0 and broke a whole NVLink pair (NVIDIA/k8s-device-plugin#1193)")), "and told to the pod");

        Pod tp2 = k8s.admitAndCreate(r[1], tp(2, "pair"));
        assertTrue(GateRelease.isGated(tp2), "both pairs are broken: the TP2 pod waits instead of being pinned to GPUs 0,1");
    }

    @Test
    void pods_ace_never_placed_are_charged_to_their_real_gpus_on_every_replica_and_one_no_informer_showed_is_drift() {
        k8s.namespace("team-x", "exempt");
        MockReplica[] r = twoReplicas(TestNodes.node(HGX, 8));
        Pod down = k8s.create(job(3, "admitted-while-ace-was-down", "ml")); // failurePolicy: Ignore let it in untouched
        Pod renamed = k8s.create(Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: renamed, namespace: team-x}
                spec:
                  containers:
                  - {name: c, image: busybox, resources: {limits: {nvidia.com/h100: 1}}}
                """)); // the device plugin's renamed resource: ACE's informers see no nvidia.com/gpu request
        assertEquals(2, k8s.schedule());
        long downGpus = GpuBoard.mask(4, 5, 6);
        long renamedGpus = GpuBoard.mask(3);
        k8s.agentReports(HGX, report(1, 8, ALL, holds(down, downGpus), holds(renamed, renamedGpus)));

        String downId = "observed/" + down.getMetadata().getUid();
        String renamedId = "observed/" + NodeUsage.UNSEEN + "team-x/renamed";
        eventually(() -> Stream.of(r).allMatch(x -> x.fleet.allocator().read(a -> a.ledger().get(downId).map(Reservation::gpuMask)
                        .orElse(0L) == downGpus && a.ledger().get(renamedId).map(Reservation::gpuMask).orElse(0L) == renamedGpus)),
                "every replica charges both pods to the GPUs the node reports");
        eventually(() -> drift("unseen_pod", r) == 1, "the pod no informer showed is drift, counted once");
        eventually(() -> k8s.events("team-x", "renamed").equals(List.of("GpuBindingDrift: the node reports this pod holding GPU 3 on "
                + HGX + " that ACE's view of the cluster did not show; counted there from now on")), "and told");
        assertEquals(List.of(), k8s.events("ml", "admitted-while-ace-was-down"), "a pod ACE counts by its request is no drift");

        Pod next = k8s.admitAndCreate(r[1], tp(2, "next"));
        long got = told(next).orElseThrow().gpuMask();
        assertEquals(0, got & (downGpus | renamedGpus), "the next TP2 gets GPUs really free");
        assertEquals(2, Long.bitCount(got));
        assertEquals(0, drift("moved", r) + drift("displaced", r));
    }

    @Test
    void an_unhealthy_gpu_leaves_capacity_on_every_replica_and_comes_back_when_healthy() {
        MockReplica[] r = twoReplicas(TestNodes.node(HGX, 8));
        k8s.setAllocatable(HGX, 7);
        k8s.agentReports(HGX, report(1, 8, ALL & ~GpuBoard.mask(2), new NodeReport.PodDevices[0]));
        eventually(() -> Stream.of(r).allMatch(x -> x.fleet.allocator().ledger().get("shortfall/" + HGX)
                .filter(e -> e.gpuMask() == GpuBoard.mask(2)).isPresent()), "every replica holds exactly GPU 2 out of capacity");

        Pod tp4 = k8s.admitAndCreate(r[0], tp(4, "four"));
        assertEquals(GpuBoard.mask(4, 5, 6, 7), told(tp4).orElseThrow().gpuMask(), "not the NUMA half with the bad GPU");
        Pod tp2 = k8s.admitAndCreate(r[1], tp(2, "two"));
        assertEquals(0, told(tp2).orElseThrow().gpuMask() & GpuBoard.mask(2), "GPU 2 is handed to nobody");

        k8s.setAllocatable(HGX, 8);
        k8s.agentReports(HGX, report(2, 8, ALL, new NodeReport.PodDevices[0]));
        eventually(() -> Stream.of(r).allMatch(x -> x.fleet.allocator().ledger().get("shortfall/" + HGX).isEmpty()),
                "healthy again: back in capacity on every replica");
        Pod again = k8s.admitAndCreate(r[0], tp(2, "again"));
        assertEquals(GpuBoard.mask(0, 1, 2, 3) & ~told(tp2).orElseThrow().gpuMask(), told(again).orElseThrow().gpuMask(),
                "the next TP2 takes the pair with GPU 2");
    }

    @Test
    void a_report_older_than_the_one_the_ledger_applied_is_ignored_by_a_new_leader() {
        k8s.node(TestNodes.node(HGX, 8));
        k8s.node(TestNodes.node("hgx-h100-1", 8));
        MockReplica a = k8s.replica("a").start();
        eventually(() -> a.ready() && a.leading(), "a leads");
        Pod first = k8s.admitAndCreate(a, tp(4, "first"));
        String node = told(first).orElseThrow().node();
        long planned = told(first).orElseThrow().gpuMask();
        k8s.schedule();
        assertEquals(node, k8s.pod("ml", "first").orElseThrow().getSpec().getNodeName());
        k8s.agentReports(node, report(5, 8, ALL, holds(first, ALL & ~planned)));
        eventually(() -> storeEntryOf(first).filter(e -> e.gpuMask() == (ALL & ~planned)).isPresent(), "generation 5 applied");
        assertEquals(5, k8s.ledgerDocs().stream().filter(d -> d.node().equals(node)).findFirst().orElseThrow().reportGeneration());
        a.close();

        k8s.agentReports(node, report(3, 8, ALL, holds(first, planned))); // an old agent pod, still running during a rollout
        MockReplica c = k8s.replica("c").start();
        eventually(() -> c.ready() && c.leading(), "c leads once a's Lease expired");
        Pod second = k8s.admitAndCreate(c, tp(4, "second"));
        Reservation plan = told(second).orElseThrow();
        k8s.schedule();
        k8s.agentReports(plan.node(), node.equals(plan.node())
                ? report(6, 8, ALL, holds(first, ALL & ~planned), holds(second, plan.gpuMask()))
                : report(1, 8, ALL, holds(second, plan.gpuMask())));
        eventually(() -> storeEntryOf(second).filter(Reservation::exact).isPresent(), "c applies the fresh report, after the stale one");
        assertEquals(ALL & ~planned, storeEntryOf(first).orElseThrow().gpuMask(), "the stale generation 3 did not move the entry back");
        assertEquals(0, c.metrics.drift("moved"), "no drift from the stale report");
    }

    @Test
    void a_node_annotation_from_an_agent_before_gpunodereport_is_believed_until_the_node_object_appears_and_then_the_object_wins() {
        MockReplica[] r = twoReplicas(TestNodes.node(HGX, 8));
        Pod first = k8s.admitAndCreate(r[0], tp(4, "first"));
        long planned = told(first).orElseThrow().gpuMask();
        long real = ALL & ~planned;
        k8s.schedule();
        k8s.legacyAgentReports(HGX, report(4, 8, ALL, holds(first, real)));
        eventually(() -> storeEntryOf(first).filter(e -> e.gpuMask() == real && e.exact()).isPresent(),
                "an upgraded cluster keeps the node's word from the annotation");

        // The new agent continues the generation in the object, and removes the annotation (NodeReportAgentTest);
        // while both exist, the object is the one read, even when the annotation says otherwise.
        k8s.agentReports(HGX, report(5, 8, ALL & ~GpuBoard.mask(lowest(planned)), holds(first, real)));
        eventually(() -> r[0].cluster.view().report(HGX).map(NodeReport::generation).orElse(0L) == 5
                && r[1].cluster.view().report(HGX).map(NodeReport::generation).orElse(0L) == 5, "every replica reads the object");
        k8s.legacyAgentReports(HGX, report(9, 8, ALL, holds(first, planned)));
        eventually(() -> r[0].cluster.view().report(HGX).map(NodeReport::generation).orElse(0L) == 5, "the object still wins");
        assertEquals(real, storeEntryOf(first).orElseThrow().gpuMask(), "the annotation did not move the entry");
    }

    private static int lowest(long mask) { return Long.numberOfTrailingZeros(mask); }

    private static String list(long mask) {
        StringBuilder b = new StringBuilder();
        for (int g : GpuBoard.indices(mask)) b.append(b.length() == 0 ? "" : ",").append(g);
        return b.toString();
    }
}
