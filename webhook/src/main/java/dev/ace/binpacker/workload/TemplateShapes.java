package dev.ace.binpacker.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * A controller's template as a pod {@code {metadata, spec}}: a PodTemplateSpec as it is; a PodSpec
 * (KServe) wrapped; a KServe model or framework spec as the {@code kserve-container} KServe makes of
 * it; an Argo template's container, script or containerSet with the workflow's node constraints; a
 * TrainJob's trainer as the {@code node} container. Pure JSON work.
 */
final class TemplateShapes {
    private TemplateShapes() {}

    /** KServe predictor fields that are a single container spec (v1beta1 ModelSpec and the framework specs). */
    static final List<String> KSERVE_MODELS = List.of("model", "huggingface", "sklearn", "xgboost", "tensorflow", "pytorch", "triton",
            "onnx", "pmml", "lightgbm", "paddle");
    /** Fields of a model spec that are KServe's own, not a container's. */
    private static final Set<String> MODEL_ONLY = Set.of("modelFormat", "runtime", "storageUri", "storage", "protocolVersion");
    /** KServe component fields beside the inline PodSpec. */
    private static final Set<String> COMPONENT_ONLY = Set.of("minReplicas", "maxReplicas", "scaleTarget", "scaleMetric", "scaleMetricType",
            "containerConcurrency", "timeout", "canaryTrafficPercent", "logger", "batcher", "autoScaling", "deploymentStrategy",
            "workerSpec", "pipelineParallelSize", "tensorParallelSize", "labels", "annotations", "storageUris");
    /** Argo template fields that are node constraints of the pod. */
    private static final List<String> ARGO_POD_FIELDS = List.of("nodeSelector", "tolerations", "affinity", "priorityClassName",
            "schedulerName", "serviceAccountName", "securityContext", "hostNetwork");

    static ObjectNode podOf(ControllerTemplates.Source src, JsonNode object, ObjectMapper mapper) {
        JsonNode t = object.at(src.pointer());
        return switch (src.shape()) {
            case TEMPLATE -> (ObjectNode) t.deepCopy();
            case SPEC -> wrap(mapper, specOf(t), labelsOf(object, src), annotationsOf(object, src));
            case KSERVE_COMPONENT -> wrap(mapper, kserveComponent(t, mapper), object.at("/metadata/labels"), object.at("/metadata/annotations"));
            case ARGO_TEMPLATE -> argo(t, object, mapper);
            case TRAINER -> trainer(t, mapper);
        };
    }

    private static ObjectNode wrap(ObjectMapper mapper, ObjectNode spec, JsonNode labels, JsonNode annotations) {
        ObjectNode pod = mapper.createObjectNode();
        ObjectNode meta = pod.putObject("metadata");
        if (labels != null && labels.isObject()) meta.set("labels", labels.deepCopy());
        if (annotations != null && annotations.isObject()) {
            ObjectNode a = annotations.deepCopy();
            a.remove("kubectl.kubernetes.io/last-applied-configuration");
            if (!a.isEmpty()) meta.set("annotations", a);
        }
        pod.set("spec", spec);
        return pod;
    }

    private static ObjectNode specOf(JsonNode t) {
        ObjectNode spec = t.deepCopy();
        COMPONENT_ONLY.forEach(spec::remove);
        return spec;
    }

    /** LLMInferenceService: the workload's own labels and annotations go onto its pods. */
    private static JsonNode labelsOf(JsonNode object, ControllerTemplates.Source src) {
        return object.at(src.role().startsWith("prefill") ? "/spec/prefill/labels" : "/spec/labels");
    }

    private static JsonNode annotationsOf(JsonNode object, ControllerTemplates.Source src) {
        JsonNode own = object.at(src.role().startsWith("prefill") ? "/spec/prefill/annotations" : "/spec/annotations");
        return own.isObject() ? own : object.at("/metadata/annotations");
    }

    /** A KServe component: the inline PodSpec, with a model or framework spec turned into the kserve-container. */
    private static ObjectNode kserveComponent(JsonNode t, ObjectMapper mapper) {
        ObjectNode spec = specOf(t);
        for (String m : KSERVE_MODELS) {
            JsonNode model = spec.remove(m);
            if (model == null || !model.isObject()) continue;
            ObjectNode c = model.deepCopy();
            MODEL_ONLY.forEach(c::remove);
            c.put("name", "kserve-container");
            ArrayNode containers = spec.has("containers") && spec.get("containers").isArray() ? (ArrayNode) spec.get("containers") : spec.putArray("containers");
            containers.insert(0, c);
        }
        if (!spec.has("containers")) spec.putArray("containers");
        return spec;
    }

    /** An Argo template's pod: its main container (or containerSet) and sidecars, constraints from the template or the workflow. */
    private static ObjectNode argo(JsonNode t, JsonNode object, ObjectMapper mapper) {
        ObjectNode spec = mapper.createObjectNode();
        ArrayNode containers = spec.putArray("containers");
        if (t.path("container").isObject()) containers.add(named(t.path("container"), "main"));
        if (t.path("script").isObject()) {
            ObjectNode c = named(t.path("script"), "main");
            c.remove("source");
            containers.add(c);
        }
        if (t.path("containerSet").path("containers").isArray()) {
            for (JsonNode c : t.path("containerSet").path("containers")) {
                ObjectNode copy = c.deepCopy();
                copy.remove("dependencies");
                containers.add(copy);
            }
        }
        if (t.path("sidecars").isArray()) for (JsonNode c : t.path("sidecars")) containers.add(c.deepCopy());
        if (t.path("initContainers").isArray()) spec.set("initContainers", t.path("initContainers").deepCopy());
        JsonNode wf = object.at("/spec").has("templates") ? object.at("/spec") : object.at("/spec/workflowSpec");
        for (String f : ARGO_POD_FIELDS) {
            JsonNode v = t.has(f) ? t.get(f) : wf.get(f);
            if (v != null && !v.isNull()) spec.set(f, v.deepCopy());
        }
        ObjectNode pod = wrap(mapper, spec, t.at("/metadata/labels"), t.at("/metadata/annotations"));
        return pod;
    }

    private static ObjectNode named(JsonNode c, String name) {
        ObjectNode copy = c.deepCopy();
        if (!copy.hasNonNull("name")) copy.put("name", name);
        return copy;
    }

    /** A TrainJob's trainer as the node container Trainer runs it in (its image may come from the runtime). */
    private static ObjectNode trainer(JsonNode t, ObjectMapper mapper) {
        ObjectNode spec = mapper.createObjectNode();
        ObjectNode c = spec.putArray("containers").addObject();
        c.put("name", "node");
        for (String f : List.of("image", "command", "args", "env")) if (t.has(f)) c.set(f, t.get(f).deepCopy());
        if (t.path("resourcesPerNode").isObject()) c.set("resources", t.get("resourcesPerNode").deepCopy());
        return wrap(mapper, spec, null, null);
    }

    /**
     * The environment the LeaderWorkerSet controller gives every pod of a group (LWS_LEADER_ADDRESS,
     * LWS_GROUP_SIZE, LWS_WORKER_INDEX, LWS_NAME), so {@code --nnodes $(LWS_GROUP_SIZE)} reads as the kubelet will expand it.
     */
    static void lwsEnv(ObjectNode pod, JsonNode lws, String role) {
        String name = lws.at("/metadata/name").asText("lws");
        String size = Integer.toString(Math.max(1, lws.at("/spec/leaderWorkerTemplate/size").asInt(1)));
        String ns = lws.at("/metadata/namespace").asText("default");
        JsonNode containers = pod.at("/spec/containers");
        if (!containers.isArray()) return;
        for (JsonNode c : containers) {
            if (!c.isObject()) continue;
            ObjectNode co = (ObjectNode) c;
            ArrayNode env = co.has("env") && co.get("env").isArray() ? (ArrayNode) co.get("env") : co.putArray("env");
            add(env, "LWS_LEADER_ADDRESS", name + "-0." + name + "." + ns);
            add(env, "LWS_GROUP_SIZE", size);
            add(env, "LWS_WORKER_INDEX", role.equals("leader") ? "0" : "1");
            add(env, "LWS_NAME", name);
        }
    }

    private static void add(ArrayNode env, String name, String value) {
        for (JsonNode e : env) if (name.equals(e.path("name").asText())) return;
        env.addObject().put("name", name).put("value", value);
    }
}
