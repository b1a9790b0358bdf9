package dev.ace.binpacker.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Workload objects -> the pods their controllers would create from them: the template with the
 * object's namespace, the labels and owner the controller adds (a Job's pods are owned by the Job,
 * a Deployment's by a ReplicaSet, a LeaderWorkerSet's by StatefulSets). The webhook then judges
 * these pods with the rules it applies to real ones, so a workload refused at apply time gets the
 * message its pods would get. Pure: no I/O.
 */
public final class WorkloadPods {
    /** Kubeflow training operator kinds and the field of their replica specs. */
    public static final Map<String, String> TRAINING_OPERATOR = Map.of("PyTorchJob", "pytorchReplicaSpecs", "TFJob", "tfReplicaSpecs",
            "MPIJob", "mpiReplicaSpecs", "XGBoostJob", "xgbReplicaSpecs", "PaddleJob", "paddleReplicaSpecs", "JAXJob", "jaxReplicaSpecs");

    /** Kinds with pod templates, by kind: the API group ("" would be core). */
    public static final Map<String, String> KINDS = kinds();

    private static Map<String, String> kinds() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String k : List.of("Deployment", "StatefulSet", "ReplicaSet")) m.put(k, "apps");
        for (String k : List.of("Job", "CronJob")) m.put(k, "batch");
        m.put("LeaderWorkerSet", "leaderworkerset.x-k8s.io");
        m.put("InferenceService", "serving.kserve.io");
        m.put("LLMInferenceService", "serving.kserve.io");
        for (String k : List.of("RayCluster", "RayService", "RayJob")) m.put(k, "ray.io");
        m.put("JobSet", "jobset.x-k8s.io");
        for (String k : List.of("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime")) m.put(k, "trainer.kubeflow.org");
        for (String k : TRAINING_OPERATOR.keySet()) m.put(k, "kubeflow.org");
        for (String k : List.of("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")) m.put(k, "argoproj.io");
        return java.util.Collections.unmodifiableMap(m);
    }

    private WorkloadPods() {}

    /**
     * Pods of one replica of a multi-pod group (LeaderWorkerSet, multi-node KServe, KubeRay multi-host
     * worker groups, JobSet replicated jobs, training operator jobs, multi-node TrainJobs).
     *
     * @param controller whose group it is, "LeaderWorkerSet"
     * @param size       pods per group
     * @param groups     groups the object asks for
     * @param from       the field the size is read from
     */
    public record Group(String controller, int size, int groups, String from) {}

    /**
     * One pod as a controller would create it.
     *
     * @param role     {@code pod} for a Pod itself, {@code template}, or the controller's word: {@code leader} /
     *                 {@code worker} of a LeaderWorkerSet, {@code head}, {@code predictor}, a replicated job's name...
     * @param template JSON pointer of the pod template inside the object ({@code ""} for a Pod)
     * @param replicas pods created from this template in all ({@code spec.replicas}, {@code parallelism}, groups x ranks), at least 1
     * @param group    the multi-pod group its pods are ranks of, null when each pod stands alone
     */
    public record TemplatePod(String role, String template, int replicas, Pod pod, Group group) {
        public TemplatePod(String role, String template, int replicas, Pod pod) { this(role, template, replicas, pod, null); }
    }

    /** Is {@code kind} a workload whose pod templates ACE judges (Pods excluded)? */
    public static boolean isWorkload(String kind) { return KINDS.containsKey(kind); }

    /** The pod templates of a workload object as JSON, by pointer: what an UPDATE must change for ACE to judge again. */
    public static Map<String, JsonNode> templates(JsonNode object) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (ControllerTemplates.Source p : ControllerTemplates.of(object.path("kind").asText(""), object)) out.put(p.pointer(), object.at(p.pointer()));
        return out;
    }

    /**
     * The pods of {@code object} (a Pod, or a kind of {@link #KINDS}).
     *
     * @throws IllegalArgumentException when the kind has no pod template or the template is not a pod spec
     */
    public static List<TemplatePod> of(JsonNode object, ObjectMapper mapper) {
        String kind = object.path("kind").asText("");
        if (kind.equals("Pod")) return List.of(new TemplatePod("pod", "", 1, toPod(object.deepCopy(), mapper, kind)));
        if (!isWorkload(kind)) {
            throw new IllegalArgumentException(kind.isEmpty() ? "a document without kind" : kind + " has no pod template");
        }
        List<ControllerTemplates.Source> sources = ControllerTemplates.of(kind, object);
        if (sources.isEmpty()) throw new IllegalArgumentException("a " + kind + " without a pod template at " + ControllerTemplates.expected(kind));
        List<TemplatePod> out = new ArrayList<>();
        for (ControllerTemplates.Source src : sources) {
            JsonNode t = object.at(src.pointer());
            if (!t.isObject()) throw new IllegalArgumentException(kind + " " + src.pointer() + " is not a pod template");
            ObjectNode pod = TemplateShapes.podOf(src, object, mapper);
            pod.put("apiVersion", "v1");
            pod.put("kind", "Pod");
            ObjectNode meta = pod.has("metadata") && pod.get("metadata").isObject() ? (ObjectNode) pod.get("metadata") : pod.putObject("metadata");
            String ns = object.at("/metadata/namespace").asText("");
            if (!ns.isEmpty()) meta.put("namespace", ns);
            ControllerMetadata.add(kind, src.role(), object, meta);
            if (kind.equals("LeaderWorkerSet")) TemplateShapes.lwsEnv(pod, object, src.role());
            ControllerTemplates.Group g = src.group();
            out.add(new TemplatePod(src.role(), src.pointer(), src.replicas(), toPod(pod, mapper, kind),
                    g == null ? null : new Group(g.controller(), g.size(), g.groups(), g.from())));
        }
        return out;
    }

    private static Pod toPod(ObjectNode pod, ObjectMapper mapper, String kind) {
        try {
            return mapper.treeToValue(pod, Pod.class);
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage();
            throw new IllegalArgumentException((kind.equals("Pod") ? "not a Pod: " : "the " + kind + "'s pod template is not a pod spec: ")
                    + (m == null ? "unreadable" : m.lines().findFirst().orElse(m)));
        }
    }
}
