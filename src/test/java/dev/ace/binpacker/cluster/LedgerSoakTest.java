package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.AceKeys;
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
 * The randomised soak: two replicas over a deterministic fake API, thousands of steps per seed. After
 * every step: no GPU is held by two bound pods, the ledger never exceeds what a node offers, and every
 * pod ACE pinned is bound, gated or decided again within a bound. At the end, with the faults off and
 * every pod gone, nothing is left held anywhere. Longer runs: {@code -Dace.soak.steps=50000 -Dace.soak.seeds=20}.
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
            }
        } finally {
            quiet.setLevel(before);
        }
        System.out.println("soak: " + SEEDS + " seeds x " + STEPS + " steps: " + new java.util.TreeMap<>(totals));
        // The run must have exercised what it claims to: placements, gate releases, repairs, faults, stale leaders.
        int placed = totals.getOrDefault("admit-placed", 0) + totals.getOrDefault("gate-released", 0);
        assertTrue(placed > SEEDS * STEPS / 50, "too few placements to mean anything: " + totals);
        for (String k : new String[] {"admit-gated", "admit-failed-open", "deleted-by-ace", "fault", "stale-leader", "foreign"}) {
            assertTrue(totals.getOrDefault(k, 0) > 0, "the soak never did " + k + ": " + totals);
        }
    }

    private static void check(Soak s, Map<String, Long> pinnedSince) {
        FakeCluster c = s.c;
        Map<String, Long> held = new HashMap<>();
        Map<String, Integer> requested = new HashMap<>();
        Set<String> stillPinned = new HashSet<>();
        for (Pod p : c.pods.values()) {
            String phase = p.getStatus().getPhase();
            boolean terminal = "Succeeded".equals(phase) || "Failed".equals(phase);
            String node = p.getSpec().getNodeName();
            Optional<Reservation> told = told(c, p);
            if (node != null && !terminal) {
                requested.merge(node, dev.ace.binpacker.workload.GpuCount.held(p.getSpec()), Integer::sum);
                if (told.isPresent() && told.get().node().equals(node)) {
                    long prior = held.getOrDefault(node, 0L);
                    if ((prior & told.get().gpuMask()) != 0) {
                        fail("GPU held by two bound pods on " + node + ": " + p.getMetadata().getName() + " holds " + told.get());
                    }
                    held.put(node, prior | told.get().gpuMask());
                }
            }
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
            int allocatable = LocalView.allocatable(n);
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
                assertEquals(LocalView.allocatable(n), Long.bitCount(r.allocator.state().freeMask(i)),
                        r.name + " does not see all of " + n.getMetadata().getName() + " free");
            }
        }
    }
}
