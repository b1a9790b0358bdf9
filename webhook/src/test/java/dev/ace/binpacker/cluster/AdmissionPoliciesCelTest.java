package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ValidatingAdmissionPolicies and match conditions of webhook-config/, evaluated with Google's
 * CEL against the requests a cluster sends: a tenant, a cluster admin, ACE's ServiceAccount.
 */
class AdmissionPoliciesCelTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final Cel.Caller TENANT = new Cel.Caller("alice", List.of("team-a", "system:authenticated"), Set.of());
    static final Cel.Caller ADMIN = new Cel.Caller("kubernetes-admin", List.of("system:masters", "system:authenticated"), Set.of());
    static final Cel.Caller ACE = new Cel.Caller("system:serviceaccount:ace-system:ace-binpacker",
            List.of("system:serviceaccounts", "system:serviceaccounts:ace-system", "system:authenticated"), Set.of());
    static final Cel.Caller PLATFORM = new Cel.Caller("bob", List.of("platform", "system:authenticated"),
            Set.of("ace.dev/policyexemptions/create"));
    static final Cel.Caller KUBELET = new Cel.Caller("system:node:hgx-h100-0", List.of("system:nodes", "system:authenticated"), Set.of());

    static final String RESERVATION = "{\"id\":\"5d1c\",\"node\":\"hgx-h100-0\",\"gpus\":[0,1,2,3],\"domain\":\"hgx-h100-0/nvl0\",\"tp\":4}";

    static JsonNode spec(String file, String policy) throws Exception {
        for (JsonNode d : Cel.documents(Path.of("webhook-config", file))) {
            if ("ValidatingAdmissionPolicy".equals(d.path("kind").asText()) && policy.equals(d.at("/metadata/name").asText())) return d.path("spec");
        }
        throw new AssertionError("no policy " + policy + " in " + file);
    }

    static JsonNode yaml(String text) {
        try {
            return YAML.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A running pod ACE placed: its reservation and decision. */
    static ObjectNode placedPod() {
        return (ObjectNode) yaml("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: llama-70b-x7k2p
                  namespace: ml
                  labels: {app: llama}
                  annotations:
                    ace.dev/reservation: '%s'
                    ace.dev/decision: reserved GPUs 0,1,2,3 on hgx-h100-0
                spec:
                  containers: [{name: server, image: vllm/vllm-openai, resources: {limits: {nvidia.com/gpu: 4}}}]
                """.formatted(RESERVATION));
    }

    static ObjectNode gatedPod() {
        ObjectNode p = placedPod();
        ((ObjectNode) p.get("metadata")).remove("annotations");
        ((ObjectNode) p.get("spec")).set("schedulingGates", yaml("[{name: ace.dev/waiting-for-clique}]"));
        return p;
    }

    static ObjectNode annotate(ObjectNode pod, String key, String value) {
        ObjectNode p = pod.deepCopy();
        ObjectNode a = ((ObjectNode) p.get("metadata")).with("annotations");
        if (value == null) a.remove(key);
        else a.put(key, value);
        return p;
    }

    static Cel.Verdict podUpdate(JsonNode now, JsonNode before, Cel.Caller who) throws Exception {
        return Cel.admit(spec("pod-outputs-guard.yaml", "ace-guard-pod-outputs"), "UPDATE", now, before, who);
    }

    @ParameterizedTest(name = "a tenant may not touch {0}")
    @ValueSource(strings = {"ace.dev/reservation", "ace.dev/decision", "ace.dev/rewritten-from"})
    void a_tenant_may_not_add_change_or_remove_an_ace_output(String key) throws Exception {
        ObjectNode pod = annotate(placedPod(), key, "what ACE wrote");
        Cel.Verdict change = podUpdate(annotate(pod, key, "{\"id\":\"5d1c\",\"node\":\"hgx-h100-0\",\"gpus\":[0,1,2,3,4,5,6,7]}"), pod, TENANT);
        assertFalse(change.allowed());
        assertEquals("only ACE may add, change or remove " + key + " on pod llama-70b-x7k2p", change.message());
        ObjectNode without = annotate(pod, key, null);
        assertFalse(podUpdate(without, pod, TENANT).allowed(), "remove");
        assertFalse(podUpdate(pod, without, TENANT).allowed(), "add");
    }

    @Test
    void the_informer_adopting_an_update_is_moot_when_the_update_is_refused_at_the_api() throws Exception {
        ObjectNode pod = placedPod();
        ObjectNode moved = annotate(pod, "ace.dev/reservation", RESERVATION.replace("hgx-h100-0", "hgx-h200-0"));
        assertFalse(podUpdate(moved, pod, TENANT).allowed());
        assertFalse(podUpdate(moved, pod, ADMIN).allowed(), "cluster admins too: an edited reservation corrupts the ledger");
        assertTrue(podUpdate(moved, pod, ACE).allowed(), "ACE's own ServiceAccount may");
    }

    @Test
    void only_ace_removes_its_gate() throws Exception {
        ObjectNode gated = gatedPod();
        ObjectNode released = gated.deepCopy();
        ((ObjectNode) released.get("spec")).remove("schedulingGates");
        Cel.Verdict tenant = podUpdate(released, gated, TENANT);
        assertFalse(tenant.allowed());
        assertEquals("only ACE may remove the scheduling gate ace.dev/waiting-for-clique from pod llama-70b-x7k2p", tenant.message());
        assertFalse(podUpdate(released, gated, ADMIN).allowed());
        ObjectNode releasedByAce = annotate(released, "ace.dev/reservation", RESERVATION);
        assertTrue(podUpdate(releasedByAce, gated, ACE).allowed(), "ACE's release: gate removed, reservation added");
    }

    @Test
    void everything_else_a_tenant_or_the_kubelet_updates_passes() throws Exception {
        ObjectNode pod = placedPod();
        ObjectNode relabelled = pod.deepCopy();
        ((ObjectNode) relabelled.at("/metadata/labels")).put("version", "2");
        assertTrue(podUpdate(annotate(relabelled, "team.example/owner", "alice"), pod, TENANT).allowed());
        ObjectNode status = pod.deepCopy();
        status.set("status", yaml("{phase: Running}"));
        assertTrue(podUpdate(status, pod, KUBELET).allowed());
        ObjectNode bare = (ObjectNode) yaml("{metadata: {name: web}, spec: {containers: [{name: c, image: nginx}]}}");
        assertTrue(podUpdate(bare, bare, TENANT).allowed(), "a pod without annotations or gates at all");
    }

    static Cel.Verdict namespace(String operation, String now, String before, Cel.Caller who) throws Exception {
        JsonNode ns = yaml("{metadata: {name: research" + (now == null ? "" : ", labels: {ace.dev/policy: " + now + "}") + "}}");
        JsonNode old = operation.equals("CREATE") ? null
                : yaml("{metadata: {name: research" + (before == null ? "" : ", labels: {ace.dev/policy: " + before + "}") + "}}");
        return Cel.admit(spec("exempt-guard.yaml", "ace-guard-policy-exempt"), operation, ns, old, who);
    }

    @ParameterizedTest(name = "ace.dev/policy={0} needs the exemption permission")
    @ValueSource(strings = {"warn", "audit", "exempt", "Exempt", "anything-else"})
    void every_value_other_than_enforce_needs_the_exemption_permission_on_create_and_update(String mode) throws Exception {
        Cel.Verdict created = namespace("CREATE", mode, null, TENANT);
        assertFalse(created.allowed());
        assertTrue(created.message().startsWith("only cluster admins may set ace.dev/policy=" + mode + " on namespace research"), created.message());
        assertFalse(namespace("UPDATE", mode, "enforce", TENANT).allowed());
        assertFalse(namespace("UPDATE", mode, null, TENANT).allowed());
        assertTrue(namespace("CREATE", mode, null, ADMIN).allowed());
        assertTrue(namespace("UPDATE", mode, "enforce", PLATFORM).allowed(), "granted create on policyexemptions.ace.dev");
        assertFalse(namespace("UPDATE", mode, "enforce", ACE).allowed(), "ACE itself has no say over namespaces");
    }

    @Test
    void enforce_a_missing_label_and_an_unchanged_value_need_nothing() throws Exception {
        assertTrue(namespace("CREATE", "enforce", null, TENANT).allowed());
        assertTrue(namespace("CREATE", null, null, TENANT).allowed());
        assertTrue(namespace("UPDATE", "warn", "warn", TENANT).allowed(), "a namespace keeps the mode an admin gave it");
        assertTrue(namespace("UPDATE", null, "exempt", TENANT).allowed(), "back to enforce by removing the label");
        assertFalse(namespace("UPDATE", "exempt", "warn", TENANT).allowed(), "warn to exempt is a change");
    }

    @Test
    void the_webhooks_see_gpu_pods_and_pods_that_bring_ace_keys_and_nothing_else() throws Exception {
        for (String file : new String[] {"mutating.yaml", "validating.yaml"}) {
            JsonNode webhook = Cel.documents(Path.of("webhook-config", file)).get(0).at("/webhooks/0");
            String condition = webhook.at("/matchConditions/0/expression").asText();
            Map<String, Object> gpu = Map.of("object", Cel.value(placedPod()));
            assertEquals(Boolean.TRUE, Cel.eval(condition, gpu), file);
            ObjectNode web = (ObjectNode) yaml("{metadata: {name: web}, spec: {containers: [{name: c, image: nginx, resources: {limits: {cpu: 1}}}]}}");
            assertEquals(Boolean.FALSE, Cel.eval(condition, Map.of("object", Cel.value(web))), file);
            assertEquals(Boolean.TRUE, Cel.eval(condition, Map.of("object", Cel.value(annotate(web, "ace.dev/decision", "x")))), file);
            ObjectNode gatedWeb = web.deepCopy();
            ((ObjectNode) gatedWeb.get("spec")).set("schedulingGates", yaml("[{name: ace.dev/waiting-for-clique}]"));
            assertEquals(Boolean.TRUE, Cel.eval(condition, Map.of("object", Cel.value(gatedWeb))), file);
            ObjectNode sidecar = (ObjectNode) yaml("{spec: {containers: [{name: c, image: x}], initContainers: "
                    + "[{name: s, image: x, restartPolicy: Always, resources: {limits: {nvidia.com/gpu: 1}}}]}}");
            assertEquals(Boolean.TRUE, Cel.eval(condition, Map.of("object", Cel.value(sidecar))), file);
        }
    }

    @Test
    void every_policy_has_a_binding_that_denies() throws Exception {
        for (String file : new String[] {"exempt-guard.yaml", "pod-outputs-guard.yaml"}) {
            List<JsonNode> docs = Cel.documents(Path.of("webhook-config", file));
            JsonNode policy = docs.stream().filter(d -> d.path("kind").asText().equals("ValidatingAdmissionPolicy")).findFirst().orElseThrow();
            JsonNode binding = docs.stream().filter(d -> d.path("kind").asText().equals("ValidatingAdmissionPolicyBinding")).findFirst().orElseThrow();
            assertEquals(policy.at("/metadata/name").asText(), binding.at("/spec/policyName").asText());
            assertEquals("[\"Deny\"]", binding.at("/spec/validationActions").toString());
            assertEquals("Fail", policy.at("/spec/failurePolicy").asText());
        }
    }
}
