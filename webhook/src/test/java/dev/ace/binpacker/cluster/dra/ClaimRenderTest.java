package dev.ace.binpacker.cluster.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.truth.dra.DraDevice;
import dev.ace.binpacker.truth.dra.DraJoin;
import dev.ace.binpacker.truth.dra.DraNode;
import dev.ace.binpacker.truth.dra.DraPools;
import dev.ace.binpacker.topology.GpuBoard;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Golden files under tests/fixtures/dra/rendered/; {@code -Dgolden.update=true} rewrites them (review the diff). */
class ClaimRenderTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path GOLDEN = DraFixtureFiles.DIR.resolve("rendered");

    static Pod pod(String yaml) { return Serialization.unmarshal(yaml, Pod.class); }

    static final String TP2 = """
            apiVersion: v1
            kind: Pod
            metadata: {name: llama-8b, namespace: ml}
            spec:
              containers:
              - name: vllm
                image: vllm/vllm-openai:v0.8.5
                args: ["--tensor-parallel-size", "2"]
                resources:
                  limits: {nvidia.com/gpu: "2", memory: 64Gi}
                  requests: {nvidia.com/gpu: "2", cpu: "8", memory: 64Gi}
              - name: metrics
                image: prom/statsd-exporter:v0.26.0
            """;

    static List<DraDevice> reserved(long mask) throws Exception {
        var node = DraPools.byNode(DraFixtureFiles.pure("h100-8gpu-slice.yaml"), Set.of("gpu.nvidia.com")).get("dgx-h100-0");
        DraNode n = DraJoin.join(node, DraFixtureFiles.uuids("h100-uuids.txt"), Optional.empty());
        return n.devices(mask);
    }

    @Test
    void aTp2PodOnGpus4And5() throws Exception {
        Pod in = pod(TP2);
        String before = Serialization.asJson(in);
        ClaimRender.Rendered r = ClaimRender.render(in, reserved(GpuBoard.mask(4, 5)), "gpu.nvidia.com", "gpu.nvidia.com", "llama-8b-ace-gpus");
        assertGolden("tp2-template.yaml", r.template());
        assertGolden("tp2-pod.yaml", r.pod());
        assertEquals(before, Serialization.asJson(in), "the input pod is not changed");
        assertEquals("nvidia.com/gpu=2", r.pod().getMetadata().getAnnotations().get(AceKeys.REWRITTEN_FROM));
    }

    @Test
    void twoGpuContainersGetOneRequestEachWithTheirOwnGpus() throws Exception {
        Pod in = pod(TP2.replace("- name: metrics\n    image: prom/statsd-exporter:v0.26.0",
                "- name: embed\n    image: ghcr.io/huggingface/text-embeddings-inference:1.5\n    resources:\n      limits: {nvidia.com/gpu: \"1\"}"));
        ClaimRender.Rendered r = ClaimRender.render(in, reserved(GpuBoard.mask(0, 1, 2)), "gpu.nvidia.com", "gpu.nvidia.com", "t");
        var requests = r.template().getSpec().getSpec().getDevices().getRequests();
        assertEquals(List.of(2L, 1L), requests.stream().map(q -> q.getExactly().getCount()).toList());
        assertEquals("gpus-1", r.pod().getSpec().getContainers().get(1).getResources().getClaims().get(0).getRequest());
        String second = requests.get(1).getExactly().getSelectors().get(0).getCel().getExpression();
        assertEquals(List.of(DraFixtureFiles.uuids("h100-uuids.txt").get(2)), uuidsIn(second));
    }

    @Test
    void refusesPodsTheReservationDoesNotFit() throws Exception {
        List<DraDevice> three = reserved(GpuBoard.mask(0, 1, 2));
        var e = assertThrows(IllegalArgumentException.class, () -> ClaimRender.render(pod(TP2), three, "gpu.nvidia.com", "gpu.nvidia.com", "t"));
        assertEquals("the containers ask 2 nvidia.com/gpu, not the 3 reserved GPUs", e.getMessage());
        Pod init = pod(TP2.replace("  containers:", "  initContainers:\n  - name: warm\n    image: busybox\n    resources:\n      limits: {nvidia.com/gpu: \"1\"}\n  containers:"));
        assertThrows(IllegalArgumentException.class, () -> ClaimRender.render(init, reserved(GpuBoard.mask(0, 1)), "gpu.nvidia.com", "gpu.nvidia.com", "t"));
        Pod named = pod(TP2.replace("  containers:", "  resourceClaims:\n  - name: ace-gpus\n    resourceClaimName: someone-elses\n  containers:"));
        e = assertThrows(IllegalArgumentException.class, () -> ClaimRender.render(named, reserved(GpuBoard.mask(0, 1)), "gpu.nvidia.com", "gpu.nvidia.com", "t"));
        assertEquals("the pod already has a resource claim named ace-gpus", e.getMessage());
    }

    static List<String> uuidsIn(String expression) {
        return java.util.regex.Pattern.compile("'(GPU-[^']+)'").matcher(expression).results().map(m -> m.group(1)).toList();
    }

    private static void assertGolden(String file, Object actual) throws Exception {
        JsonNode tree = YAML.readTree(Serialization.asYaml(actual));
        Path golden = GOLDEN.resolve(file);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(golden, "# Golden output of ClaimRenderTest (ClaimRender.render); -Dgolden.update=true rewrites it.\n"
                    + YAML.writerWithDefaultPrettyPrinter().writeValueAsString(tree).replaceFirst("^---\\n", ""));
            return;
        }
        if (!Files.exists(golden)) throw new AssertionError(golden + " is missing; run with -Dgolden.update=true and review it");
        assertEquals(YAML.readTree(golden.toFile()), tree, file);
    }
}
