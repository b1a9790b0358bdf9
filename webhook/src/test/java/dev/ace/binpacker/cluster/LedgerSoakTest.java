package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.node.NodeShape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The randomised soak: two replicas over a deterministic fake API whose kubelets pick devices their own
 * way and report them ({@link SoakKubelet}), thousands of steps per seed. After every step: no GPU is
 * handed to two pods by a kubelet or held by two ledger entries, the ledger never exceeds what a node
 * offers, and every pod ACE pinned is bound, gated or decided again within a bound. After every pass of
 * a leader that had seen everything: the ledger holds for every started pod exactly the GPUs its node
 * reported, and no entry of a pod not started sits on GPUs a started pod holds. At the end, with the
 * faults off and every pod gone, nothing is left held anywhere. Longer runs:
 * {@code -Dace.soak.steps=50000 -Dace.soak.seeds=20}.
 */
class LedgerSoakTest {
    private static final int STEPS = Integer.getInteger("ace.soak.steps", 2_500);
    private static final int SEEDS = Integer.getInteger("ace.soak.seeds", 6);
    private static final long FIRST_SEED = Long.getLong("ace.soak.seed", 1);
    /** Soak time a pinned pod may stay unbound: stuck grace plus event delivery and leader changes, with slack. */
    private static final long PINNED_BOUND_MILLIS = 120_000;

    @Test
    void two_replicas_never_double_book_leave_no_pinned_pod_stuck_and_leak_nothing() {
        Logger quiet = Logger.getLogger("dev.ace.binpacker.cluster");
        Level before = quiet.getLevel();
        quiet.setLevel(Level.SEVERE);
        Map<String, Integer> totals = new HashMap<>();
        try {
            for (long seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
                Soak s = new Soak(seed);
                Map<String, Long> pinnedSince = new HashMap<>();
                try {
                    for (int step = 0; step < STEPS; step++) {
                        s.step();
                        check(s, pinnedSince);
                        if (s.applied) checkLedgerFollowsTheNodes(s, totals);
                    }
                    s.heal();
                    checkNothingLeaks(s);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError(e.getMessage() + "\n" + s.describe(), e);
                }
                s.stats.forEach((k, v) -> totals.merge(k, v, Integer::sum));
                totals.merge("deleted-by-ace", s.c.deletedByAce.size(), Integer::sum);
                totals.merge("max-pods", s.maxPods, Math::max);
                totals.merge("gate-released", s.c.gateReleases, Integer::sum);
                totals.merge("kubelet-rejected", s.kubelet.rejected, Integer::sum);
                for (Replica r : s.replicas) r.metrics.drift.forEach((k, v) -> totals.merge("drift-" + k, v.get(), Integer::sum));
            }
        } finally {
            quiet.setLevel(before);
        }
        System.out.println("soak: " + SEEDS + " seeds x " + STEPS + " steps: " + new java.util.TreeMap<>(totals));
        // The run must have exercised what it claims to: placements, gate releases, repairs, faults, stale leaders.
        int placed = totals.getOrDefault("admit-placed", 0) + totals.getOrDefault("gate-released", 0);
        assertTrue(placed > SEEDS * STEPS / 50, "too few placements to mean anything: " + totals);
        for (String k : new String[] {"admit-gated", "admit-failed-open", "deleted-by-ace", "fault", "stale-leader", "foreign",
                "drift-moved", "ledger-checked"}) {
            assertTrue(totals.getOrDefault(k, 0) > 0, "the soak never did " + k + ": " + totals);
        }
        assertEquals(0, totals.getOrDefault("kubelet-rejected", 0), "the scheduler bound a pod its kubelet had no devices for");
    }

    private static void check(Soak s, Map<String, Long> pinnedSince) {
        FakeCluster c = s.c;
        Map<String, Integer> requested = new HashMap<>();
        Set<String> stillPinned = new HashSet<>();
        for (String node : c.nodes.keySet()) {
            long prior = 0;
            for (long m : s.kubelet.devices(node).values()) {
                if ((prior & m) != 0) fail("a kubelet handed a GPU to two pods on " + node + ": " + s.kubelet.devices(node));
                prior |= m;
            }
        }
        for (Pod p : c.pods.values()) {
            String phase = p.getStatus().getPhase();
            boolean terminal = "Succeeded".equals(phase) || "Failed".equals(phase);
            String node = p.getSpec().getNodeName();
            Optional<Reservation> told = told(c, p);
            if (node != null && !terminal) requested.merge(node, dev.ace.binpacker.workload.GpuCount.held(p.getSpec()), Integer::sum);
            boolean pinnedUnbound = node == null && !terminal && told.isPresent() && !Soak.gated(p) && p.getMetadata().getDeletionTimestamp() == null;
            if (pinnedUnbound) {
                String uid = p.getMetadata().getUid();
                stillPinned.add(uid);
                long since = pinnedSince.computeIfAbsent(uid, k -> c.clock.get());
                if (c.clock.get() - since > PINNED_BOUND_MILLIS) {
                    fail("pod " + p.getMetadata().getName() + " pinned to " + told.get().node() + " for "
                            + (c.clock.get() - since) / 1000 + " s: neither bound, gated nor decided again");
                }
            }
        }
        pinnedSince.keySet().retainAll(stillPinned);
        for (Node n : c.nodes.values()) {
            String name = n.getMetadata().getName();
            int allocatable = NodeShape.allocatableGpus(n);
            assertTrue(requested.getOrDefault(name, 0) <= allocatable, "the scheduler over-filled " + name);
            LedgerDoc doc = c.docs.get(name);
            if (doc == null) continue;
            long union = 0;
            int sum = 0;
            for (Reservation e : doc.entries()) {
                if ((union & e.gpuMask()) != 0) fail("two ledger entries hold the same GPU on " + name + ": " + doc.entries());
                union |= e.gpuMask();
                sum += e.gpuCount();
            }
            assertTrue(sum <= allocatable, "the ledger holds " + sum + " GPUs on " + name + ", which offers " + allocatable);
        }
    }

    /**
     * After a leader's pass that saw every event: each entry whose pod the node reports (as the leader's
     * view shows it) holds exactly the reported GPUs; any other entry holds none of the GPUs started pods
     * hold or the node does not offer. A ledger object that applied a newer report than the leader's view
     * has (a previous leader did) is left alone.
     */
    private static void checkLedgerFollowsTheNodes(Soak s, Map<String, Integer> totals) {
        Replica leader = s.replicas[s.leader];
        for (LedgerDoc doc : s.c.docs.values()) {
            Optional<dev.ace.binpacker.truth.NodeReport> seen = leader.view.report(doc.node());
            if (seen.isEmpty() || doc.reportGeneration() > seen.get().generation()) continue;
            var report = seen.get();
            long started = 0;
            for (var p : report.pods()) started |= p.gpus();
            long offLimits = started | (((1L << report.gpuCount()) - 1) & ~report.healthy());
            for (Reservation e : doc.entries()) {
                Optional<PodFacts> pod = e.owner().podUid() == null ? Optional.empty() : leader.view.pods().get(e.owner().podUid())
                        .filter(f -> !f.terminal() && doc.node().equals(f.nodeName()));
                Optional<dev.ace.binpacker.truth.NodeReport.PodDevices> truth = pod.flatMap(f -> report.pod(f.namespace(), f.name()));
                if (truth.isPresent()) {
                    assertEquals(truth.get().gpus(), e.gpuMask(), "entry " + e + " on " + doc.node() + " after the leader applied " + report);
                    assertTrue(e.exact(), "confirmed entry " + e + " is marked exact");
                    totals.merge("ledger-checked", 1, Integer::sum);
                } else if (!(e.owner().podUid() == null && s.c.pods.values().stream().anyMatch(p -> e.id().equals(idOf(s.c, p))
                        && doc.node().equals(p.getSpec().getNodeName())))) {
                    assertEquals(0, e.gpuMask() & offLimits, "entry " + e + " of a pod not started sits on GPUs the node gave away: " + report);
                }
            }
        }
    }

    private static String idOf(FakeCluster c, Pod p) { return told(c, p).map(Reservation::id).orElse(null); }

    private static Optional<Reservation> told(FakeCluster c, Pod p) {
        var a = p.getMetadata().getAnnotations();
        return a == null ? Optional.empty() : ReservationJson.read(c.json, a.get(AceKeys.RESERVATION), 0);
    }

    private static void checkNothingLeaks(Soak s) {
        assertTrue(s.c.pods.isEmpty(), "pods left after healing: " + s.c.pods.size());
        for (LedgerDoc d : s.c.docs.values()) assertEquals(java.util.List.of(), d.entries(), "ledger object " + d.node() + " leaks");
        for (Replica r : s.replicas) {
            var left = r.allocator.read(a -> a.ledger().all().stream().filter(x -> x.kind() != Reservation.Kind.SHORTFALL).toList());
            assertEquals(java.util.List.of(), left, r.name + " still holds entries");
            assertEquals(0, r.pending.size(), r.name + " still queues pods");
            for (Node n : s.c.nodes.values()) {
                int i = r.allocator.state().indexOf(n.getMetadata().getName());
                assertEquals(NodeShape.allocatableGpus(n), Long.bitCount(r.allocator.state().freeMask(i)),
                        r.name + " does not see all of " + n.getMetadata().getName() + " free");
            }
        }
    }
}
