package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The opt-in gpu-device-guard (webhook-config/gpu-device-guard): GPU device access without a GPU
 * request is refused, each trick beside its control (the same pod asking the device plugin for a GPU,
 * or without the trick), evaluated with Google's CEL as the API server would.
 */
class GpuDeviceGuardCelTest {
    static final Path FILE = Path.of("webhook-config", "gpu-device-guard", "gpu-device-guard.yaml");

    static JsonNode policy() throws Exception {
        return Cel.documents(FILE).stream().filter(d -> d.path("kind").asText().equals("ValidatingAdmissionPolicy"))
                .findFirst().orElseThrow().path("spec");
    }

    static Cel.Verdict create(String podYaml) throws Exception {
        return Cel.admit(policy(), "CREATE", AdmissionPoliciesCelTest.yaml(podYaml), null, AdmissionPoliciesCelTest.TENANT);
    }

    static String pod(String container, String extraSpec) {
        return """
                metadata: {generateName: sneaky-, namespace: ml}
                spec:
                  containers:
                  - name: main
                    image: nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04
                %s
                %s
                """.formatted(container.indent(4).stripTrailing(), extraSpec == null ? "" : extraSpec.indent(2).stripTrailing());
    }

    static final String GPU = "resources: {limits: {nvidia.com/gpu: 1}}";

    @ParameterizedTest(name = "NVIDIA_VISIBLE_DEVICES={0}")
    @ValueSource(strings = {"all", "0,1,2,3", "GPU-8f1c2a3b", "''"})
    void the_visible_devices_env_without_a_gpu_request_is_refused_and_with_one_allowed(String value) throws Exception {
        String env = "env: [{name: NVIDIA_VISIBLE_DEVICES, value: " + value + "}]";
        Cel.Verdict trick = create(pod(env, null));
        assertFalse(trick.allowed());
        assertEquals("container main of pod sneaky- sets NVIDIA_VISIBLE_DEVICES or NVIDIA_DRIVER_CAPABILITIES without"
                + " requesting a GPU; request nvidia.com/gpu (or a MIG slice) instead", trick.message());
        assertTrue(create(pod(env + "\n" + GPU, null)).allowed(), "the same container asking the device plugin for a GPU");
        assertTrue(create(pod("args: [sleep, '3600']", null)).allowed(), "the same pod without the env");
    }

    @Test
    void void_and_none_reach_no_gpu_and_pass_but_a_value_from_elsewhere_may_be_all() throws Exception {
        assertTrue(create(pod("env: [{name: NVIDIA_VISIBLE_DEVICES, value: void}]", null)).allowed());
        assertTrue(create(pod("env: [{name: NVIDIA_VISIBLE_DEVICES, value: none}]", null)).allowed());
        assertFalse(create(pod("env: [{name: NVIDIA_VISIBLE_DEVICES, valueFrom: {configMapKeyRef: {name: c, key: k}}}]", null)).allowed());
        assertFalse(create(pod("env: [{name: NVIDIA_DRIVER_CAPABILITIES, value: 'compute,utility'}]", null)).allowed());
    }

    @Test
    void a_privileged_container_without_a_gpu_request_is_refused() throws Exception {
        Cel.Verdict trick = create(pod("securityContext: {privileged: true}", null));
        assertFalse(trick.allowed());
        assertTrue(trick.message().contains("is privileged without requesting a GPU"), trick.message());
        assertTrue(create(pod("securityContext: {privileged: false}", null)).allowed());
        assertTrue(create(pod("securityContext: {runAsNonRoot: true}", null)).allowed());
    }

    @ParameterizedTest(name = "hostPath {0}")
    @ValueSource(strings = {"/dev", "/dev/", "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/dri"})
    void a_host_gpu_device_mounted_without_a_gpu_request_is_refused(String path) throws Exception {
        String mount = "volumeMounts: [{name: dev, mountPath: /host-dev}]";
        String volume = "volumes: [{name: dev, hostPath: {path: '" + path + "'}}]";
        Cel.Verdict trick = create(pod(mount, volume));
        assertFalse(trick.allowed());
        assertTrue(trick.message().contains("mounts the host /dev or its GPU devices"), trick.message());
        assertTrue(create(pod(mount + "\n" + GPU, volume)).allowed(), "with a GPU request the device plugin decides");
        assertTrue(create(pod("args: [sleep, '1']", volume)).allowed(), "a volume nobody mounts reaches nothing");
        assertTrue(create(pod(mount, "volumes: [{name: dev, hostPath: {path: /var/log}}]")).allowed(), "another host path");
    }

    @Test
    void init_and_ephemeral_containers_are_checked_too() throws Exception {
        String init = "initContainers: [{name: warm, image: x, env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]}]";
        assertFalse(create(pod("args: [sleep, '1']", init)).allowed());
        ObjectNode running = (ObjectNode) AdmissionPoliciesCelTest.yaml(pod(GPU, null));
        ObjectNode debugged = running.deepCopy();
        ((ObjectNode) debugged.get("spec")).set("ephemeralContainers", AdmissionPoliciesCelTest.yaml(
                "[{name: debugger, image: busybox, env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]}]"));
        assertFalse(Cel.admit(policy(), "UPDATE", debugged, running, AdmissionPoliciesCelTest.TENANT).allowed(), "kubectl debug");
        assertTrue(Cel.admit(policy(), "UPDATE", running, running, AdmissionPoliciesCelTest.TENANT).allowed());
    }

    @Test
    void a_mig_slice_or_a_gpu_share_is_a_gpu_request() throws Exception {
        String env = "env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]\n";
        assertTrue(create(pod(env + "resources: {limits: {nvidia.com/mig-1g.10gb: 1}}", null)).allowed());
        assertTrue(create(pod(env + "resources: {requests: {nvidia.com/gpu.shared: 1}, limits: {nvidia.com/gpu.shared: 1}}", null)).allowed());
        assertFalse(create(pod(env + "resources: {limits: {cpu: 1}}", null)).allowed(), "CPU is not a GPU request");
    }

    @Test
    void it_is_opt_in_and_its_binding_denies_outside_the_exempt_namespaces() throws Exception {
        List<JsonNode> defaults = DeployManifestsTest.render("webhook-config");
        assertTrue(defaults.stream().noneMatch(d -> d.at("/metadata/name").asText().equals("ace-guard-gpu-devices")),
                "not in the default kustomization");
        JsonNode binding = Cel.documents(FILE).stream().filter(d -> d.path("kind").asText().equals("ValidatingAdmissionPolicyBinding"))
                .findFirst().orElseThrow();
        assertEquals("ace-guard-gpu-devices", binding.at("/spec/policyName").asText());
        assertEquals("[\"Deny\"]", binding.at("/spec/validationActions").toString());
        JsonNode exempt = binding.at("/spec/matchResources/namespaceSelector/matchExpressions/0");
        assertEquals("kubernetes.io/metadata.name", exempt.path("key").asText());
        assertEquals("NotIn", exempt.path("operator").asText());
        assertTrue(exempt.path("values").toString().contains("gpu-operator"), exempt.toString());
        assertEquals("Fail", policy().path("failurePolicy").asText());
    }
}
