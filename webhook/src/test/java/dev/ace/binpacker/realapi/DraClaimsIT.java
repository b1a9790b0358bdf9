package dev.ace.binpacker.realapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * GPUs allocated through DRA on the real API server (resource.k8s.io/v1, served by v1.36.2): ResourceClaims whose
 * status an admin writes as the NVIDIA DRA driver's allocation would read (no driver runs here) hold GPUs 0-3 of
 * every 8-GPU board; a tenant's TP 8 pod then waits at the gate and a TP 4 pod gets GPUs 4-7; once the claims are
 * deallocated the TP 8 pod is released onto a whole board.
 */
@RealApiTest
class DraClaimsIT {
    private static final List<String> BOARDS = List.of("hgx-h100-0", "hgx-h100-1", "hgx-h200-0");
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    @Test
    @DisplayName("GPUs of allocated ResourceClaims are never reserved by ACE: TP 8 waits, TP 4 gets the other half, and the freed boards release the TP 8 pod")
    void claimedGpusAreHeld(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "dana");
        var claims = c.admin().resources(ResourceClaim.class).inNamespace(ns.name());
        try {
            for (String node : BOARDS) {
                claims.resource(new ResourceClaimBuilder().withNewMetadata().withName("dra-" + node).endMetadata()
                        .withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly().withDeviceClassName("gpu.nvidia.com")
                        .withAllocationMode("ExactCount").withCount(4L).endExactly().endRequest().endDevices().endSpec().build()).create();
                // What kube-scheduler writes when it allocates the NVIDIA driver's gpu-0..gpu-3 of the node (pool = node name).
                StringBuilder results = new StringBuilder();
                for (int i = 0; i < 4; i++) {
                    results.append(i == 0 ? "" : ",").append("{\"request\":\"gpu\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"").append(node)
                            .append("\",\"device\":\"gpu-").append(i).append("\"}");
                }
                claims.withName("dra-" + node).subresource("status").patch(MERGE, "{\"status\":{\"allocation\":{\"devices\":{\"results\":["
                        + results + "]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
                        + "\"values\":[\"" + node + "\"]}]}]}}}}");
            }
            // Both replicas have seen the claims when server-side dry runs of a TP 8 pod (reserving nothing) come back gated.
            Conditions.await("the replicas count the claimed GPUs", Duration.ofMinutes(1), () -> {
                for (int i = 0; i < 6; i++) {
                    Pod probe = tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "probe", 8)).dryRun().create();
                    if (!TpPods.gated(probe)) return false;
                }
                return true;
            });

            Pod big = tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama-405b", 8)).create();
            assertTrue(TpPods.gated(big), "no whole 8-GPU board is free while claims hold half of each: " + TpPods.summary(c.admin(), ns.name()));
            tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama-70b", 4)).create();
            Pod half = TpPods.awaitPinnedBound(c.admin(), ns.name(), 1, Duration.ofMinutes(2)).stream()
                    .filter(p -> p.getMetadata().getName().equals("llama-70b")).findFirst().orElseThrow();
            JsonNode reservation = new ObjectMapper().readTree(TpPods.annotation(half, AceKeys.RESERVATION));
            for (JsonNode g : reservation.path("gpus")) assertTrue(g.asInt() >= 4, "a claimed GPU was reserved: " + reservation);

            for (String node : BOARDS) claims.withName("dra-" + node).subresource("status").patch(MERGE, "{\"status\":{\"allocation\":null}}");
            TpPods.awaitPinnedBound(c.admin(), ns.name(), 2, Duration.ofMinutes(2));
            assertEquals(List.of(), c.ledgers().doubleBooked());
        } finally {
            for (String node : BOARDS) claims.withName("dra-" + node).delete();
        }
    }
}
