package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Pods;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One seeded run of two replicas over {@link FakeCluster}: random admissions on either replica, pods
 * ACE never sees, binds, kubelets that pick devices their own way with agents that report them
 * ({@link SoakKubelet}), deletions, completions, StatefulSet-style re-creations, dropped watches, lost
 * and stale leaders, and API faults. {@link LedgerSoakTest} checks the invariants after every step.
 */
final class Soak {
    static final ReconcilerConfig CONFIG = new ReconcilerConfig(120_000, 5_000, 3_000);

    final long seed;
    final FakeCluster c;
    final SoakKubelet kubelet;
    final Replica[] replicas = new Replica[2];
    final Watch[] watches = new Watch[2];
    final Random rnd;
    final Deque<String> trace = new ArrayDeque<>();
    final Map<String, Integer> stats = new HashMap<>();
    int leader;
    int maxPods;
    /** The last step was a leader's pass with its view caught up and no fault hit: it applied every node's report. */
    boolean applied;
    private int requests;

    Soak(long seed) {
        this.seed = seed;
        this.rnd = new Random(seed);
        this.c = new FakeCluster(seed);
        this.kubelet = new SoakKubelet(c, seed);
        Map<String, NamespaceMode> modes = Map.of("batch", NamespaceMode.EXEMPT);
        for (int i = 0; i < replicas.length; i++) {
            replicas[i] = new Replica("r" + i, c.ledger, c.podApi, c.json, CONFIG, c.clock::get, modes);
            watches[i] = new Watch(c, replicas[i].view);
        }
        c.putNode(TestNodes.node("hgx-h100-0", 8));
        c.putNode(TestNodes.node("hgx-h100-1", 8));
        c.putNode(TestNodes.node("hgx-h200-0", 6)); // two GPUs of the board the device plugin does not offer
        c.putNode(TestNodes.hgx("hgx-h100-2", 8));
        for (Watch w : watches) w.deliverAll();
    }

    void step() {
        maxPods = Math.max(maxPods, c.pods.size());
        applied = false;
        c.clock.addAndGet(100 + rnd.nextInt(900));
        int a = rnd.nextInt(100);
        if (a < 11) admit();
        else if (a < 18) foreign();
        else if (a < 40) deliver();
        else if (a < 52) schedule();
        else if (a < 64) reconcile(leader, true);
        else if (a < 77) deleteOrComplete();
        else if (a < 80) note("kubelets finish").kubeletsFinish();
        else if (a < 83) agents();
        else if (a < 89) fault();
        else if (a < 92) changeLeader();
        else if (a < 94) reconcile(1 - leader, false);
        else checkInFlight(rnd.nextInt(2));
    }

    private FakeCluster note(String what) {
        trace.addLast(c.clock.get() + " " + what);
        if (trace.size() > 60) trace.removeFirst();
        stats.merge(what.split(" ")[0], 1, Integer::sum);
        return c;
    }

    private void admit() {
        Replica r = replicas[rnd.nextInt(2)];
        int gpus = new int[] {1, 1, 2, 2, 4, 4, 8}[rnd.nextInt(7)];
        Pod pod = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '" + gpus + "']", Integer.toString(gpus), null);
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName("svc-");
        if (rnd.nextInt(5) == 0) {
            String fixed = "db-" + rnd.nextInt(3); // a StatefulSet: the same name again, a new UID
            if (c.find("ml", fixed).isPresent()) return;
            pod.getMetadata().setName(fixed);
        }
        pod.getMetadata().setOwnerReferences(List.of(new OwnerReference("apps/v1", true, true, "ReplicaSet", "svc", "rs-uid")));
        String uid = "req-" + seed + "-" + (++requests);
        // Every 15th request finds the webhook unreachable (a timeout, a TLS error): failurePolicy Ignore creates the
        // pod as submitted. ACE's own failures (a ledger write refused) no longer fail open, so this is the soak's
        // pod that ACE never saw at admission.
        Pod out = requests % 15 == 0 ? pod : r.admit(pod, uid);
        if (out == null) {
            note("admit denied on " + r.name);
            return;
        }
        if (rnd.nextInt(10) == 0) {
            note("admit on " + r.name + " then another webhook denied it");
            return;
        }
        Pod created = c.create(out);
        String how = gated(created) ? "gated" : annotated(created) ? "placed" : "failed-open";
        note("admit " + created.getMetadata().getName() + " " + gpus + " GPUs on " + r.name + " " + how);
        stats.merge("admit-" + how, 1, Integer::sum);
    }

    private void foreign() {
        int gpus = 1 + rnd.nextInt(3);
        Pod pod = Pods.gpuPod("busybox", "[sleep, '1']", Integer.toString(gpus), null);
        pod.getMetadata().setName(null);
        pod.getMetadata().setGenerateName("job-");
        pod.getMetadata().setNamespace("batch");
        if (rnd.nextBoolean()) {
            var nodes = new ArrayList<>(c.nodes.values());
            var n = nodes.get(rnd.nextInt(nodes.size()));
            if (FakeScheduler.free(c, n) < gpus) return;
            pod.getSpec().setNodeName(n.getMetadata().getName()); // created bound, as pods with spec.nodeName are
        }
        Pod created = c.create(pod);
        note("foreign " + created.getMetadata().getName() + " " + gpus + " GPUs" + (created.getSpec().getNodeName() == null ? "" : " on " + created.getSpec().getNodeName()));
    }

    private void schedule() {
        note("schedule " + FakeScheduler.schedule(c));
        if (rnd.nextBoolean()) agents(); // the kubelet starts what was bound; the agent reports it, now or on a later round
    }

    private void agents() {
        int before = kubelet.reports;
        kubelet.sync();
        note("agents report " + (kubelet.reports - before));
    }

    private void deliver() {
        int to = rnd.nextInt(10) < 6 ? leader : 1 - leader;
        int n = rnd.nextBoolean() ? Integer.MAX_VALUE : 1 + rnd.nextInt(8);
        note("deliver " + watches[to].deliver(n) + " to r" + to);
    }

    private void reconcile(int r, boolean leads) {
        note((leads ? "reconcile" : "stale-leader") + " r" + r);
        boolean caughtUp = watches[r].queue.isEmpty() && armed() == 0;
        try {
            replicas[r].reconciler.reconcile(() -> true);
            applied = leads && caughtUp && armed() == 0;
        } catch (RuntimeException e) { // as ControlLoop: a failed pass is retried by the next one
            note("reconcile-failed " + e.getMessage());
        }
    }

    private int armed() {
        return c.faults.ledgerWriteFailBefore + c.faults.ledgerWriteFailAfter + c.faults.podPatchFailBefore
                + c.faults.podPatchFailAfter + c.faults.podReadFail;
    }

    private void deleteOrComplete() {
        if (c.pods.isEmpty()) return;
        List<String> uids = new ArrayList<>(c.pods.keySet());
        if (rnd.nextInt(10) < 7) uids.removeIf(u -> gated(c.pods.get(u))); // most departures free GPUs: pods that ran
        if (uids.isEmpty()) return;
        String uid = uids.get(rnd.nextInt(uids.size()));
        Pod p = c.pods.get(uid);
        if (rnd.nextInt(10) < 7) {
            note("delete " + p.getMetadata().getName()).deleteByUser(uid);
        } else {
            note("complete " + p.getMetadata().getName()).complete(uid);
        }
    }

    private void fault() {
        switch (rnd.nextInt(6)) {
            case 0 -> note("fault ledger-500").faults.ledgerWriteFailBefore = 1;
            case 1 -> note("fault ledger-timeout-landed").faults.ledgerWriteFailAfter = 1;
            case 2 -> note("fault pod-patch-500").faults.podPatchFailBefore = 1;
            case 3 -> note("fault pod-patch-timeout-landed").faults.podPatchFailAfter = 1;
            case 4 -> note("fault pod-read-500").faults.podReadFail = 1;
            default -> {
                int r = rnd.nextInt(2);
                note("fault watch-dropped r" + r);
                watches[r].relist();
            }
        }
    }

    private void checkInFlight(int r) {
        note("check-in-flight r" + r);
        replicas[r].reconciler.checkInFlight();
    }

    private void changeLeader() {
        leader = 1 - leader;
        note("leader r" + leader);
        replicas[leader].reconciler.leadershipChanged();
    }

    /** Faults off, every pod deleted, every event delivered, the leader given time past every TTL and grace. */
    void heal() {
        c.faults.ledgerWriteFailBefore = 0;
        c.faults.ledgerWriteFailAfter = 0;
        c.faults.podPatchFailBefore = 0;
        c.faults.podPatchFailAfter = 0;
        c.faults.podReadFail = 0;
        new ArrayList<>(c.pods.keySet()).forEach(c::deleteByUser);
        c.kubeletsFinish();
        kubelet.sync();
        for (int round = 0; round < 6; round++) {
            for (Watch w : watches) w.deliverAll();
            c.clock.addAndGet(CONFIG.pendingTtlMillis() / 2);
            for (Replica r : replicas) r.reconciler.checkInFlight();
            replicas[leader].reconciler.reconcile(() -> true);
        }
        for (Watch w : watches) w.deliverAll();
    }

    static boolean gated(Pod p) {
        return p.getSpec().getSchedulingGates() != null && p.getSpec().getSchedulingGates().stream().anyMatch(g -> AceKeys.GATE.equals(g.getName()));
    }

    static boolean annotated(Pod p) {
        return p.getMetadata().getAnnotations() != null && p.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION);
    }

    String describe() {
        return "seed " + seed + " (rerun: -Dace.soak.seed=" + seed + " -Dace.soak.seeds=1)\nlast steps:\n  " + String.join("\n  ", trace);
    }
}
