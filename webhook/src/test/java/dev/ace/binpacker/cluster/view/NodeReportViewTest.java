package dev.ace.binpacker.cluster.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.TestNodes;
import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One replica's view taking the node's word for capacity (every replica, not only the leader), and the
 * cost of the Node update every pod start and stop causes: the report changes, nothing else does.
 */
class NodeReportViewTest {
    private static final String HGX = "hgx-h100-0";
    private final AtomicLong clock = new AtomicLong(1_000);
    private final Allocator allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
    private final AtomicInteger upserts = new AtomicInteger();
    private final LocalView view = new LocalView(() -> allocator, new PodCache(), new PendingDemand(Metrics.NOOP), Metrics.NOOP,
            Json.newMapper(), new NodeReports(30_000, clock::get));

    NodeReportViewTest() {
        allocator.state().addListener((i, before, after) -> upserts.incrementAndGet());
    }

    private static Node reported(Node n, long generation, long healthy, NodeReport.PodDevices... pods) {
        Map<String, String> a = new HashMap<>(n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations());
        a.put(AceKeys.GPU_ALLOCATION, NodeReportJson.write(new NodeReport(generation, null, TopologyManagerPolicy.NONE, 8, healthy,
                List.of(pods), List.of())));
        n.getMetadata().setAnnotations(a);
        return n;
    }

    private Pod bound(String name, int gpus, String phase) {
        Pod p = Pods.gpuPod("busybox", "[sleep, '1']", Integer.toString(gpus), null);
        p.getMetadata().setName(name);
        p.getMetadata().setUid("uid-" + name);
        p.getSpec().setNodeName(HGX);
        p.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        p.getStatus().setPhase(phase);
        return p;
    }

    private long charged(String id) { return allocator.ledger().get(id).map(Reservation::gpuMask).orElse(0L); }

    @Test
    void a_node_update_that_changes_only_the_report_neither_maps_nor_regroups_the_node() {
        view.nodeChanged(TestNodes.node(HGX, 8));
        long membership = allocator.state().membershipVersion();
        view.podChanged(bound("job", 2, "Running"));
        int before = upserts.get();
        view.nodeChanged(reported(TestNodes.node(HGX, 8), 1, 0xff, new NodeReport.PodDevices("ml", "job", GpuBoard.mask(6, 7), 0, 0)));
        assertEquals(membership, allocator.state().membershipVersion(), "the node was not replaced in the packer's view");
        assertEquals(GpuBoard.mask(6, 7), charged("observed/uid-job"), "but the pod is charged where the node says it runs");
        assertTrue(upserts.get() > before, "which changed the free GPUs");

        int quiet = upserts.get();
        view.nodeChanged(reported(TestNodes.node(HGX, 8), 1, 0xff, new NodeReport.PodDevices("ml", "job", GpuBoard.mask(6, 7), 0, 0)));
        assertEquals(quiet, upserts.get(), "a Node update with nothing ACE reads (a kubelet status write) changes nothing");

        Node relabelled = reported(TestNodes.node(HGX, 8), 1, 0xff, new NodeReport.PodDevices("ml", "job", GpuBoard.mask(6, 7), 0, 0));
        relabelled.getMetadata().getLabels().put(AceKeys.TOPOLOGY_MANAGER_POLICY, "single-numa-node");
        view.nodeChanged(relabelled);
        assertTrue(allocator.state().membershipVersion() > membership, "a changed label is a new node shape");
    }

    @Test
    void the_report_counts_a_pod_no_informer_showed_and_forgets_pods_the_informers_know_finished_or_deleted() {
        view.nodeChanged(TestNodes.node(HGX, 8));
        view.podChanged(bound("done", 2, "Succeeded"));
        view.podChanged(bound("deleted", 1, "Running"));
        view.podGone("uid-deleted");
        view.nodeChanged(reported(TestNodes.node(HGX, 8), 3, 0xff,
                new NodeReport.PodDevices("ml", "done", GpuBoard.mask(0, 1), 0, 0),      // the agent has not caught up
                new NodeReport.PodDevices("ml", "deleted", GpuBoard.mask(2), 0, 0),
                new NodeReport.PodDevices("ml", "unseen", GpuBoard.mask(5), 0, 0),       // requests another resource name
                new NodeReport.PodDevices("ml", "embed", 0, GpuBoard.mask(4), 0)));      // a time-slicing replica: not a whole GPU
        assertEquals(List.of("ml/embed", "ml/unseen"), view.report(HGX).orElseThrow().pods().stream().map(NodeReport.PodDevices::key).toList());
        assertEquals(GpuBoard.mask(5), charged("observed/" + NodeUsage.UNSEEN + "ml/unseen"));
        assertEquals(GpuBoard.mask(0, 1, 2, 3, 4, 6, 7), allocator.state().freeMask(0));
    }

    @Test
    void a_report_offering_no_gpu_changes_capacity_only_after_the_grace() {
        view.nodeChanged(reported(TestNodes.node(HGX, 8), 1, 0xff));
        view.nodeChanged(reported(TestNodes.node(HGX, 8), 2, 0));
        assertEquals(0xffL, allocator.state().freeMask(0), "the device plugin may be restarting");
        clock.addAndGet(30_000);
        view.expireReports();
        assertEquals(0L, allocator.state().freeMask(0), "after the grace no GPU of the node is offered");
        assertEquals(0xffL, charged("shortfall/" + HGX));
    }
}
