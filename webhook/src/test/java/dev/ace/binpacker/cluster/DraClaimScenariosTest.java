package dev.ace.binpacker.cluster;

import static dev.ace.binpacker.cluster.ClusterScenariosTest.told;
import static dev.ace.binpacker.cluster.ClusterScenariosTest.tp;
import static dev.ace.binpacker.cluster.MockCluster.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.view.DraClaimsTest;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * GPUs allocated through DRA on a node a replica places on (issue 17): the replica's ResourceClaim informer
 * counts them as held, so a TP pod gets only the GPUs no claim holds; and a cluster that does not serve
 * {@code resource.k8s.io/v1} leaves the replica ready and placing as before.
 */
class DraClaimScenariosTest {
    private static final String HGX = "hgx-h100-0";
    private MockCluster k8s;

    @BeforeEach
    void cluster() {
        k8s = new MockCluster();
        // The CRUD mock knows the built-in kinds it has models of; ResourceClaims are namespaced, listed cluster-wide.
        k8s.server.expectCustomResource(new io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext.Builder()
                .withGroup("resource.k8s.io").withVersion("v1").withPlural("resourceclaims").withKind("ResourceClaim").withScope("Namespaced").build());
        k8s.namespace("ml", null);
        k8s.node(TestNodes.node(HGX, 8));
    }

    @AfterEach
    void down() { k8s.close(); }

    private void claim(ResourceClaim c) {
        c.getMetadata().setNamespace("ml");
        c.getMetadata().setResourceVersion(null); // the API server sets it
        k8s.client.resources(ResourceClaim.class).inNamespace("ml").resource(c).create();
    }

    @Test
    void gpus_of_an_allocated_claim_are_never_reserved_for_a_tp_pod_and_come_back_when_the_claim_goes() throws Exception {
        MockReplica r = k8s.replica("a").start();
        eventually(r::ready, "ready");
        // A DRA workload holds GPUs 0-2 whole and a MIG slice of GPU 3, which the NVIDIA driver allocated.
        claim(DraClaimsTest.nvidia("dra-1", HGX, "gpu-0", "gpu-1", "gpu-2", "gpu-3-mig-1g10gb-19-0"));
        eventually(() -> r.cluster.view().capacity(HGX).foreign() == 4, "the claim's GPUs counted on " + HGX);

        Pod tp8 = r.admit(withNamespace(tp(8, "llama-405b")));
        assertNotNull(tp8);
        assertTrue(told(tp8).isEmpty(), "no 8-clique is free while the claim holds half the board: " + tp8.getMetadata().getAnnotations());
        Pod tp4 = r.admit(withNamespace(tp(4, "llama-70b")));
        assertEquals(GpuBoard.mask(4, 5, 6, 7), told(tp4).orElseThrow().gpuMask(), "the TP 4 pod gets the four GPUs no claim holds");

        // The pod is gone: kube-controller-manager deallocates the claim (its delete-protection finalizer keeps it until then).
        var claim = k8s.client.resources(ResourceClaim.class).inNamespace("ml").withName("claim-dra-1");
        claim.patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                "{\"status\":{\"allocation\":null,\"reservedFor\":null}}");
        eventually(() -> r.cluster.view().capacity(HGX).foreign() == 0, "the claim's GPUs free again once it is deallocated");
        assertEquals(0, r.fleet.allocator().read(a -> a.ledger().onNode(HGX).stream().filter(e -> !e.isAce()).count()).intValue(),
                "no observed entry is left on the node");
    }

    @Test
    void a_cluster_without_the_resource_claim_api_leaves_the_replica_ready_and_placing() {
        k8s.api.fail("GET", "/apis/resource.k8s.io/v1/resourceclaims", 404, 1_000);
        MockReplica r = k8s.replica("a").start();
        eventually(r::ready, "ready without ResourceClaims");
        Pod tp4 = r.admit(withNamespace(tp(4, "llama-70b")));
        assertEquals(4, Long.bitCount(told(tp4).orElseThrow().gpuMask()));
    }

    private static Pod withNamespace(Pod p) {
        p.getMetadata().setNamespace("ml");
        return p;
    }
}
