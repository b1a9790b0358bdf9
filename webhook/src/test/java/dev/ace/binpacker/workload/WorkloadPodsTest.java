package dev.ace.binpacker.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.admission.Json;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pods controllers create from workload objects, on the golden workload requests. */
class WorkloadPodsTest {
    private static final ObjectMapper JSON = Json.newMapper();

    private static JsonNode object(String golden) throws Exception {
        return JSON.readTree(Files.readAllBytes(Path.of("tests/admission/requests/" + golden + ".json"))).at("/request/object");
    }

    @Test
    void a_jobs_pod_is_owned_by_the_job_so_it_classifies_as_batch_like_the_real_one() throws Exception {
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(object("workload-job-fracturing"), JSON);
        assertEquals(1, pods.size());
        Pod p = pods.get(0).pod();
        assertEquals("Job", p.getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals("ft-llama-", p.getMetadata().getGenerateName());
        assertEquals("team-enforce", p.getMetadata().getNamespace());
        assertEquals("ft-llama", p.getMetadata().getLabels().get("batch.kubernetes.io/job-name"));
        assertEquals("job", Classifier.classify(p).kind());
    }

    @Test
    void a_deployments_pod_belongs_to_a_replicaset_and_counts_the_replicas() throws Exception {
        WorkloadPods.TemplatePod t = WorkloadPods.of(object("workload-deployment-tp4"), JSON).get(0);
        assertEquals("ReplicaSet", t.pod().getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals(2, t.replicas());
        assertEquals("/spec/template", t.template());
        assertEquals(4, Classifier.classify(t.pod()).tp());
    }

    @Test
    void a_leaderworkerset_gives_a_leader_pod_and_size_minus_one_workers_per_group() throws Exception {
        List<WorkloadPods.TemplatePod> pods = WorkloadPods.of(object("workload-lws-invalid"), JSON);
        assertEquals(List.of("leader", "worker"), pods.stream().map(WorkloadPods.TemplatePod::role).toList());
        assertEquals("deepseek-r1-0", pods.get(0).pod().getMetadata().getName());
        assertEquals("deepseek-r1-0-1", pods.get(1).pod().getMetadata().getName());
        assertEquals(1, pods.get(1).replicas());
        assertEquals("StatefulSet", pods.get(1).pod().getMetadata().getOwnerReferences().get(0).getKind());
    }

    @Test
    void an_update_that_only_suspends_a_job_leaves_its_templates_equal() throws Exception {
        JsonNode review = JSON.readTree(Files.readAllBytes(Path.of("tests/admission/requests/workload-update-template-unchanged.json")));
        assertEquals(WorkloadPods.templates(review.at("/request/oldObject")), WorkloadPods.templates(review.at("/request/object")));
        ObjectNode changed = review.at("/request/object").deepCopy();
        ((ObjectNode) changed.at("/spec/template/spec/containers/0/resources/limits")).put("nvidia.com/gpu", 4);
        assertNotEquals(WorkloadPods.templates(review.at("/request/oldObject")), WorkloadPods.templates(changed));
    }

    @Test
    void kinds_without_a_pod_template_are_named() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WorkloadPods.of(JSON.createObjectNode().put("kind", "Service"), JSON));
        assertEquals("Service has no pod template", e.getMessage());
    }
}
