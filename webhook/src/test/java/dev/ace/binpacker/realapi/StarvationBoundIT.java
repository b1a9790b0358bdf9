package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 34 on a real control plane: a TP 8 pod waiting behind a stream of later TP 1/TP 2 pods while small pods
 * depart one at a time. With {@code ace.queue.starvation-bound} passed, the waiter's earmarked board takes no new
 * small pod, drains, and the TP 8 pod is placed there; with the bound off ({@code 0s}) the same stream keeps
 * taking every freed GPU and the TP 8 pod is still gated. Both replicas run with the bound under test (restarted
 * for it, and restarted with the suite's settings afterwards).
 */
@RealApiTest
class StarvationBoundIT {
    /** Short, so the waiter is past it before the first departure; 0s: off. */
    private static final String BOUND = "3s";
    /** Small pods on the board that drains, one TP 2 pod departing per round. */
    private static final int SMALL_ON_BOARD = 4;
    /** Later small waiters per round (TP 2, then TP 1): more than a departure frees. */
    private static final int[] STREAM = {2, 1};

    private record Outcome(String smallBoard, Pod waiter, List<Pod> stream) {}

    @Test
    @DisplayName("a TP 8 pod behind a stream of later TP 1/TP 2 pods: with the starvation bound passed its earmarked board drains and the TP 8 pod is placed there; with the bound off the small pods take every freed GPU and it is still gated; no GPU twice")
    void boundDrainsTheEarmarkedBoardForTheOldestWaiter(RealCluster c) throws Exception {
        try {
            replicasWith(c, BOUND);
            Outcome on = stream(c, true);
            assertTrue(!TpPods.gated(on.waiter()) && on.waiter().getSpec().getNodeName() != null, "bound on: the TP 8 pod is placed");
            assertEquals(on.smallBoard(), on.waiter().getSpec().getNodeName(), "bound on: on the board its earmark drained");
            for (Pod p : on.stream()) {
                assertTrue(TpPods.gated(p), "bound on: no later small pod took a GPU of the draining board: " + p.getMetadata().getName());
            }

            replicasWith(c, "0s");
            Outcome off = stream(c, false);
            assertTrue(TpPods.gated(off.waiter()), "bound off: the TP 8 pod is still gated after the same stream");
            int takenBySmall = off.stream().stream().filter(p -> !TpPods.gated(p))
                    .peek(p -> assertEquals(off.smallBoard(), p.getSpec().getNodeName(), "a freed GPU is on the small pods' board"))
                    .mapToInt(StarvationBoundIT::gpus).sum();
            assertEquals(2 * SMALL_ON_BOARD, takenBySmall, "bound off: every freed GPU went to a later, smaller pod");
        } finally {
            replicasWith(c, null);
        }
    }

    /**
     * One run in a fresh namespace: every 8-GPU board but one taken by a TP 8 pod, the last by {@link #SMALL_ON_BOARD}
     * TP 2 pods; a TP 8 pod waits; then each round a few later small pods arrive and one TP 2 pod of the board departs.
     * Returns the pods as they are once the run settled (the ledgers checked: no GPU twice), the namespace deleted.
     */
    private static Outcome stream(RealCluster c, boolean boundOn) throws Exception {
        String ns = c.createNamespace("starve", Map.of());
        try {
            KubernetesClient tenant = Tenants.editor(c, ns, "erin");
            List<String> boards = c.admin().nodes().list().getItems().stream()
                    .filter(n -> "inference".equals(n.getMetadata().getLabels().get(AceKeys.POOL))).map(n -> n.getMetadata().getName()).toList();
            for (int i = 0; i < boards.size() - 1; i++) tenant.pods().inNamespace(ns).resource(TpPods.vllm(ns, "big-" + i, 8)).create();
            TpPods.awaitPinnedBound(c.admin(), ns, boards.size() - 1, Duration.ofMinutes(3));
            // TP 2 pods one at a time until SMALL_ON_BOARD of them share the last board (those ACE puts elsewhere first, e.g.
            // on an NVLink-bridged A100 pair, stay for the whole run: the small pods have nowhere else to go).
            String smallBoard = boards.stream().filter(b -> c.admin().pods().inNamespace(ns).list().getItems().stream()
                    .noneMatch(p -> b.equals(p.getSpec().getNodeName()))).findFirst().orElseThrow();
            List<String> onBoard = new ArrayList<>();
            for (int i = 0; onBoard.size() < SMALL_ON_BOARD; i++) {
                assertTrue(i < SMALL_ON_BOARD + 8, "TP 2 pods reach board " + smallBoard + TpPods.summary(c.admin(), ns));
                tenant.pods().inNamespace(ns).resource(TpPods.vllm(ns, "small-" + i, 2)).create();
                TpPods.awaitPinnedBound(c.admin(), ns, boards.size() + i, Duration.ofMinutes(3));
                if (smallBoard.equals(node(c, ns, "small-" + i))) onBoard.add("small-" + i);
            }
            Pod waiter = tenant.pods().inNamespace(ns).resource(TpPods.vllm(ns, "waiter", 8)).create();
            assertTrue(TpPods.gated(waiter), "the pool is full: the TP 8 pod waits");
            // Not an assertion: the stream starts once the waiter is older than the bound (its creation, as ACE measures it).
            Instant created = Instant.parse(waiter.getMetadata().getCreationTimestamp());
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), created.plusSeconds(5)).toMillis()));

            List<String> stream = new ArrayList<>();
            Map<String, Integer> gpusOf = new HashMap<>();
            for (int round = 0; round < SMALL_ON_BOARD; round++) {
                for (int k = 0; k < STREAM.length; k++) {
                    String name = "later-" + round + "-" + k;
                    Pod p = tenant.pods().inNamespace(ns).resource(TpPods.vllm(ns, name, STREAM[k])).create();
                    assertTrue(TpPods.gated(p), "no GPU free at its arrival: " + name + " waits");
                    stream.add(name);
                    gpusOf.put(name, STREAM[k]);
                }
                String departing = onBoard.get(round);
                String uid = c.admin().pods().inNamespace(ns).withName(departing).get().getMetadata().getUid();
                c.admin().pods().inNamespace(ns).withName(departing).delete();
                int freed = 2 * (round + 1);
                if (boundOn && round < SMALL_ON_BOARD - 1) {
                    // Nothing is released: settled once ACE gave back the departed pod's GPUs.
                    Conditions.await(() -> departing + "'s GPUs given back" + TpPods.summary(c.admin(), ns), Duration.ofMinutes(2),
                            () -> c.ledgers().entries(ns).stream().noneMatch(e -> uid.equals(e.podUid())));
                } else if (boundOn) {
                    Conditions.await(() -> "the TP 8 pod placed on the drained board" + TpPods.summary(c.admin(), ns), Duration.ofMinutes(2),
                            () -> boundNode(c, ns, "waiter") != null);
                } else {
                    Conditions.await(() -> freed + " freed GPUs taken by later small pods" + TpPods.summary(c.admin(), ns), Duration.ofMinutes(2),
                            () -> stream.stream().filter(n -> boundNode(c, ns, n) != null).mapToInt(gpusOf::get).sum() == freed);
                }
                assertEquals(List.of(), c.ledgers().doubleBooked(), "no GPU twice after round " + round);
            }
            List<Pod> later = stream.stream().map(n -> c.admin().pods().inNamespace(ns).withName(n).get()).toList();
            return new Outcome(smallBoard, c.admin().pods().inNamespace(ns).withName("waiter").get(), later);
        } finally {
            c.deleteNamespace(ns);
        }
    }

    /** Both replicas restarted with {@code ace.queue.starvation-bound=bound} beside the suite's settings (null: the suite's alone). */
    private static void replicasWith(RealCluster c, String bound) throws Exception {
        Map<String, String> props = new HashMap<>(RealCluster.REPLICA_PROPERTIES);
        if (bound != null) props.put("ace.queue.starvation-bound", bound);
        for (AceReplica r : c.replicas()) r.restartWith(props);
        for (AceReplica r : c.replicas()) r.awaitReady(Duration.ofMinutes(4));
        Conditions.await("a replica holding the Lease", Duration.ofMinutes(2), () -> c.leader().isPresent());
    }

    private static String node(RealCluster c, String ns, String name) { return c.admin().pods().inNamespace(ns).withName(name).get().getSpec().getNodeName(); }

    /** The node of a pod released from the gate and bound, else null. */
    private static String boundNode(RealCluster c, String ns, String name) {
        Pod p = c.admin().pods().inNamespace(ns).withName(name).get();
        return p == null || TpPods.gated(p) ? null : p.getSpec().getNodeName();
    }

    private static int gpus(Pod p) {
        return Integer.parseInt(p.getSpec().getContainers().get(0).getResources().getLimits().get(AceKeys.GPU).getAmount());
    }
}
