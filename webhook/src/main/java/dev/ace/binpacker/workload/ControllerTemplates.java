package dev.ace.binpacker.workload;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Where each controller kind keeps its pod templates, and how many pods it makes of each: the field
 * paths of the real CRDs (docs/workloads.md). Pure: reads the object, builds nothing.
 */
final class ControllerTemplates {
    private ControllerTemplates() {}

    /** How the JSON at a pointer describes a pod. */
    enum Shape {
        /** {@code {metadata, spec}}, a PodTemplateSpec. */
        TEMPLATE,
        /** A PodSpec (KServe, LLMInferenceService: fields of the controller's own may sit beside it). */
        SPEC,
        /** A KServe component: a PodSpec inline, or a model/framework spec that is one container. */
        KSERVE_COMPONENT,
        /** An Argo Workflows template: container, script or containerSet, with its own node constraints. */
        ARGO_TEMPLATE,
        /** A Kubeflow Trainer TrainJob's {@code spec.trainer}: image, command, resources per node. */
        TRAINER
    }

    /**
     * Pods of one replica of a multi-pod group: the ranks a controller starts together.
     *
     * @param controller "LeaderWorkerSet", "LLMInferenceService"... whose group this is
     * @param size       pods per group
     * @param groups     groups the object asks for
     * @param from       the field the size comes from
     */
    record Group(String controller, int size, int groups, String from) {}

    /**
     * @param role     leader, worker, head, predictor, Master, the replicated job's name...
     * @param pointer  JSON pointer of the template
     * @param replicas pods made from it in all
     * @param group    the group its pods belong to, null when each pod stands alone
     */
    record Source(String role, String pointer, Shape shape, int replicas, Group group) {}

    static List<Source> of(String kind, JsonNode o) {
        List<Source> out = new ArrayList<>();
        switch (kind) {
            case "Deployment", "StatefulSet", "ReplicaSet" -> template(out, o, "template", "/spec/template", o.at("/spec/replicas").asInt(1), null);
            case "Job" -> template(out, o, "template", "/spec/template", o.at("/spec/parallelism").asInt(1), null);
            case "CronJob" -> template(out, o, "template", "/spec/jobTemplate/spec/template", o.at("/spec/jobTemplate/spec/parallelism").asInt(1), null);
            case "LeaderWorkerSet" -> lws(out, o);
            case "InferenceService" -> inferenceService(out, o);
            case "LLMInferenceService" -> llmInferenceService(out, o);
            case "RayCluster" -> ray(out, o, "/spec");
            case "RayService" -> ray(out, o, "/spec/rayClusterConfig");
            case "RayJob" -> ray(out, o, "/spec/rayClusterSpec");
            case "JobSet" -> replicatedJobs(out, o, "/spec/replicatedJobs", "JobSet");
            case "TrainingRuntime", "ClusterTrainingRuntime" -> replicatedJobs(out, o, "/spec/template/spec/replicatedJobs", kind);
            case "TrainJob" -> {
                int nodes = Math.max(1, o.at("/spec/trainer/numNodes").asInt(1));
                if (o.at("/spec/trainer").isObject()) {
                    out.add(new Source("trainer", "/spec/trainer", Shape.TRAINER, nodes,
                            nodes > 1 ? new Group("TrainJob", nodes, 1, "spec.trainer.numNodes") : null));
                }
            }
            case "Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate" -> argo(out, o, "/spec/templates");
            case "CronWorkflow" -> argo(out, o, "/spec/workflowSpec/templates");
            default -> {
                if (WorkloadPods.TRAINING_OPERATOR.containsKey(kind)) trainingOperator(out, o, "/spec/" + WorkloadPods.TRAINING_OPERATOR.get(kind));
            }
        }
        return out;
    }

    /** Where a user should look when a kind's template is missing. */
    static String expected(String kind) {
        return switch (kind) {
            case "CronJob" -> "spec.jobTemplate.spec.template";
            case "LeaderWorkerSet" -> "spec.leaderWorkerTemplate.workerTemplate";
            case "InferenceService" -> "spec.predictor";
            case "LLMInferenceService" -> "spec.template";
            case "RayCluster" -> "spec.headGroupSpec.template";
            case "RayService" -> "spec.rayClusterConfig.headGroupSpec.template";
            case "RayJob" -> "spec.rayClusterSpec.headGroupSpec.template";
            case "JobSet" -> "spec.replicatedJobs[].template.spec.template";
            case "TrainingRuntime", "ClusterTrainingRuntime" -> "spec.template.spec.replicatedJobs[].template.spec.template";
            case "TrainJob" -> "spec.trainer";
            case "Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate" -> "spec.templates[].container";
            case "CronWorkflow" -> "spec.workflowSpec.templates[].container";
            default -> WorkloadPods.TRAINING_OPERATOR.containsKey(kind) ? "spec." + WorkloadPods.TRAINING_OPERATOR.get(kind) + ".<role>.template"
                    : "spec.template";
        };
    }

    private static void lws(List<Source> out, JsonNode o) {
        int size = Math.max(1, o.at("/spec/leaderWorkerTemplate/size").asInt(1));
        int groups = Math.max(1, o.at("/spec/replicas").asInt(1));
        Group g = size > 1 ? new Group("LeaderWorkerSet", size, groups, "spec.leaderWorkerTemplate.size") : null;
        boolean leader = present(o, "/spec/leaderWorkerTemplate/leaderTemplate");
        // Without a leaderTemplate the leader is made from the worker template too.
        if (leader) out.add(new Source("leader", "/spec/leaderWorkerTemplate/leaderTemplate", Shape.TEMPLATE, groups, g));
        if (present(o, "/spec/leaderWorkerTemplate/workerTemplate")) {
            int workers = leader ? size - 1 : size;
            if (workers > 0) out.add(new Source("worker", "/spec/leaderWorkerTemplate/workerTemplate", Shape.TEMPLATE, groups * workers, g));
        }
    }

    /** KServe v1beta1: predictor, transformer, explainer; a predictor's workerSpec makes a multi-node group. */
    private static void inferenceService(List<Source> out, JsonNode o) {
        for (String c : List.of("predictor", "transformer", "explainer")) {
            String p = "/spec/" + c;
            if (!o.at(p).isObject()) continue;
            int replicas = Math.max(1, o.at(p + "/minReplicas").asInt(1));
            JsonNode worker = o.at(p + "/workerSpec");
            Group g = null;
            if (worker.isObject()) {
                int nodes = Math.max(1, worker.path("pipelineParallelSize").asInt(2));
                g = new Group("InferenceService", nodes, replicas, "spec.predictor.workerSpec.pipelineParallelSize");
            }
            out.add(new Source(c, p, Shape.KSERVE_COMPONENT, replicas, g));
            if (g != null && g.size() > 1) out.add(new Source("worker", p + "/workerSpec", Shape.SPEC, replicas * (g.size() - 1), g));
        }
    }

    /** KServe LLMInferenceService: template and worker, and the same under prefill; the group size is kserve's GetSize. */
    private static void llmInferenceService(List<Source> out, JsonNode o) {
        for (String base : List.of("", "/prefill")) {
            JsonNode w = base.isEmpty() ? o.at("/spec") : o.at("/spec/prefill");
            if (!w.isObject()) continue;
            int replicas = Math.max(1, w.path("replicas").asInt(1));
            String role = base.isEmpty() ? "decode" : "prefill";
            boolean multi = w.path("worker").isObject();
            Group g = null;
            if (multi) {
                JsonNode par = w.path("parallelism");
                int size;
                String from;
                if (par.path("data").asInt(0) > 0 || par.path("dataLocal").asInt(0) > 0) {
                    size = Math.max(1, Math.max(1, par.path("data").asInt(1)) / Math.max(1, par.path("dataLocal").asInt(1)));
                    from = "parallelism.data / parallelism.dataLocal";
                } else {
                    size = Math.max(1, par.path("pipeline").asInt(1));
                    from = "parallelism.pipeline";
                }
                g = new Group("LLMInferenceService", size, replicas, "spec" + base.replace('/', '.') + "." + from);
            }
            if (w.path("template").isObject()) out.add(new Source(role + (multi ? " leader" : ""), "/spec" + base + "/template", Shape.SPEC, replicas, g));
            if (multi && g.size() > 1) out.add(new Source(role + " worker", "/spec" + base + "/worker", Shape.SPEC, replicas * (g.size() - 1), g));
        }
    }

    /** KubeRay: the head pod and every worker group ({@code replicas} x {@code numOfHosts} pods). */
    private static void ray(List<Source> out, JsonNode o, String cluster) {
        template(out, o, "head", cluster + "/headGroupSpec/template", 1, null);
        JsonNode groups = o.at(cluster + "/workerGroupSpecs");
        if (!groups.isArray()) return;
        for (int i = 0; i < groups.size(); i++) {
            JsonNode g = groups.get(i);
            int replicas = Math.max(0, g.path("replicas").asInt(g.path("minReplicas").asInt(1)));
            int hosts = Math.max(1, g.path("numOfHosts").asInt(1));
            if (replicas == 0) replicas = 1; // judged as if scaled up: an autoscaled group starts at zero
            Group multi = hosts > 1 ? new Group("RayCluster worker group", hosts, replicas, "numOfHosts") : null;
            template(out, o, "worker group " + g.path("groupName").asText(Integer.toString(i)), cluster + "/workerGroupSpecs/" + i + "/template",
                    replicas * hosts, multi);
        }
    }

    /** JobSet (and Trainer runtimes, whose template is a JobSet): each replicated job's pods. */
    private static void replicatedJobs(List<Source> out, JsonNode o, String pointer, String controller) {
        JsonNode jobs = o.at(pointer);
        if (!jobs.isArray()) return;
        for (int i = 0; i < jobs.size(); i++) {
            JsonNode j = jobs.get(i);
            int replicas = Math.max(1, j.path("replicas").asInt(1));
            int parallelism = Math.max(1, j.at("/template/spec/parallelism").asInt(1));
            Group g = parallelism > 1 || replicas > 1 ? new Group(controller + " replicated job", parallelism, replicas,
                    "replicatedJobs[" + i + "].template.spec.parallelism") : null;
            template(out, o, j.path("name").asText("job-" + i), pointer + "/" + i + "/template/spec/template", replicas * parallelism, g);
        }
    }

    /** Kubeflow training operator: {@code spec.<kind>ReplicaSpecs.<role>.template}, {@code replicas} each. */
    private static void trainingOperator(List<Source> out, JsonNode o, String pointer) {
        JsonNode specs = o.at(pointer);
        if (!specs.isObject()) return;
        int total = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = specs.fields(); it.hasNext(); ) total += Math.max(1, it.next().getValue().path("replicas").asInt(1));
        Group g = total > 1 ? new Group(o.path("kind").asText(), total, 1, pointer.substring(1).replace('/', '.') + ".*.replicas") : null;
        for (Iterator<Map.Entry<String, JsonNode>> it = specs.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            template(out, o, e.getKey(), pointer + "/" + e.getKey() + "/template", Math.max(1, e.getValue().path("replicas").asInt(1)), g);
        }
    }

    /** Argo Workflows: every template that runs a pod (container, script, containerSet). */
    private static void argo(List<Source> out, JsonNode o, String pointer) {
        JsonNode ts = o.at(pointer);
        if (!ts.isArray()) return;
        for (int i = 0; i < ts.size(); i++) {
            JsonNode t = ts.get(i);
            if (t.path("container").isObject() || t.path("script").isObject() || t.path("containerSet").isObject()) {
                out.add(new Source("template " + t.path("name").asText(Integer.toString(i)), pointer + "/" + i, Shape.ARGO_TEMPLATE, 1, null));
            }
        }
    }

    private static void template(List<Source> out, JsonNode o, String role, String pointer, int replicas, Group g) {
        if (present(o, pointer)) out.add(new Source(role, pointer, Shape.TEMPLATE, Math.max(1, replicas), g));
    }

    private static boolean present(JsonNode o, String pointer) {
        return !o.at(pointer).isMissingNode() && !o.at(pointer).isNull();
    }
}
