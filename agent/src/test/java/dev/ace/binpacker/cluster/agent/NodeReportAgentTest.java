package dev.ace.binpacker.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.TopologyManagerPolicy;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against a fake kubelet (real gRPC on a temporary Unix socket, recorded List answers) and
 * a fake nvidia-smi (a script answering the query, -L and topo -m), publishing on a CRUD mock API.
 */
@EnableKubernetesMockClient(crud = true)
class NodeReportAgentTest {
    static KubernetesClient client;
    private static final Path PODRESOURCES = Path.of("tests/fixtures/podresources");
    private static final String OLLAMA_GPU = "GPU-be839661-c0f5-7452-284b-b875666df60c";
    private static final String SHARED_GPU = "GPU-5a5a7118-e550-79a1-597e-7631e126c57a";
    private static final String MIG_PARENT = "GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4";
    private static final String WHOLE_GPU = "GPU-65759866-6a45-99ff-bc37-c534ea0ae191";

    @TempDir Path dir;
    private Path socket;
    private FakeKubelet kubelet;
    private PodResourcesClient podResources;

    @BeforeEach
    void createNode() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1").endMetadata().build()).createOr(r -> r.update());
        new NodeReportStore(client).objects().withName("gpu-1").delete();
        socket = dir.resolve("kubelet.sock");
        podResources = new PodResourcesClient(socket, Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() throws Exception {
        podResources.close();
        if (kubelet != null) kubelet.close();
    }

    private Path nvidiaSmi(String queryRows, String listText, boolean hang) throws IOException {
        return FakeNvidiaSmi.write(dir, queryRows, listText, null, hang);
    }

    private NodeReportAgent agent(Path smi, TopologyManagerPolicy policy, Duration timeout) {
        return new NodeReportAgent(client, "gpu-1", smi.toString(), podResources, () -> Optional.ofNullable(policy), timeout,
                Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC));
    }

    private Node node() { return client.nodes().withName("gpu-1").get(); }

    private NodeReport published() {
        return new NodeReportStore(client).get("gpu-1").flatMap(NodeReportStore::read).orElse(null);
    }

    private String reportVersion() {
        return new NodeReportStore(client).get("gpu-1").orElseThrow().getMetadata().getResourceVersion();
    }

    @Test
    @DisplayName("A recorded List answer (dcgm-exporter: a GPU and a legacy MIG name) is published once, with generation and policy label")
    void publishesRecordedAnswerOnce() throws Exception {
        kubelet = new FakeKubelet(socket, FakeKubelet.list(PODRESOURCES.resolve("dcgm-exporter-list-gpu-and-legacy-mig.json")), List.of(OLLAMA_GPU));
        NodeReportAgent agent = agent(nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n", "", false),
                TopologyManagerPolicy.SINGLE_NUMA_NODE, Duration.ofSeconds(10));
        assertEquals(NodeReportAgent.Result.PUBLISHED, agent.runOnce());
        NodeReport r = published();
        assertEquals(1, r.generation());
        assertEquals("2026-03-01T12:00:00Z", r.observedAt());
        assertEquals(TopologyManagerPolicy.SINGLE_NUMA_NODE, r.policy());
        assertEquals(GpuBoard.mask(0), r.healthy());
        NodeReport.PodDevices ollama = r.pod("testing", "ollama-76f687f4cd-xcvvp").orElseThrow();
        assertEquals(GpuBoard.mask(0), ollama.gpus());
        assertEquals(GpuBoard.mask(0), ollama.mig());
        assertEquals("single-numa-node", node().getMetadata().getLabels().get(AceKeys.TOPOLOGY_MANAGER_POLICY));

        assertEquals("gpu-1", new NodeReportStore(client).get("gpu-1").map(NodeReportStore::node).orElseThrow());
        assertNull(node().getMetadata().getAnnotations() == null ? null : node().getMetadata().getAnnotations().get(AceKeys.GPU_ALLOCATION),
                "the report is not on the Node");

        String version = node().getMetadata().getResourceVersion();
        String report = reportVersion();
        assertEquals(NodeReportAgent.Result.UNCHANGED, agent.runOnce());
        assertEquals(version, node().getMetadata().getResourceVersion(), "no write when nothing changed");
        assertEquals(report, reportVersion(), "no write when nothing changed");
    }

    @Test
    @DisplayName("A GPU pod starting writes the node's GpuNodeReport, not the Node: 0 Node updates per pod start")
    void podStartWritesTheReportNotTheNode() throws Exception {
        Path smi = nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n1, " + WHOLE_GPU + ", 00000000:3A:00.0\n", "", false);
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(OLLAMA_GPU))), List.of(OLLAMA_GPU, WHOLE_GPU));
        NodeReportAgent agent = agent(smi, TopologyManagerPolicy.NONE, Duration.ofSeconds(10));
        agent.runOnce();
        String nodeVersion = node().getMetadata().getResourceVersion();
        for (int i = 0; i < 3; i++) {
            kubelet.close();
            Map<String, List<String>> pods = i % 2 == 0 ? Map.of("ml/a", List.of(OLLAMA_GPU), "ml/b", List.of(WHOLE_GPU)) : Map.of("ml/a", List.of(OLLAMA_GPU));
            kubelet = new FakeKubelet(socket, FakeKubelet.list(pods), List.of(OLLAMA_GPU, WHOLE_GPU));
            assertEquals(NodeReportAgent.Result.PUBLISHED, agent.runOnce());
        }
        assertEquals(4, published().generation(), "one report per change");
        assertEquals(nodeVersion, node().getMetadata().getResourceVersion(), "the Node was not written by pod starts and stops");
        assertTrue(published().pod("ml", "b").isPresent());
    }

    @Test
    @DisplayName("Upgrade from an agent that wrote the Node: the generation continues from the annotation, which is then removed")
    void migratesTheNodeAnnotation() throws Exception {
        NodeReport old = new NodeReport(7, "2026-02-01T00:00:00Z", TopologyManagerPolicy.NONE, 1, GpuBoard.mask(0), List.of(), List.of());
        client.nodes().withName("gpu-1").edit(n -> new NodeBuilder(n).editMetadata()
                .addToAnnotations(AceKeys.GPU_ALLOCATION, NodeReportJson.write(old)).endMetadata().build());
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(OLLAMA_GPU))), List.of(OLLAMA_GPU));
        agent(nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n", "", false), null, Duration.ofSeconds(10)).runOnce();
        assertEquals(8, published().generation());
        var annotations = node().getMetadata().getAnnotations();
        assertTrue(annotations == null || !annotations.containsKey(AceKeys.GPU_ALLOCATION), "annotation removed: " + annotations);
    }

    @Test
    @DisplayName("Shared replicas and MIG slices map to their GPUs (MIG via nvidia-smi -L); an ID of no GPU here is listed as unmapped")
    void sharedReplicasAndMig() throws Exception {
        Map<String, List<String>> pods = new LinkedHashMap<>();
        pods.put("ml/embed", List.of(SHARED_GPU + "::3"));
        pods.put("ml/notebook", List.of("MIG-9d14fb21-4ae1-546f-a636-011582899c39"));
        pods.put("ml/vllm", List.of(WHOLE_GPU));
        pods.put("ml/elsewhere", List.of("MIG-42f0f413-f7b0-58cc-aced-c1d1fb54db26::0"));
        kubelet = new FakeKubelet(socket, FakeKubelet.list(pods),
                List.of(SHARED_GPU + "::0", SHARED_GPU + "::3", "MIG-9d14fb21-4ae1-546f-a636-011582899c39", WHOLE_GPU));
        String query = "0, " + SHARED_GPU + ", 00000000:18:00.0\n1, " + MIG_PARENT + ", 00000000:2A:00.0\n2, " + WHOLE_GPU + ", 00000000:3A:00.0\n";
        String migList = Files.readString(Path.of("tests/fixtures/mig/h100-80gb-mig-mixed-nvidia-smi-L.txt"));
        NodeReportAgent agent = agent(nvidiaSmi(query, migList, false), TopologyManagerPolicy.NONE, Duration.ofSeconds(10));
        agent.runOnce();
        NodeReport r = published();
        assertEquals(GpuBoard.mask(0), r.pod("ml", "embed").orElseThrow().shared());
        assertEquals(GpuBoard.mask(1), r.pod("ml", "notebook").orElseThrow().mig());
        assertEquals(GpuBoard.mask(2), r.pod("ml", "vllm").orElseThrow().gpus());
        assertTrue(r.pod("ml", "elsewhere").isEmpty());
        assertEquals(List.of("MIG-42f0f413-f7b0-58cc-aced-c1d1fb54db26::0"), r.unmapped());
        assertEquals(List.of(SHARED_GPU, MIG_PARENT, WHOLE_GPU), r.uuids(), "GPU i's UUID at i, published for the DRA join");
        assertEquals(GpuBoard.mask(0, 1, 2), r.healthy());
    }

    @Test
    @DisplayName("No kubelet socket: the round fails with a clear error and publishes nothing (never an empty report)")
    void missingSocket() throws Exception {
        NodeReportAgent agent = agent(nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n", "", false), null, Duration.ofSeconds(10));
        IOException e = assertThrows(IOException.class, agent::runOnce);
        assertTrue(e.getMessage().contains("no kubelet PodResources socket"), e.getMessage());
        assertNull(published());
    }

    @Test
    @DisplayName("Kubelet restart mid-run (socket removed and created anew): the next round dials the new socket and publishes the next generation")
    void kubeletRestart() throws Exception {
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(OLLAMA_GPU))), List.of(OLLAMA_GPU, WHOLE_GPU));
        NodeReportAgent agent = agent(nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n1, " + WHOLE_GPU + ", 00000000:3A:00.0\n", "", false),
                TopologyManagerPolicy.NONE, Duration.ofSeconds(10));
        agent.runOnce();
        kubelet.close();
        assertThrows(IOException.class, agent::runOnce, "a round while the kubelet is down fails");
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(WHOLE_GPU))), List.of(OLLAMA_GPU, WHOLE_GPU));
        assertEquals(NodeReportAgent.Result.PUBLISHED, agent.runOnce());
        NodeReport r = published();

        assertEquals(2, r.generation());
        assertEquals(GpuBoard.mask(1), r.pod("ml", "a").orElseThrow().gpus());
    }

    @Test
    @DisplayName("A hung nvidia-smi is killed at the timeout and the round publishes nothing")
    void hungNvidiaSmi() throws Exception {
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(OLLAMA_GPU))), List.of(OLLAMA_GPU));
        NodeReportAgent agent = agent(nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n", "", true), null, Duration.ofSeconds(1));
        IOException e = assertThrows(IOException.class, agent::runOnce);
        assertTrue(e.getMessage().contains("did not finish in 1 s"), e.getMessage());
        assertNull(published());
    }

    @Test
    @DisplayName("A restarted agent continues the generation from its GpuNodeReport and does not rewrite unchanged content")
    void restartedAgentContinuesGeneration() throws Exception {
        kubelet = new FakeKubelet(socket, FakeKubelet.list(Map.of("ml/a", List.of(OLLAMA_GPU))), List.of(OLLAMA_GPU));
        Path smi = nvidiaSmi("0, " + OLLAMA_GPU + ", 00000000:1B:00.0\n", "", false);
        agent(smi, TopologyManagerPolicy.NONE, Duration.ofSeconds(10)).runOnce();
        String version = node().getMetadata().getResourceVersion();
        String report = reportVersion();
        assertEquals(NodeReportAgent.Result.UNCHANGED, agent(smi, TopologyManagerPolicy.NONE, Duration.ofSeconds(10)).runOnce());
        assertEquals(version, node().getMetadata().getResourceVersion());
        assertEquals(report, reportVersion());
        assertEquals(NodeReportAgent.Result.PUBLISHED, agent(smi, TopologyManagerPolicy.RESTRICTED, Duration.ofSeconds(10)).runOnce());
        assertEquals(2, published().generation());
    }

    @Test
    @DisplayName("The kubelet configuration file (YAML or JSON) gives the policy; no file gives none known; a typo is an error")
    void kubeletConfigPolicy() throws Exception {
        Path yaml = Files.writeString(dir.resolve("config.yaml"),
                "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: single-numa-node\n");
        assertEquals(Optional.of(TopologyManagerPolicy.SINGLE_NUMA_NODE), KubeletTopologyPolicy.read(yaml));
        Path json = Files.writeString(dir.resolve("config.json"), "{\"kind\":\"KubeletConfiguration\",\"cpuManagerPolicy\":\"static\"}");
        assertEquals(Optional.of(TopologyManagerPolicy.NONE), KubeletTopologyPolicy.read(json));
        assertEquals(Optional.empty(), KubeletTopologyPolicy.read(dir.resolve("absent.yaml")));
        Path typo = Files.writeString(dir.resolve("typo.yaml"), "topologyManagerPolicy: single-numa\n");
        assertThrows(IOException.class, () -> KubeletTopologyPolicy.read(typo));
    }
}
