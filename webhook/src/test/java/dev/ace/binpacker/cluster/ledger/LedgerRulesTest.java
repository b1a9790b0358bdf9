package dev.ace.binpacker.cluster.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.cluster.FakeCluster;
import dev.ace.binpacker.cluster.TestNodes;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.NodeUsage;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Holding;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The rules under the ledger, one by one: what a pod holds, which pods an entry covers, what a commit refuses, the object's shape. */
class LedgerRulesTest {
    private static final String NODE = "hgx-h100-0";

    @Test
    void sidecars_add_to_the_app_containers_and_ordinary_init_containers_count_by_their_maximum() {
        Pod p = Pods.yaml("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p, namespace: ml}
                spec:
                  initContainers:
                  - {name: sidecar, image: s, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 1}}}
                  - {name: warm, image: w, resources: {limits: {nvidia.com/gpu: 6}}}
                  containers:
                  - {name: a, image: a, resources: {requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}}
                  - {name: b, image: b, resources: {limits: {nvidia.com/gpu: 2}}}
                """);
        assertEquals(7, dev.ace.binpacker.workload.GpuCount.held(p.getSpec()), "max(2 + 2 + 1 sidecar, 6 + 1 sidecar started before it)");
        p.getSpec().getInitContainers().remove(1);
        assertEquals(5, dev.ace.binpacker.workload.GpuCount.held(p.getSpec()));
    }

    private static PodFacts bound(String uid, String name, String generateName, String reservationId, int gpus) {
        return new PodFacts(uid, "ml", name, generateName, NODE, false, gpus, false, reservationId, NODE, 0L, true, 0, 0, "1");
    }

    private static Ledger ledgerWith(Reservation... rs) {
        ClusterState s = new ClusterState();
        s.upsert(NodeMapper.standard().map(TestNodes.node(NODE, 8)));
        Ledger l = new Ledger(s);
        for (Reservation r : rs) l.record(r);
        return l;
    }

    private static Reservation entry(String id, long mask, Reservation.Owner owner) {
        return new Reservation(id, NODE, mask, 1000, 0, 4, null, 0, owner.podUid() == null, owner);
    }

    @Test
    void an_entry_covers_its_tied_pod_and_before_the_tie_the_pod_its_annotation_and_owner_name() {
        Reservation tied = entry("e1", GpuBoard.mask(0, 1, 2, 3), new Reservation.Owner("r1", "ml", "db-0", "uid-1"));
        Reservation untied = entry("e2", GpuBoard.mask(4, 5), new Reservation.Owner("r2", "ml", "llama-", null));
        Ledger l = ledgerWith(tied, untied);
        List<PodFacts> pods = List.of(
                bound("uid-1", "db-0", null, "e1", 4),               // covered by its tie
                bound("uid-2", "llama-x7k", "llama-", "e2", 2),      // covered before the tie: annotation + generateName
                bound("uid-3", "other", null, "e2", 2),              // carries e2 but is not its owner: counted
                bound("uid-4", "db-0-copy", null, "e1", 4),          // a copy of db-0's annotation: counted, reported
                bound("uid-5", "job", null, null, 3));               // a pod ACE never saw: counted
        NodeUsage.Result r = NodeUsage.of(NODE, pods, l, null);
        assertEquals(List.of("uid-3", "uid-4", "uid-5"), r.holdings().stream().map(Holding::key).toList());
        assertEquals(List.of("uid-4"), r.copies().stream().map(PodFacts::uid).toList());
    }

    private static LedgerDoc.Capacity eight(int foreign) { return new LedgerDoc.Capacity(8, 8, foreign); }

    @Test
    void a_commit_is_refused_on_overlap_on_the_same_id_with_other_gpus_and_beyond_what_the_node_offers() {
        FakeCluster c = new FakeCluster(1);
        AtomicInteger conflicts = new AtomicInteger();
        int[] foreign = {0};
        SharedLedger shared = new SharedLedger(c.ledger, n -> eight(foreign[0]), conflicts::incrementAndGet);
        Reservation.Owner o = new Reservation.Owner("r", "ml", "p", null);
        Reservation a = entry("a", GpuBoard.mask(0, 1, 2, 3), o);
        assertEquals(List.of(), shared.commit(a));
        assertEquals(List.of(), shared.commit(a), "committing the same entry again is a no-op");
        assertEquals(1, shared.commit(entry("b", GpuBoard.mask(3, 4), o)).size(), "overlap");
        assertEquals(List.of(a), shared.commit(entry("a", GpuBoard.mask(4, 5), o)), "same id, other GPUs");
        foreign[0] = 3;
        assertEquals(List.of(a), shared.commit(entry("c", GpuBoard.mask(4, 5), o)), "4 held + 3 used by other pods + 2 > 8");
        assertEquals(3, conflicts.get());
        foreign[0] = 2;
        assertEquals(List.of(), shared.commit(entry("c", GpuBoard.mask(4, 5), o)));
    }

    @Test
    void release_goes_by_id_and_pod_uid_never_an_entry_tied_to_another_pod() {
        FakeCluster c = new FakeCluster(1);
        SharedLedger shared = new SharedLedger(c.ledger, n -> eight(0), () -> { });
        Reservation e = entry("e", GpuBoard.mask(0, 1), new Reservation.Owner("r", "ml", "db-0", null));
        shared.commit(e);
        assertTrue(shared.tie(e, "uid-new", "db-0"));
        shared.remove(e.tiedTo("uid-old", "db-0")); // the old pod of that name going away
        assertEquals(1, c.docs.get(NODE).entries().size(), "the entry of the new pod of that name stays");
        shared.remove(e.tiedTo("uid-new", "db-0"));
        assertEquals(0, c.docs.get(NODE).entries().size());
    }

    @Test
    void a_gpu_ledger_object_carries_entries_and_the_counts_kubectl_prints() {
        LedgerCodec codec = new LedgerCodec(Json.newMapper());
        Reservation held = entry("h", GpuBoard.mask(0, 1, 2, 3), new Reservation.Owner("r1", "ml", "db-0", "uid-1"))
                .rekeyed(GpuBoard.mask(4, 5, 6, 7), true); // the node agent reported its pod on 4-7
        Reservation pending = entry("p", GpuBoard.mask(0, 1), new Reservation.Owner("r2", "ml", "llama-", null));
        LedgerDoc doc = new LedgerDoc(NODE, "7", new LedgerDoc.Capacity(8, 8, 1), List.of(held, pending), 12);
        var object = Json.newMapper().valueToTree(codec.write(doc));
        assertEquals("GpuLedger", object.path("kind").asText());
        assertEquals(NODE, object.at("/metadata/name").asText());
        assertEquals("bound", object.at("/spec/entries/0/state").asText());
        assertTrue(object.at("/spec/entries/0/exact").asBoolean(), "the confirmed entry says so");
        assertTrue(object.at("/spec/entries/1/exact").isMissingNode(), "ACE's plan is not marked exact");
        assertEquals(12, object.at("/spec/reportGeneration").asLong());
        assertEquals("[0,1]", object.at("/spec/entries/1/gpus").toString());
        assertEquals("{\"gpus\":8,\"allocatable\":8,\"held\":4,\"pending\":2,\"confirmed\":4,\"foreign\":1,\"free\":1}",
                object.path("status").toString());
        assertEquals(doc, codec.read(codec.write(doc)));
    }
}
