package dev.ace.binpacker.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.admission.WorkloadAdmission;
import dev.ace.binpacker.cluster.AdmissionWiring;
import dev.ace.binpacker.cluster.OfflineConfig;
import dev.ace.binpacker.cluster.node.NodeListLoader;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.PodRequests;
import dev.ace.binpacker.workload.WorkloadPods;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real public manifests of every controller kind ACE reads (tests/workloads, SOURCES.md), through the
 * pods their controllers would make ({@link WorkloadPods}) and the {@code /validate-workloads} answer on
 * the inventory of tests/workloads/nodes.yaml, compared whole with {@code tests/workloads/golden/<file>.json}
 * (the AdmissionReview response as a JSON tree, beside what ACE read from each template).
 * {@code -Dgolden.update=true} rewrites the files.
 */
class ControllerManifestsGoldenTest {
    static final Path DIR = Path.of("tests", "workloads");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private final ObjectMapper json = Json.newMapper();

    static Stream<String> manifests() throws Exception {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml") && !n.equals("nodes.yaml")).sorted().toList().stream();
        }
    }

    static List<JsonNode> documents(Path file) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        try (var it = YAML.readValues(YAML.getFactory().createParser(file.toFile()), JsonNode.class)) {
            while (it.hasNextValue()) {
                JsonNode d = it.nextValue();
                if (d != null && d.isObject()) out.add(d);
            }
        }
        return out;
    }

    private WorkloadAdmission admission() throws Exception {
        ClusterState s = new ClusterState();
        NodeMapper m = NodeMapper.standard();
        NodeListLoader.load(DIR.resolve("nodes.yaml")).forEach(n -> s.upsert(m.map(n)));
        Allocator a = new Allocator(s, PackerConfig.defaults());
        return AdmissionWiring.of(OfflineConfig.packaged(), AdmissionWiring.Edge.standalone(() -> a, new PendingDemand(Metrics.NOOP), json,
                NamespacePolicies.always(NamespaceMode.ENFORCE), () -> 1_000_000L)).workloads();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("manifests")
    void every_controller_kind_is_read_from_its_real_manifest(String file) throws Exception {
        WorkloadAdmission admission = admission();
        ArrayNode out = json.createArrayNode();
        int workloads = 0;
        for (JsonNode doc : documents(DIR.resolve(file))) {
            String kind = doc.path("kind").asText();
            if (!WorkloadPods.isWorkload(kind)) continue;
            workloads++;
            ObjectNode entry = out.addObject();
            entry.put("kind", kind).put("name", doc.at("/metadata/name").asText());
            ArrayNode pods = entry.putArray("pods");
            for (WorkloadPods.TemplatePod t : WorkloadPods.of(doc, json)) {
                ObjectNode p = pods.addObject();
                p.put("role", t.role()).put("template", t.template()).put("replicas", t.replicas());
                if (t.group() != null) p.set("group", json.valueToTree(t.group()));
                Classification c = Classifier.classify(t.pod());
                p.put("class", c.workloadClass().label()).put("kind", c.kind()).put("evidence", c.evidence())
                        .put("gpus", c.gpus()).put("tp", c.tp()).put("nnodes", c.nnodes());
                p.put("requests", PodRequests.besidesGpus(t.pod()).toString());
                p.set("owner", json.valueToTree(t.pod().getMetadata().getOwnerReferences().get(0).getKind()));
            }
            JsonNode object = json.readTree(json.writeValueAsString(doc));
            String ns = doc.at("/metadata/namespace").asText("ml");
            AdmissionRequest r = new AdmissionRequest("golden-" + file, ReviewCodec.API_VERSION, kind, null, "CREATE", ns,
                    doc.at("/metadata/name").asText(), false, object, null);
            AdmissionResult result = admission.validate(r);
            entry.set("response", new ReviewCodec(json).complete(r.uid(), ReviewCodec.API_VERSION, result));
        }
        assertTrue(workloads > 0, file + " holds a workload ACE reads");
        GoldenFiles.assertGolden(DIR.resolve("golden").resolve(file.replace(".yaml", ".json")), out);
    }

    @Test
    void the_sglang_leaderworkerset_is_a_cross_pod_tp_group_of_two_ranks_each_holding_one_gpu() throws Exception {
        JsonNode lws = documents(DIR.resolve("lws-sglang.yaml")).get(0);
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(lws, json);
        assertEquals(List.of("leader", "worker"), pods.stream().map(WorkloadPods.TemplatePod::role).toList());
        for (WorkloadPods.TemplatePod t : pods) {
            Classification c = Classifier.classify(t.pod());
            assertEquals(2, c.nnodes(), "--nnodes $(LWS_GROUP_SIZE) reads as the group size the kubelet expands: " + t.role());
            assertTrue(c.multiNodeRank());
            assertEquals(1, c.gpus());
            assertFalse(c.notes().stream().anyMatch(n -> n.contains("kept the 1 GPUs together")), c.notes().toString());
            assertEquals(new WorkloadPods.Group("LeaderWorkerSet", 2, 2, "spec.leaderWorkerTemplate.size"), t.group());
            assertEquals(2, t.replicas(), "2 groups: 2 leaders and 2 workers");
        }
    }

    @Test
    void the_kserve_prefill_decode_sample_asks_for_rdma_beside_its_gpu_and_both_pools_are_read() throws Exception {
        JsonNode svc = documents(DIR.resolve("llmisvc-pd-rdma.yaml")).get(0);
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(svc, json);
        assertEquals(List.of("decode", "prefill"), pods.stream().map(WorkloadPods.TemplatePod::role).toList());
        assertEquals(List.of(1, 2), pods.stream().map(WorkloadPods.TemplatePod::replicas).toList());
        for (WorkloadPods.TemplatePod t : pods) {
            assertEquals(1000, PodRequests.besidesGpus(t.pod()).get("rdma/roce_gdr"), t.role());
            assertEquals(16L * 1024 * 1024 * 1024 * 1000, PodRequests.besidesGpus(t.pod()).get("memory"), t.role());
        }
    }

    @Test
    void the_multi_node_llminferenceservice_is_a_group_of_data_over_data_local_pods() throws Exception {
        JsonNode svc = documents(DIR.resolve("llmisvc-dp-ep-multinode.yaml")).get(0);
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(svc, json);
        assertEquals(List.of("decode leader", "decode worker"), pods.stream().map(WorkloadPods.TemplatePod::role).toList());
        assertEquals(2, pods.get(0).group().size(), "data 16 / dataLocal 8 = 2 pods per replica, as kserve's GetSize");
        assertEquals(8, Classifier.classify(pods.get(1).pod()).gpus());
    }

    @Test
    void kuberay_head_and_worker_groups_are_separate_templates_and_only_the_workers_ask_for_gpus() throws Exception {
        JsonNode svc = documents(DIR.resolve("rayservice-llm-serve.yaml")).get(0);
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(svc, json);
        assertEquals(List.of("head", "worker group gpu-group"), pods.stream().map(WorkloadPods.TemplatePod::role).toList());
        assertEquals(0, Classifier.classify(pods.get(0).pod()).gpus());
        assertEquals(4, Classifier.classify(pods.get(1).pod()).gpus());
        assertEquals("RayCluster", pods.get(1).pod().getMetadata().getOwnerReferences().get(0).getKind());
    }
}
