package dev.ace.binpacker.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class TopologyAgentTest {
    static KubernetesClient client;
    private static final Path H200 = Path.of("tests/fixtures/topology/hgx-h200-8gpu.txt");

    @BeforeEach
    void node() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata().build()).createOr(r -> r.update());
    }

    private TopologyAgent agent(String shell) {
        return new TopologyAgent(client, "gpu-1", List.of("sh", "-c", shell), 10);
    }

    @Test
    @DisplayName("The agent writes the verbatim topo -m output to its node, once")
    void writesAnnotation() throws Exception {
        assertEquals(TopologyAgent.Result.WRITTEN, agent("cat " + H200).runOnce());
        Node n = client.nodes().withName("gpu-1").get();
        assertEquals(Files.readString(H200), n.getMetadata().getAnnotations().get(TopologyAgent.ANNOTATION));
        String version = n.getMetadata().getResourceVersion();
        assertEquals(TopologyAgent.Result.UNCHANGED, agent("cat " + H200).runOnce());
        assertEquals(version, client.nodes().withName("gpu-1").get().getMetadata().getResourceVersion(), "no write when unchanged");
    }

    @Test
    @DisplayName("Output that is not a topology matrix is never written")
    void refusesGarbage() {
        IOException e = assertThrows(IOException.class, () -> agent("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver'").runOnce());
        assertTrue(e.getMessage().contains("not a topology matrix"), e.getMessage());
        Node n = client.nodes().withName("gpu-1").get();
        assertNull(n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get(TopologyAgent.ANNOTATION));
    }

    @Test
    @DisplayName("A failing nvidia-smi is reported with its exit code and stderr")
    void reportsCommandFailure() {
        IOException e = assertThrows(IOException.class, () -> agent("echo 'driver not loaded' >&2; exit 9").runOnce());
        assertTrue(e.getMessage().contains("exited with 9") && e.getMessage().contains("driver not loaded"), e.getMessage());
    }

    @Test
    @DisplayName("An agent without a node name refuses to start")
    void needsNodeName() {
        assertThrows(IllegalArgumentException.class, () -> new TopologyAgent(client, " ", List.of("true"), 1));
    }
}
