package dev.ace.binpacker.cluster.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.TestNodes;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Holding;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * GPUs of allocated DRA ResourceClaims count as held on their node (issue 17), read from a claim as the
 * Kubernetes DRA tutorial prints it (tests/fixtures/dra, with its source) and from NVIDIA-driver-shaped copies
 * of it: whole GPUs {@code gpu-<n>} and MIG devices {@code gpu-<n>-mig-...} of driver {@code gpu.nvidia.com}.
 */
public class DraClaimsTest {
    static final Path TUTORIAL = Path.of("tests", "fixtures", "dra", "dra-tutorial-some-gpu-claim.yaml");
    private static final String HGX = "hgx-h100-0";

    /**
     * The tutorial's claim (driver gpu.example.com, device gpu-4 on node kind-worker), as a 1.34+ API server serves it:
     * the tutorial printed it as resource.k8s.io/v1beta2, whose claim has the same fields as v1.
     */
    static ObjectNode tutorial() throws Exception {
        JsonNode list = new YAMLMapper().readTree(TUTORIAL.toFile());
        return ((ObjectNode) list.path("items").get(0).deepCopy()).put("apiVersion", "resource.k8s.io/v1");
    }

    /** The tutorial's claim allocated by the NVIDIA driver on {@code node}: these devices, in pool {@code node}. */
    public static ResourceClaim nvidia(String uid, String node, String... devices) throws Exception {
        ObjectNode c = tutorial();
        ((ObjectNode) c.path("metadata")).put("uid", uid).put("name", "claim-" + uid);
        ObjectNode allocation = (ObjectNode) c.path("status").path("allocation");
        ArrayNode results = ((ObjectNode) allocation.path("devices")).putArray("results");
        for (String d : devices) results.addObject().put("device", d).put("driver", "gpu.nvidia.com").put("pool", node).put("request", "gpu");
        ((ArrayNode) allocation.path("nodeSelector").path("nodeSelectorTerms").get(0).path("matchFields").get(0).path("values")).removeAll().add(node);
        return claim(c);
    }

    static ResourceClaim claim(JsonNode c) throws Exception {
        return Json.newMapper().treeToValue(c, ResourceClaim.class);
    }

    @Test
    void the_tutorial_claim_holds_gpu_4_of_kind_worker_once_its_driver_is_configured_as_a_gpu_driver() throws Exception {
        ResourceClaim c = claim(tutorial());
        ClaimGpus counted = ClaimGpus.of(c, Set.of("gpu.example.com"));
        assertEquals(new ClaimGpus("79e1e8d8-7e53-4362-aad1-eca97678339e", "dra-tutorial/some-gpu", "kind-worker", Set.of("gpu-4")), counted);
        assertTrue(ClaimGpus.of(c, ClaimGpus.DEFAULT_DRIVERS).empty(), "the default counts only gpu.nvidia.com, not the example driver");
        ClaimBook book = new ClaimBook();
        assertEquals(Set.of("kind-worker"), book.put(counted));
        assertEquals(List.of(new Holding("dra:kind-worker/gpu-4", 1, GpuBoard.mask(4))), book.holdings("kind-worker"));
        assertEquals(Set.of(), book.put(counted), "the same claim again changes nothing");
    }

    @Test
    void a_claim_not_allocated_or_allocated_for_admin_access_holds_nothing() throws Exception {
        ObjectNode pending = tutorial();
        ((ObjectNode) pending.path("status")).remove("allocation");
        assertTrue(ClaimGpus.of(claim(pending), Set.of("gpu.example.com")).empty());
        ObjectNode admin = tutorial();
        ((ObjectNode) admin.path("status").path("allocation").path("devices").path("results").get(0)).put("adminAccess", true);
        assertTrue(ClaimGpus.of(claim(admin), Set.of("gpu.example.com")).empty(), "adminAccess (monitoring) holds no device");
    }

    @Test
    void without_a_node_selector_the_pool_names_the_node() throws Exception {
        ObjectNode c = tutorial();
        ((ObjectNode) c.path("status").path("allocation")).remove("nodeSelector");
        assertEquals("kind-worker", ClaimGpus.of(claim(c), Set.of("gpu.example.com")).node());
    }

    @Test
    void a_mig_device_of_the_nvidia_driver_holds_its_parent_gpu_and_two_slices_of_one_gpu_hold_it_once() throws Exception {
        ClaimGpus a = ClaimGpus.of(nvidia("a", HGX, "gpu-2", "gpu-5-mig-1g10gb-19-0"), ClaimGpus.DEFAULT_DRIVERS);
        ClaimGpus b = ClaimGpus.of(nvidia("b", HGX, "gpu-5-mig-3g40gb-9-4"), ClaimGpus.DEFAULT_DRIVERS);
        assertEquals(Set.of("gpu-2", "gpu-5"), a.gpus());
        assertEquals(Set.of("gpu-5"), b.gpus());
        ClaimBook book = new ClaimBook();
        book.put(a);
        book.put(b);
        assertEquals(List.of(new Holding("dra:" + HGX + "/gpu-2", 1, GpuBoard.mask(2)), new Holding("dra:" + HGX + "/gpu-5", 1, GpuBoard.mask(5))),
                book.holdings(HGX));
        assertEquals(Set.of(HGX), book.remove("a"));
        assertEquals(List.of(new Holding("dra:" + HGX + "/gpu-5", 1, GpuBoard.mask(5))), book.holdings(HGX), "b still holds its slice of GPU 5");
    }

    @Test
    void the_view_counts_claimed_gpus_as_foreign_on_their_node_and_frees_them_when_the_claim_is_deallocated_or_deleted() throws Exception {
        Allocator allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
        LocalView view = new LocalView(() -> allocator, new PodCache(), new PendingDemand(Metrics.NOOP), Metrics.NOOP, Json.newMapper(),
                new NodeReports(30_000, () -> 0L));
        view.nodeChanged(TestNodes.node(HGX, 8));
        view.claimChanged(nvidia("a", HGX, "gpu-2", "gpu-5-mig-1g10gb-19-0"));
        assertEquals(2, view.capacity(HGX).foreign());
        assertEquals(GpuBoard.mask(2), allocator.ledger().get("observed/dra:" + HGX + "/gpu-2").map(Reservation::gpuMask).orElse(0L));
        assertEquals(GpuBoard.mask(5), allocator.ledger().get("observed/dra:" + HGX + "/gpu-5").map(Reservation::gpuMask).orElse(0L),
                "a MIG slice takes its whole parent GPU out of whole-GPU and clique use");

        ObjectNode deallocated = (ObjectNode) Json.newMapper().valueToTree(nvidia("a", HGX, "gpu-2"));
        ((ObjectNode) deallocated.path("status")).remove("allocation");
        view.claimChanged(claim(deallocated));
        assertEquals(0, view.capacity(HGX).foreign(), "a deallocated claim frees its GPUs");

        view.claimChanged(nvidia("b", HGX, "gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7"));
        assertEquals(8, view.capacity(HGX).foreign());
        view.claimGone("b");
        assertEquals(0, view.capacity(HGX).foreign());

        view.claimChanged(nvidia("c", HGX, "gpu-7"));
        view.retainClaims(Set.of());
        assertEquals(0, view.capacity(HGX).foreign(), "a claim missing from a fresh list was deleted while nobody watched");
    }

    @Test
    void configured_drivers_replace_the_default() throws Exception {
        Allocator allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
        LocalView view = new LocalView(() -> allocator, new PodCache(), new PendingDemand(Metrics.NOOP), Metrics.NOOP, Json.newMapper(),
                new NodeReports(30_000, () -> 0L));
        view.countClaimsOf(Set.of("gpu.example.com"));
        view.nodeChanged(TestNodes.node(HGX, 8));
        ObjectNode c = tutorial();
        ((ArrayNode) c.path("status").path("allocation").path("nodeSelector").path("nodeSelectorTerms").get(0).path("matchFields").get(0)
                .path("values")).removeAll().add(HGX);
        view.claimChanged(claim(c));
        assertEquals(1, view.capacity(HGX).foreign());
        view.claimChanged(nvidia("n", HGX, "gpu-0"));
        assertEquals(1, view.capacity(HGX).foreign(), "gpu.nvidia.com is no longer counted once the list is replaced");
    }
}
