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
    /** Kinds with pod templates, by kind: the API group ("" would be core). */
    public static final Map<String, String> KINDS = Map.of("Deployment", "apps", "StatefulSet", "apps", "ReplicaSet", "apps",
            "Job", "batch", "CronJob", "batch", "LeaderWorkerSet", "leaderworkerset.x-k8s.io");
    static final String LWS_PREFIX = "leaderworkerset.sigs.k8s.io/";

    private WorkloadPods() {}

    /**
     * One pod as a controller would create it.
     *
     * @param role     {@code pod} for a Pod itself, {@code template}, or {@code leader} / {@code worker} of a LeaderWorkerSet
     * @param template JSON pointer of the pod template inside the object ({@code ""} for a Pod)
     * @param replicas pods created from this template ({@code spec.replicas}, {@code parallelism}, group size), at least 1
     */
    public record TemplatePod(String role, String template, int replicas, Pod pod) {}

    /** Is {@code kind} a workload whose pod templates ACE judges (Pods excluded)? */
    public static boolean isWorkload(String kind) { return KINDS.containsKey(kind); }

    /** The pod templates of a workload object as JSON, by pointer: what an UPDATE must change for ACE to judge again. */
    public static Map<String, JsonNode> templates(JsonNode object) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (String p : pointers(object.path("kind").asText(""), object)) out.put(p, object.at(p));
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
        List<String> pointers = pointers(kind, object);
        if (pointers.isEmpty()) throw new IllegalArgumentException("a " + kind + " without a pod template at " + expected(kind));
        List<TemplatePod> out = new ArrayList<>();
        for (String p : pointers) {
            String role = kind.equals("LeaderWorkerSet") ? (p.endsWith("leaderTemplate") ? "leader" : "worker") : "template";
            JsonNode t = object.at(p);
            if (!t.isObject()) throw new IllegalArgumentException(kind + " " + p + " is not a pod template");
            ObjectNode pod = t.deepCopy();
            pod.put("apiVersion", "v1");
            pod.put("kind", "Pod");
            ObjectNode meta = pod.has("metadata") && pod.get("metadata").isObject() ? (ObjectNode) pod.get("metadata") : pod.putObject("metadata");
            String ns = object.at("/metadata/namespace").asText("");
            if (!ns.isEmpty()) meta.put("namespace", ns);
            ControllerMetadata.add(kind, role, object, meta);
            out.add(new TemplatePod(role, p, replicas(kind, role, object), toPod(pod, mapper, kind)));
        }
        return out;
    }

    private static List<String> pointers(String kind, JsonNode o) {
        List<String> out = new ArrayList<>();
        switch (kind) {
            case "CronJob" -> add(out, o, "/spec/jobTemplate/spec/template");
            case "LeaderWorkerSet" -> {
                add(out, o, "/spec/leaderWorkerTemplate/leaderTemplate");
                add(out, o, "/spec/leaderWorkerTemplate/workerTemplate");
            }
            case "Deployment", "StatefulSet", "ReplicaSet", "Job" -> add(out, o, "/spec/template");
            default -> { }
        }
        return out;
    }

    private static void add(List<String> out, JsonNode o, String pointer) {
        if (!o.at(pointer).isMissingNode() && !o.at(pointer).isNull()) out.add(pointer);
    }

    private static String expected(String kind) {
        return switch (kind) {
            case "CronJob" -> "spec.jobTemplate.spec.template";
            case "LeaderWorkerSet" -> "spec.leaderWorkerTemplate.workerTemplate";
            default -> "spec.template";
        };
    }

    private static int replicas(String kind, String role, JsonNode o) {
        int n = switch (kind) {
            case "Job" -> o.at("/spec/parallelism").asInt(1);
            case "CronJob" -> o.at("/spec/jobTemplate/spec/parallelism").asInt(1);
            // Without a leaderTemplate the leader is made from the worker template too.
            case "LeaderWorkerSet" -> o.at("/spec/replicas").asInt(1) * (role.equals("leader") ? 1
                    : Math.max(1, o.at("/spec/leaderWorkerTemplate/size").asInt(1) - (o.at("/spec/leaderWorkerTemplate/leaderTemplate").isObject() ? 1 : 0)));
            default -> o.at("/spec/replicas").asInt(1);
        };
        return Math.max(1, n);
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
