package dev.ace.binpacker.realapi;

import static dev.ace.binpacker.realapi.Refusals.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A hostile tenant with the ordinary {@code edit} role, against what ACE wrote on their own pod and namespace. */
@RealApiTest
class TenantEditsIT {
    private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);

    @Test
    @DisplayName("A tenant may not rewrite the reservation or decision ACE put on their pinned pod, nor switch ACE off for their namespace; a forged reservation at create is not honoured")
    void tenantCannotEditAcesOutputs(RealCluster c, TestNamespace ns) throws Exception {
        KubernetesClient tenant = Tenants.editor(c, ns.name(), "mallory");
        tenant.pods().inNamespace(ns.name()).resource(TpPods.vllm(ns.name(), "llama", 2)).create();
        Pod pinned = TpPods.awaitPinnedBound(c.admin(), ns.name(), 1, Duration.ofMinutes(2)).get(0);
        String reservation = TpPods.annotation(pinned, AceKeys.RESERVATION);
        var pod = tenant.pods().inNamespace(ns.name()).withName("llama");
        refused(403, "only ACE may add, change or remove ace.dev/reservation on pod llama",
                () -> pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/reservation\":\"{}\"}}}"));
        refused(403, "only ACE may add, change or remove ace.dev/decision",
                () -> pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"ace.dev/decision\":null}}}"));
        assertEquals(reservation, TpPods.annotation(c.admin().pods().inNamespace(ns.name()).withName("llama").get(), AceKeys.RESERVATION));
        // The edit role cannot label namespaces at all (and the policy guards those who can: ShippedAdmissionPoliciesIT).
        refused(403, "forbidden", () -> tenant.namespaces().withName(ns.name()).patch(MERGE, "{\"metadata\":{\"labels\":{\"ace.dev/policy\":\"exempt\"}}}"));

        // A pod created with a copy of another pod's reservation: ACE drops or refuses it, never honours it.
        Pod forged = new PodBuilder(TpPods.vllm(ns.name(), "forger", 2)).editMetadata()
                .withAnnotations(Map.of(AceKeys.RESERVATION, reservation)).endMetadata().build();
        try {
            tenant.pods().inNamespace(ns.name()).resource(forged).create();
            Pod p = c.admin().pods().inNamespace(ns.name()).withName("forger").get();
            assertNotEquals(reservation, TpPods.annotation(p, AceKeys.RESERVATION), "the copied reservation was honoured");
        } catch (KubernetesClientException e) {
            assertEquals(403, e.getCode(), e.getMessage());
        }
        assertEquals(List.of(), c.ledgers().doubleBooked());
    }
}
