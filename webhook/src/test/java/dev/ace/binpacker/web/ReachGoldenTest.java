package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ace.binpacker.admission.KubernetesReach;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ClusterBootstrap;
import dev.ace.binpacker.cluster.Fleet;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bypasses of issue 34 posted over HTTPS against the demo inventory, each beside its control: a 1-GPU pod of a
 * batch/v1 Job whose own constraints keep it off pool slicing (so ACE cannot move it there) and let it reach pool
 * inference and another pool ({@code ace.dev/pool NotIn [slicing]}; OR'd nodeSelectorTerms naming an HGX board and the
 * L40S node), or bind it to an HGX board ({@code spec.nodeName}). Each answer equals its golden file; the pod as the
 * API server stores it (ACE's patch applied by zjsonpatch) reaches, by Kubernetes' own rules
 * ({@link KubernetesReach}), no node of pool inference but the one ACE reserved on, never with a lone GPU of a clean
 * domain. The control, whose constraints cannot reach pool inference, is still admitted as it came.
 */
@QuarkusTest
class ReachGoldenTest {
    private static final List<Node> NODES = demo();

    @Inject
    ClusterBootstrap bootstrap;
    @Inject
    Fleet fleet;
    @Inject
    PendingDemand pending;

    @BeforeEach
    void freshInventory() {
        bootstrap.loadStandalone();
        pending.clear();
    }

    /**
     * @param trick   the pod that could reach pool inference and another pool
     * @param control the same pod with constraints that reach no node of pool inference
     * @param cluster {@code fresh}; {@code general-full} (every GPU of pool general held); {@code general-full-used-board}
     *                (and 4 GPUs of hgx-h100-0: a used domain with room)
     * @param expect  what the trick gets: {@code general} (reserved and pinned there), {@code hgx-h100-0} (reserved in
     *                that used domain) or {@code denied}
     */
    @ParameterizedTest(name = "{0} on {2}: {3}; control {1} admitted as it came")
    @CsvSource({
        "bypass-notin-slicing-lone-gpu, bypass-notin-slicing-inference-lone-gpu, fresh, general",
        "bypass-notin-slicing-lone-gpu, bypass-notin-slicing-inference-lone-gpu, general-full, denied",
        "bypass-notin-slicing-lone-gpu, bypass-notin-slicing-inference-lone-gpu, general-full-used-board, hgx-h100-0",
        "bypass-or-terms-hgx-l40s-lone-gpu, bypass-or-terms-a100-l40s-lone-gpu, fresh, general",
        "bypass-or-terms-hgx-l40s-lone-gpu, bypass-or-terms-a100-l40s-lone-gpu, general-full, denied",
        "bypass-or-terms-hgx-l40s-lone-gpu, bypass-or-terms-a100-l40s-lone-gpu, general-full-used-board, hgx-h100-0",
        "bypass-nodename-hgx-lone-gpu, bypass-nodename-l40s-lone-gpu, fresh, denied",
        "bypass-nodename-hgx-lone-gpu, bypass-nodename-l40s-lone-gpu, general-full-used-board, denied"})
    void a_lone_gpu_that_could_reach_pool_inference_is_placed_by_ace_or_denied(String trick, String control, String cluster,
                                                                               String expect) {
        JsonNode review = Https.file(request(trick));
        JsonNode answer = answer(trick, cluster);
        String uid = review.at("/request/uid").asText();
        Reservation held = fleet.allocator().heldForRequest(uid).orElse(null);
        if (expect.equals("denied")) {
            assertFalse(answer.at("/response/allowed").asBoolean(), answer.toString());
            String message = answer.at("/response/status/message").asText();
            assertTrue(message.contains("pool slicing"), "the denial says what to request: " + message);
            assertNull(held, "a denial holds nothing");
        } else {
            assertTrue(answer.at("/response/allowed").asBoolean(), answer.toString());
            assertTrue(held != null && held.gpuCount() == 1, "reserved: " + held);
            if (expect.equals("general")) assertTrue(held.node().startsWith("a100-") || held.node().startsWith("l40s-"), held.node());
            else assertEquals(expect, held.node());
            Pod stored = Https.patchedPod(review, answer);
            for (Node n : KubernetesReach.reach(stored, NODES)) {
                assertEquals(held.node(), n.getMetadata().getName(), "the pod as stored reaches only the node ACE reserved on");
            }
        }
        JsonNode c = answer(control, cluster);
        assertTrue(c.at("/response/allowed").asBoolean(), c.toString());
        Pod controlStored = Https.patchedPod(Https.file(request(control)), c);
        assertTrue(KubernetesReach.reach(controlStored, NODES).stream().noneMatch(KubernetesReach::isInference),
                "the control reaches no node of pool inference");
        assertTrue(fleet.allocator().heldForRequest(Https.file(request(control)).at("/request/uid").asText()).isEmpty(),
                "the control is left to kube-scheduler, as before");
    }

    /** docs/webhook.md: "a 1-GPU job whose selector allows only flagship nodes" is denied; spec.nodeName is such a selector. */
    @Test
    void a_lone_gpu_of_a_job_bound_to_an_hgx_board_is_denied_as_one_that_selects_it() {
        JsonNode bound = answer("bypass-nodename-hgx-lone-gpu", "fresh");
        assertTrue(bound.at("/response/status/message").asText().startsWith("1 GPU batch job is bound by spec.nodeName to hgx-h100-0,"),
                bound.toString());
        JsonNode selected = answer("shape-job-lone-gpu", "fresh");
        assertFalse(selected.at("/response/allowed").asBoolean(), "the control: the same job selecting pool inference");
        assertEquals(0, (int) fleet.allocator().read(a -> a.ledger().size()));
    }

    private JsonNode answer(String name, String cluster) {
        bootstrap.loadStandalone();
        pending.clear();
        if (cluster.startsWith("general-full")) {
            for (String node : List.of("a100-pcie-0", "a100-pcie-1", "l40s-0")) hold(node, 0b1111);
        }
        if (cluster.equals("general-full-used-board")) hold("hgx-h100-0", 0b1111);
        JsonNode response = Https.postReview("/mutate", Https.file(request(name)));
        String golden = "responses/" + name + (cluster.equals("fresh") ? "" : "-" + cluster) + ".json";
        GoldenFiles.assertGolden(Https.ADMISSION.resolve(golden), GoldenFiles.withoutRandomIds(Https.readable(response)));
        return response;
    }

    /** GPUs held on {@code node} by a running pod (a confirmed entry). */
    private void hold(String node, long mask) {
        assertEquals(Ledger.Outcome.RESERVED, fleet.allocator().adopt(new Reservation("held-" + node, node, mask, 1000, 0, 1, null, 0, false)));
    }

    private static java.nio.file.Path request(String name) { return Https.ADMISSION.resolve("requests/" + name + ".json"); }

    private static List<Node> demo() {
        try {
            return NodeListLoader.demo();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
