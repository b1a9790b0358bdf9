package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.ledger.LedgerStore;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The leader's keyed controllers through {@code Reconciler}, on the fake cluster and its clock: a key comes
 * with its node's events, when a time-out measured from first sight runs out (requeue-after), after its
 * backoff when a write failed, and at each resync; a replica that stops leading keeps no work and a new
 * term measures afresh. Work is counted (reconciles, API calls), never timed.
 */
class LeaderControllersTest {
    static final ReconcilerConfig CONFIG = new ReconcilerConfig(120_000, 5_000, 3_000, ReconcilerConfig.EMPTY_REPORT_GRACE_MILLIS, 0, 60_000);

    private final FakeCluster c = new FakeCluster(16);
    private final AtomicInteger apiReads = new AtomicInteger();
    private final AtomicInteger apiWrites = new AtomicInteger();
    private final Replica r = new Replica("r0", counted(c.ledger), counted(c.podApi), c.json, CONFIG, c.clock::get, Map.of());
    private final Watch watch = new Watch(c, r.view);
    private int requests;
    /** The clock of the first leading pass, which started the controllers: resyncs follow every period from it. */
    private long started = Long.MIN_VALUE;

    private Pod admit(int gpus, String name) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '" + gpus + "']", Integer.toString(gpus), null);
        p.getMetadata().setName(name);
        Pod out = r.admit(p, "req-" + (++requests));
        assertNotNull(out, name + " is admitted");
        return out;
    }

    private void pass() {
        if (started == Long.MIN_VALUE) started = c.clock.get();
        watch.deliverAll();
        r.reconciler.reconcile(() -> true);
        watch.deliverAll();
    }

    private long reconciles() {
        return r.reconciler.work().entrySet().stream().filter(e -> !e.getKey().equals("passes")).mapToLong(Map.Entry::getValue).sum();
    }

    private long reconciles(String controller) { return r.reconciler.work().get(controller); }

    private Optional<Reservation> entry(String id) { return r.allocator.read(a -> a.ledger().get(id)); }

    private static String reservation(Pod p) { return ClusterScenariosTest.told(p).orElseThrow().id(); }

    /** Nodes 8-GPU boards, each with one TP 8 pod admitted, created, bound and tied; then passes until nothing is left to do. */
    private void busyIdleFleet(int nodes) {
        for (int i = 0; i < nodes; i++) c.putNode(TestNodes.hgx(String.format("hgx-%04d", i), 8));
        watch.deliverAll();
        for (int i = 0; i < nodes; i++) {
            c.create(admit(8, "p" + i));
            watch.deliverAll(); // the replica sees its pods arrive, as its informer would (the pending cap counts the others)
        }
        FakeScheduler.schedule(c);
        for (int i = 0; i < 3; i++) {
            c.clock.addAndGet(2_000);
            pass();
        }
        assertEquals((long) nodes, (long) r.allocator.read(a -> a.ledger().all().stream().filter(e -> e.owner().podUid() != null).count()),
                "every entry tied to its pod");
    }

    @Test
    void an_idle_fleet_of_1000_nodes_costs_no_reconcile_and_no_api_call_between_resyncs_and_one_per_node_and_controller_at_one() {
        busyIdleFleet(1_000);
        long firstResync = started + CONFIG.resyncMillis();
        while (c.clock.get() + 2_000 < firstResync) { // a new leader publishes 50 nodes' counts a pass: 20 passes
            c.clock.addAndGet(2_000);
            pass();
        }
        c.clock.set(firstResync);
        pass();
        long before = reconciles();
        int reads = apiReads.get();
        int writes = apiWrites.get();
        int passes = 0;
        long nextResync = firstResync + CONFIG.resyncMillis();
        while (c.clock.get() + 2_000 < nextResync) { // the 2 s passes of one resync period, no event
            c.clock.addAndGet(2_000);
            pass();
            passes++;
        }
        assertEquals(29, passes);
        assertEquals(0, reconciles() - before, "no event, no time-out: no key reconciled in " + passes + " passes");
        assertEquals(0, apiReads.get() - reads);
        assertEquals(0, apiWrites.get() - writes);

        Map<String, Long> at = r.reconciler.work();
        c.clock.set(nextResync);
        pass();
        Map<String, Long> after = r.reconciler.work();
        for (String controller : new String[] {"entries", "reports", "pins", "counts"}) {
            assertEquals(1_000, after.get(controller) - at.get(controller), controller + ": every node's key once at the resync");
        }
        assertEquals(0, apiReads.get() - reads, "an idle resync reads nothing from the API server");
        assertEquals(0, apiWrites.get() - writes, "and writes nothing");
        System.out.printf("idle fleet of 1000 nodes: %d passes without a reconcile or an API call, then a resync of %s reconciles%n",
                passes, diff(at, after));
    }

    private static Map<String, Long> diff(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        b.forEach((k, v) -> out.put(k, v - a.getOrDefault(k, 0L)));
        return out;
    }

    @Test
    void an_untied_entry_whose_pod_never_comes_is_looked_at_again_when_its_ttl_runs_out_not_on_every_pass() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        watch.deliverAll();
        String id = reservation(admit(4, "never-created"));
        long t0 = c.clock.get();
        pass();
        assertEquals(OptionalLong.of(CONFIG.pendingTtlMillis() + 1), r.reconciler.untilNextDue(), "the node's key waits for the TTL");
        long entries = reconciles("entries");
        while (c.clock.get() + 2_000 <= t0 + CONFIG.pendingTtlMillis()) {
            c.clock.addAndGet(2_000);
            pass();
        }
        c.clock.set(t0 + CONFIG.pendingTtlMillis());
        pass();
        long resyncs = CONFIG.pendingTtlMillis() / CONFIG.resyncMillis(); // the passes at t0 + 60 s and t0 + 120 s
        assertEquals(entries + resyncs, reconciles("entries"), "no pass before the TTL looked at the node's entries but the resyncs");
        assertTrue(entry(id).isPresent(), "held while not older than the TTL");
        c.clock.incrementAndGet();
        pass();
        assertFalse(entry(id).isPresent(), "released once older than the TTL");
        assertEquals(1, r.metrics.expired.get());
        assertEquals(entries + resyncs + 1, reconciles("entries"), "the pass after the TTL released it");
    }

    @Test
    void a_replica_that_stops_leading_drains_its_queues_and_a_new_term_measures_the_ttl_from_its_own_first_sight() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        watch.deliverAll();
        String id = reservation(admit(4, "never-created"));
        pass();
        assertTrue(r.reconciler.untilNextDue().isPresent());
        c.clock.addAndGet(CONFIG.pendingTtlMillis() / 2);
        r.reconciler.reconcile(() -> false);
        assertEquals(OptionalLong.empty(), r.reconciler.untilNextDue(), "no key waits on a replica that does not lead");
        long entries = reconciles("entries");
        c.clock.addAndGet(CONFIG.pendingTtlMillis());
        r.reconciler.reconcile(() -> false);
        assertEquals(entries, reconciles("entries"), "nothing reconciled while not leading");
        long regained = c.clock.get();
        pass(); // leads again: every key, ages from now
        assertTrue(entry(id).isPresent(), "older than the TTL since the admission, but not since this term first saw it");
        c.clock.set(regained + CONFIG.pendingTtlMillis() + 1);
        pass();
        assertFalse(entry(id).isPresent());
    }

    @Test
    void a_pod_event_brings_the_key_of_its_node_only() {
        for (int i = 0; i < 3; i++) c.putNode(TestNodes.hgx("hgx-" + i, 8));
        watch.deliverAll();
        Pod[] pods = new Pod[3];
        for (int i = 0; i < 3; i++) pods[i] = c.create(admit(8, "p" + i));
        FakeScheduler.schedule(c);
        c.clock.addAndGet(2_000);
        pass();
        pass();
        String id = reservation(pods[1]);
        String node = entry(id).orElseThrow().node();
        long entries = reconciles("entries");
        c.deleteByUser(pods[1].getMetadata().getUid());
        c.kubeletsFinish();
        pass();
        assertFalse(entry(id).isPresent(), "the deleted pod's entry released in the pass after its event");
        assertEquals(1, reconciles("entries") - entries, "its node's key, not the fleet's");
        boolean empty = r.allocator.read(a -> a.ledger().onNode(node).isEmpty());
        assertTrue(empty);
    }

    @Test
    void a_failed_tie_is_retried_after_its_backoff_not_before() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        pass(); // the node's counts published
        pass();
        Pod p = c.create(admit(4, "p"));
        watch.deliverAll();
        c.faults.ledgerWriteFailBefore = 1;
        pass();
        String id = reservation(p);
        assertTrue(entry(id).map(e -> e.owner().podUid() == null).orElseThrow(), "the tie's write failed");
        c.clock.addAndGet(999);
        pass();
        assertTrue(entry(id).map(e -> e.owner().podUid() == null).orElseThrow(), "not retried within the base backoff");
        c.clock.addAndGet(1);
        pass();
        assertEquals(p.getMetadata().getUid(), entry(id).map(e -> e.owner().podUid()).orElseThrow(), "tied on the retry");
    }

    @Test
    void a_pinned_pod_whose_node_shrank_is_repaired_when_its_stuck_grace_runs_out_counted_from_first_sight() {
        c.putNode(TestNodes.hgx("hgx-a", 8));
        watch.deliverAll();
        Pod p = c.create(admit(8, "p")); // pinned, not bound: no scheduler runs
        c.clock.addAndGet(2_000);
        pass();
        c.putNode(TestNodes.withAllocatable(TestNodes.hgx("hgx-a", 8), 4)); // the node now offers 4 of its 8 GPUs
        long seen = c.clock.get();
        pass();
        assertEquals(OptionalLong.of(CONFIG.stuckGraceMillis()), r.reconciler.untilNextDue(), "the node's pins wait for the grace");
        c.clock.set(seen + CONFIG.stuckGraceMillis() - 1);
        pass();
        assertTrue(c.events.stream().noneMatch(e -> e.contains("AceNodeOvercommitted")), "not before the grace ran out");
        c.clock.set(seen + CONFIG.stuckGraceMillis());
        pass();
        assertTrue(c.events.stream().anyMatch(e -> e.contains("/" + p.getMetadata().getName() + " AceNodeOvercommitted")), c.events.toString());
        assertEquals(1, r.metrics.repaired.get("reported").get());
    }

    @Test
    void a_new_leader_of_120_nodes_publishes_their_counts_50_a_pass() {
        for (int i = 0; i < 120; i++) c.putNode(TestNodes.hgx("hgx-" + i, 8));
        watch.deliverAll();
        int[] published = new int[3];
        for (int i = 0; i < 3; i++) {
            pass();
            published[i] = (int) c.docs.values().stream().filter(d -> d.capacity().gpus() == 8).count();
        }
        assertEquals(50, published[0]);
        assertEquals(100, published[1]);
        assertEquals(120, published[2]);
    }

    private LedgerStore counted(LedgerStore s) {
        return new LedgerStore() {
            @Override
            public Optional<LedgerDoc> get(String node) {
                apiReads.incrementAndGet();
                return s.get(node);
            }

            @Override
            public LedgerDoc create(LedgerDoc doc) {
                apiWrites.incrementAndGet();
                return s.create(doc);
            }

            @Override
            public LedgerDoc update(LedgerDoc doc) {
                apiWrites.incrementAndGet();
                return s.update(doc);
            }

            @Override
            public void delete(LedgerDoc doc) {
                apiWrites.incrementAndGet();
                s.delete(doc);
            }
        };
    }

    private PodApi counted(PodApi a) {
        return new PodApi() {
            @Override
            public Optional<Pod> get(String namespace, String name) {
                apiReads.incrementAndGet();
                return a.get(namespace, name);
            }

            @Override
            public void patch(String namespace, String name, ArrayNode ops) {
                apiWrites.incrementAndGet();
                a.patch(namespace, name, ops);
            }

            @Override
            public void delete(String namespace, String name, String resourceVersion) {
                apiWrites.incrementAndGet();
                a.delete(namespace, name, resourceVersion);
            }

            @Override
            public void event(PodFacts pod, String type, String reason, String message) {
                apiWrites.incrementAndGet();
                a.event(pod, type, reason, message);
            }
        };
    }
}
