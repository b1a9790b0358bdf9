package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 19 on a real control plane: a rank lost from a running LeaderWorkerSet group, re-created as LWS's
 * StatefulSet does (same name and group labels, a new UID), goes back into the group's rack ahead of single
 * pods that waited longer; the group's AceGroup object reads Placed, Degraded and Placed again as it goes.
 */
@RealApiTest
class GroupRankReplacedIT {
    private static final String RACK = "rack";

    /** A rank of LWS {@code ring} group 0 asking for one rack per group, as {@link GroupsWholeIT#rank} makes it. */
    private static Pod rank(String ns, int worker) {
        Pod p = GroupsWholeIT.rank(ns, "ring", worker);
        p.getMetadata().getAnnotations().put("leaderworkerset.sigs.k8s.io/exclusive-topology", RACK);
        return p;
    }

    private static Pod get(RealCluster c, String ns, String name) { return c.admin().pods().inNamespace(ns).withName(name).get(); }

    private static boolean releasedAndBound(RealCluster c, String ns, String name) {
        Pod p = get(c, ns, name);
        return p != null && !TpPods.gated(p) && p.getSpec().getNodeName() != null;
    }

    private static String nodeOf(RealCluster c, String ns, String name) { return get(c, ns, name).getSpec().getNodeName(); }

    /** The group's state as a tenant with {@code edit} reads it: {@code kubectl get acegroup lws.ring.0 -o yaml}'s status. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> aceGroup(KubernetesClient reader, String ns, String name) {
        GenericKubernetesResource r = reader.genericKubernetesResources("ace.dev/v1alpha1", "AceGroup").inNamespace(ns).withName(name).get();
        return r == null ? null : (Map<String, Object>) r.getAdditionalProperties().getOrDefault("status", Map.of());
    }

    static boolean phase(KubernetesClient reader, String ns, String name, String phase) {
        Map<String, Object> s = aceGroup(reader, ns, name);
        return s != null && phase.equals(s.get("phase"));
    }

    @Test
    @DisplayName("a rank lost from a running TP 8 x 2 group is replaced into the group's rack ahead of single pods that waited longer; the group is whole again, its AceGroup reads Placed, Degraded, Placed")
    void lostRankReplacedIntoTheGroupsRackFirst(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "ivy");
        String n0 = ns.name();
        List<String> boards = new ArrayList<>(c.admin().nodes().list().getItems().stream()
                .filter(n -> "inference".equals(n.getMetadata().getLabels().get(AceKeys.POOL))).map(n -> n.getMetadata().getName()).sorted().toList());
        assertTrue(boards.size() >= 3, "three 8-GPU boards at least: " + boards);
        // Rack r1: the first two boards (room for the group and nothing else); r2: the rest.
        Map<String, String> rackOf = new HashMap<>();
        for (int i = 0; i < boards.size(); i++) rackOf.put(boards.get(i), i < 2 ? "r1" : "r2");
        try {
            rackOf.forEach((node, rack) -> c.admin().nodes().withName(node).edit(n -> {
                n.getMetadata().getLabels().put(RACK, rack);
                return n;
            }));
            tenant.pods().inNamespace(n0).resource(rank(n0, 0)).create();
            tenant.pods().inNamespace(n0).resource(rank(n0, 1)).create();
            Conditions.await(() -> "the group released and bound" + TpPods.summary(c.admin(), n0), Duration.ofMinutes(3),
                    () -> releasedAndBound(c, n0, "ring-0") && releasedAndBound(c, n0, "ring-0-1"));
            String workerBoard = nodeOf(c, n0, "ring-0-1");
            String lostUid = get(c, n0, "ring-0-1").getMetadata().getUid();
            assertEquals("r1", rackOf.get(nodeOf(c, n0, "ring-0")), "the tightest rack that holds the group");
            assertEquals("r1", rackOf.get(workerBoard));
            Conditions.await("the tenant reads its group Placed", Duration.ofMinutes(1), () -> phase(tenant, n0, "lws.ring.0", "Placed"));
            assertEquals(2, aceGroup(tenant, n0, "lws.ring.0").get("ranksPlaced"));

            // Every other board taken; then a single pod arrives and waits.
            int others = boards.size() - 2;
            for (int i = 0; i < others; i++) tenant.pods().inNamespace(n0).resource(TpPods.vllm(n0, "busy-" + i, 8)).create();
            TpPods.awaitPinnedBound(c.admin(), n0, 2 + others, Duration.ofMinutes(3));
            tenant.pods().inNamespace(n0).resource(TpPods.vllm(n0, "early", 8)).create();
            assertTrue(TpPods.gated(get(c, n0, "early")), "no board free: the single pod waits");

            // The worker is lost. ACE holds nothing for a pod that does not exist yet: the waiting pod takes its board.
            c.admin().pods().inNamespace(n0).withName("ring-0-1").delete();
            Conditions.await(() -> "the waiting pod released onto the lost rank's board" + TpPods.summary(c.admin(), n0), Duration.ofMinutes(3),
                    () -> get(c, n0, "ring-0-1") == null && releasedAndBound(c, n0, "early"));
            assertEquals(workerBoard, nodeOf(c, n0, "early"));
            Conditions.await("the group reads Degraded", Duration.ofMinutes(1), () -> phase(tenant, n0, "lws.ring.0", "Degraded"));

            // Two more single pods wait, then LWS's StatefulSet re-creates the worker: same name and labels, a new UID.
            tenant.pods().inNamespace(n0).resource(TpPods.vllm(n0, "rival-a", 8)).create();
            tenant.pods().inNamespace(n0).resource(TpPods.vllm(n0, "rival-b", 8)).create();
            Pod replacement = tenant.pods().inNamespace(n0).resource(rank(n0, 1)).create();
            assertTrue(TpPods.gated(replacement), "a replacement rank is gated");
            assertTrue(TpPods.annotation(replacement, AceKeys.DECISION).startsWith("waiting for group ring/0"), TpPods.annotation(replacement, AceKeys.DECISION));
            // The leader has seen the replacement at its gate (so also the rivals, created before it on the same watch).
            Conditions.await("the group Degraded with its replacement at the gate", Duration.ofMinutes(1), () -> {
                Map<String, Object> s = aceGroup(tenant, n0, "lws.ring.0");
                return s != null && "Degraded".equals(s.get("phase")) && Integer.valueOf(2).equals(s.get("ranksSeen"));
            });

            // A board frees in the other rack: the replacement, first in line, does not leave its rack; the older rival takes it.
            c.admin().pods().inNamespace(n0).withName("busy-0").delete();
            Conditions.await(() -> "a rival released onto the other rack's board" + TpPods.summary(c.admin(), n0), Duration.ofMinutes(3),
                    () -> releasedAndBound(c, n0, "rival-a") || releasedAndBound(c, n0, "rival-b"));
            assertTrue(TpPods.gated(get(c, n0, "ring-0-1")), "the replacement stays out of rack r2");
            String rivalWaiting = releasedAndBound(c, n0, "rival-a") ? "rival-b" : "rival-a";
            assertTrue(TpPods.gated(get(c, n0, rivalWaiting)), "one board freed, one pod released");

            // A board frees in the group's rack: the replacement goes there ahead of the rival that waited longer.
            c.admin().pods().inNamespace(n0).withName("early").delete();
            Conditions.await(() -> "the replacement released into its rack" + TpPods.summary(c.admin(), n0), Duration.ofMinutes(3),
                    () -> releasedAndBound(c, n0, "ring-0-1"));
            Pod again = get(c, n0, "ring-0-1");
            assertNotEquals(lostUid, again.getMetadata().getUid(), "a new pod under the lost rank's name");
            assertEquals(replacement.getMetadata().getUid(), again.getMetadata().getUid());
            assertEquals(workerBoard, again.getSpec().getNodeName(), "the group's rack r1 had that one board free");
            assertTrue(TpPods.gated(get(c, n0, rivalWaiting)), "the rival that arrived earlier still waits: the degraded group went first");
            Conditions.await("the group reads Placed again", Duration.ofMinutes(1), () -> phase(tenant, n0, "lws.ring.0", "Placed"));
            List<String> table = kubectlGetAceGroups(c, "ivy", n0);
            assertEquals(List.of("NAME", "PHASE", "SIZE", "SEEN", "PLACED", "WAITING-SINCE", "REASON", "AGE"),
                    List.of(table.get(0).trim().split("\\s+")), "kubectl get acegroups, as the tenant: " + table);
            assertEquals(List.of("lws.ring.0", "Placed", "2", "2", "2"), List.of(table.get(1).trim().split("\\s+")).subList(0, 5), table.toString());
            Conditions.await(() -> "the replacement's entry tied to its new pod: " + c.ledgers().entries(n0), Duration.ofMinutes(1),
                    () -> c.ledgers().entries(n0).stream().anyMatch(e -> replacement.getMetadata().getUid().equals(e.podUid())));

            // The last waiter completes once another board frees; nothing double-booked, nothing admitted without ACE.
            c.admin().pods().inNamespace(n0).withName("ring-0").delete();
            Conditions.await(() -> "the last rival released" + TpPods.summary(c.admin(), n0), Duration.ofMinutes(3),
                    () -> releasedAndBound(c, n0, rivalWaiting));
            assertEquals(List.of(), c.ledgers().doubleBooked());
            for (Pod p : c.admin().pods().inNamespace(n0).list().getItems()) {
                assertTrue(TpPods.annotation(p, AceKeys.DECISION) != null && TpPods.decidedByAce(p), "decided by ACE: " + p.getMetadata().getName());
            }
            c.admin().pods().inNamespace(n0).withName("ring-0-1").delete();
            Conditions.await("the AceGroup deleted once the group's pods are all gone", Duration.ofMinutes(2),
                    () -> aceGroup(c.admin(), n0, "lws.ring.0") == null);
        } finally {
            for (String node : rackOf.keySet()) {
                c.admin().nodes().withName(node).edit(n -> {
                    n.getMetadata().getLabels().remove(RACK);
                    return n;
                });
            }
        }
    }

    /** {@code kubectl get acegroups -n NS} with the kubeconfig of suite user {@code user}: the lines it prints. */
    static List<String> kubectlGetAceGroups(RealCluster c, String user, String ns) throws Exception {
        Process p = new ProcessBuilder(c.controlPlane().binaries().kubectl().toString(), "--kubeconfig",
                c.controlPlane().dir().resolve("user-" + user + ".kubeconfig").toString(), "get", "acegroups", "-n", ns)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0, "kubectl get acegroups: " + out);
        return out.lines().toList();
    }

    @Test
    @DisplayName("a tenant with edit reads its groups' AceGroup objects but cannot create, change or delete one")
    void tenantsReadButCannotForgeGroupState(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "jack");
        tenant.pods().inNamespace(ns.name()).resource(GroupsWholeIT.rank(ns.name(), "solo", 0)).create();
        Conditions.await("the leader publishes the assembling group", Duration.ofMinutes(1),
                () -> phase(tenant, ns.name(), "lws.solo.0", "Assembling"));
        GenericKubernetesResource mine = tenant.genericKubernetesResources("ace.dev/v1alpha1", "AceGroup").inNamespace(ns.name())
                .withName("lws.solo.0").get();
        Refusals.refused(403, "forbidden", () -> tenant.genericKubernetesResources("ace.dev/v1alpha1", "AceGroup").inNamespace(ns.name())
                .resource(new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder().withApiVersion("ace.dev/v1alpha1").withKind("AceGroup")
                        .withNewMetadata().withName("lws.forged.0").withNamespace(ns.name()).endMetadata()
                        .withAdditionalProperties(Map.of("spec", Map.of("group", "forged/0", "source", "lws", "size", 2),
                                "status", Map.of("phase", "Placed"))).build()).create());
        mine.getAdditionalProperties().put("status", Map.of("phase", "Placed", "ranksSeen", 2, "ranksPlaced", 2));
        Refusals.refused(403, "forbidden", () -> tenant.genericKubernetesResources("ace.dev/v1alpha1", "AceGroup").inNamespace(ns.name())
                .resource(mine).update());
        Refusals.refused(403, "forbidden", () -> tenant.genericKubernetesResources("ace.dev/v1alpha1", "AceGroup").inNamespace(ns.name())
                .withName("lws.solo.0").delete());
        assertTrue(phase(tenant, ns.name(), "lws.solo.0", "Assembling"), "unchanged");
    }
}
