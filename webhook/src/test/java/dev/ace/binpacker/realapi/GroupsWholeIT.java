package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Issue 19 on a real control plane: a LeaderWorkerSet-shaped TP 8 x 2 group gets both cliques in one step or holds none. */
@RealApiTest
class GroupsWholeIT {
    /** A pod of LeaderWorkerSet {@code lws} group 0 as its StatefulSets create it, before LWS's own webhook (worker 0 leads). */
    static Pod rank(String ns, String lws, int worker) {
        Pod p = TpPods.vllm(ns, worker == 0 ? lws + "-0" : lws + "-0-" + worker, 8);
        Map<String, String> labels = new HashMap<>(p.getMetadata().getLabels());
        labels.put("leaderworkerset.sigs.k8s.io/name", lws);
        Map<String, String> ann = new HashMap<>(Map.of("leaderworkerset.sigs.k8s.io/size", "2"));
        if (worker > 0) {
            labels.put("leaderworkerset.sigs.k8s.io/group-index", "0");
            ann.put("leaderworkerset.sigs.k8s.io/leader-name", lws + "-0");
        }
        p.getMetadata().setLabels(labels);
        p.getMetadata().setAnnotations(ann);
        return p;
    }

    private static List<String> boards(RealCluster c) {
        return c.admin().nodes().list().getItems().stream()
                .filter(n -> "inference".equals(n.getMetadata().getLabels().get(AceKeys.POOL))).map(n -> n.getMetadata().getName()).toList();
    }

    private static Pod get(RealCluster c, String ns, String name) { return c.admin().pods().inNamespace(ns).withName(name).get(); }

    private static boolean releasedAndBound(RealCluster c, String ns, String... names) {
        for (String n : names) {
            Pod p = get(c, ns, n);
            if (p == null || TpPods.gated(p) || p.getSpec().getNodeName() == null) return false;
        }
        return true;
    }

    /** {@code count} TP 8 pods {@code busy-<i>}, one 8-GPU board each, pinned and bound. */
    private static void fillBoards(RealCluster c, KubernetesClient tenant, TestNamespace ns, int count) {
        for (int i = 0; i < count; i++) tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "busy-" + i, 8)).create();
        TpPods.awaitPinnedBound(c.admin(), ns.name(), count, Duration.ofMinutes(3));
    }

    private static Set<String> holders(RealCluster c, String ns) {
        return c.ledgers().entries(ns).stream().map(Ledgers.Entry::podName).collect(Collectors.toSet());
    }

    @Test
    @DisplayName("an LWS TP 8 x 2 group with one free 8-GPU clique holds nothing until a second clique frees, then both ranks are released and bound")
    void holdsNothingUntilBothFit(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "gina");
        int n = boards(c).size();
        fillBoards(c, tenant, ns, n - 1);
        tenant.pods().inNamespace(ns.name()).resource(rank(ns.name(), "llama-405b", 0)).create();
        tenant.pods().inNamespace(ns.name()).resource(rank(ns.name(), "llama-405b", 1)).create();
        Pod leader = get(c, ns.name(), "llama-405b-0");
        assertTrue(TpPods.gated(leader) && TpPods.gated(get(c, ns.name(), "llama-405b-0-1")), "both ranks gated at admission");
        assertTrue(TpPods.annotation(leader, AceKeys.DECISION).startsWith("waiting for group llama-405b/0"), TpPods.annotation(leader, AceKeys.DECISION));
        Set<String> busy = java.util.stream.IntStream.range(0, n - 1).mapToObj(i -> "busy-" + i).collect(Collectors.toSet());
        assertEquals(busy, holders(c, ns.name()), "one clique is free, yet the group holds none of it");
        // for a moment the reason may be that a rank is not queued yet (the informer records a rank's group before it
        // queues the pod), then the leader's word on why the whole group does not fit
        Conditions.await(() -> "the tenant reads the group Waiting because it does not fit: " + GroupRankReplacedIT.aceGroup(tenant, ns.name(), "lws.llama-405b.0"),
                Duration.ofMinutes(1), () -> GroupRankReplacedIT.phase(tenant, ns.name(), "lws.llama-405b.0", "Waiting")
                        && "no room for all 2 ranks (8 GPUs each) at once".equals(GroupRankReplacedIT.aceGroup(tenant, ns.name(), "lws.llama-405b.0").get("reason")));
        Map<String, Object> waiting = GroupRankReplacedIT.aceGroup(tenant, ns.name(), "lws.llama-405b.0");
        assertEquals(List.of(2, 0), List.of(waiting.get("ranksSeen"), waiting.get("ranksPlaced")));

        c.admin().pods().inNamespace(ns.name()).withName("busy-0").delete();
        Conditions.await(() -> "both ranks released and bound" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3),
                () -> releasedAndBound(c, ns.name(), "llama-405b-0", "llama-405b-0-1"));
        Pod l = get(c, ns.name(), "llama-405b-0");
        Pod w = get(c, ns.name(), "llama-405b-0-1");
        assertNotEquals(l.getSpec().getNodeName(), w.getSpec().getNodeName(), "one clique each");
        Conditions.await("the group reads Placed", Duration.ofMinutes(1), () -> GroupRankReplacedIT.phase(tenant, ns.name(), "lws.llama-405b.0", "Placed"));
        Conditions.await(() -> "both ranks' entries tied to their pods: " + c.ledgers().entries(ns.name()), Duration.ofMinutes(1),
                () -> c.ledgers().entries(ns.name()).stream().filter(e -> e.podName().startsWith("llama-405b")).count() == 2);
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }

    @Test
    @DisplayName("two TP 8 x 2 groups competing for the same cliques: one is released whole, the other waits holding nothing, and both complete")
    void twoCompetingGroupsBothComplete(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "hank");
        int n = boards(c).size();
        // Leave exactly two boards free: room for one group at a time.
        fillBoards(c, tenant, ns, n - 2);
        for (String g : List.of("first", "second")) {
            tenant.pods().inNamespace(ns.name()).resource(rank(ns.name(), g, 0)).create();
            tenant.pods().inNamespace(ns.name()).resource(rank(ns.name(), g, 1)).create();
        }
        Conditions.await(() -> "one group released whole" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3),
                () -> releasedAndBound(c, ns.name(), "first-0", "first-0-1") || releasedAndBound(c, ns.name(), "second-0", "second-0-1"));
        String won = releasedAndBound(c, ns.name(), "first-0", "first-0-1") ? "first" : "second";
        String waits = won.equals("first") ? "second" : "first";
        assertTrue(TpPods.gated(get(c, ns.name(), waits + "-0")) && TpPods.gated(get(c, ns.name(), waits + "-0-1")), "the other waits whole");
        assertTrue(holders(c, ns.name()).stream().noneMatch(h -> h.startsWith(waits)), "the waiting group holds nothing: " + holders(c, ns.name()));

        c.admin().pods().inNamespace(ns.name()).withName(won + "-0").delete();
        c.admin().pods().inNamespace(ns.name()).withName(won + "-0-1").delete();
        Conditions.await(() -> "the other group released and bound too" + TpPods.summary(c.admin(), ns.name()), Duration.ofMinutes(3),
                () -> releasedAndBound(c, ns.name(), waits + "-0", waits + "-0-1"));
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }
}
