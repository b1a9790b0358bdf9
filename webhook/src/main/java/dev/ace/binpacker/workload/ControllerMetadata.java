package dev.ace.binpacker.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.keys.AceKeys;

/**
 * The metadata a controller puts on the pods it creates: the owner reference, the identifying
 * labels and the name (or generateName). Values that exist only at run time (hashes, UIDs) get a
 * stable placeholder; classification reads the owner kind and labels, never those values.
 */
final class ControllerMetadata {
    private ControllerMetadata() {}

    static void add(String kind, String role, JsonNode object, ObjectNode meta) {
        String name = object.at("/metadata/name").asText("");
        String base = name.isEmpty() ? kind.toLowerCase(java.util.Locale.ROOT) : name;
        ObjectNode labels = meta.has("labels") && meta.get("labels").isObject() ? (ObjectNode) meta.get("labels") : meta.putObject("labels");
        meta.remove("name");
        switch (kind) {
            case "Deployment" -> {
                labels.put("pod-template-hash", "template");
                owner(meta, "apps/v1", "ReplicaSet", base + "-template");
                meta.put("generateName", base + "-template-");
            }
            case "ReplicaSet" -> {
                owner(meta, "apps/v1", "ReplicaSet", base);
                meta.put("generateName", base + "-");
            }
            case "StatefulSet" -> {
                labels.put("statefulset.kubernetes.io/pod-name", base + "-0");
                labels.put("apps.kubernetes.io/pod-index", "0");
                owner(meta, "apps/v1", "StatefulSet", base);
                meta.put("name", base + "-0");
            }
            case "Job", "CronJob" -> {
                // A CronJob's pods belong to the Job it creates, named <cronjob>-<scheduled minute>.
                String job = kind.equals("CronJob") ? base + "-scheduled" : base;
                labels.put("batch.kubernetes.io/job-name", job);
                labels.put("job-name", job);
                owner(meta, "batch/v1", "Job", job);
                meta.put("generateName", job + "-");
            }
            case "LeaderWorkerSet" -> {
                boolean leader = role.equals("leader");
                labels.put(AceKeys.LWS_PREFIX + "name", base);
                labels.put(AceKeys.LWS_PREFIX + "group-index", "0");
                labels.put(AceKeys.LWS_PREFIX + "worker-index", leader ? "0" : "1");
                // The leader StatefulSet is named after the set; each group's workers get <name>-<group>.
                owner(meta, "apps/v1", "StatefulSet", leader ? base : base + "-0");
                // LWS writes the group size on every pod it creates; ACE's group resolver reads it there.
                ObjectNode annotations = meta.has("annotations") && meta.get("annotations").isObject()
                        ? (ObjectNode) meta.get("annotations") : meta.putObject("annotations");
                annotations.put(AceKeys.LWS_PREFIX + "size", Integer.toString(object.at("/spec/leaderWorkerTemplate/size").asInt(1)));
                // ... and the set's exclusive-topology annotation (one topology domain per group), copied onto its pods.
                JsonNode exclusive = object.at("/metadata/annotations").path(AceKeys.LWS_PREFIX + "exclusive-topology");
                if (exclusive.isTextual() && !exclusive.asText().isBlank()) annotations.put(AceKeys.LWS_PREFIX + "exclusive-topology", exclusive.asText());
                meta.put("name", leader ? base + "-0" : base + "-0-1");
            }
            case "InferenceService" -> {
                // KServe's raw deployment mode: a Deployment per component, so a ReplicaSet owns the pods.
                labels.put("serving.kserve.io/inferenceservice", base);
                labels.put("component", role.equals("worker") ? "predictor-worker" : role);
                owner(meta, "apps/v1", "ReplicaSet", base + "-" + role + "-template");
                meta.put("generateName", base + "-" + role + "-");
            }
            case "LLMInferenceService" -> {
                boolean prefill = role.startsWith("prefill");
                boolean multi = role.endsWith("leader") || role.endsWith("worker");
                labels.put("app.kubernetes.io/part-of", "llminferenceservice");
                labels.put("app.kubernetes.io/name", base);
                labels.put("app.kubernetes.io/component", "llminferenceservice-workload" + (prefill ? "-prefill" : "")
                        + (multi ? "-" + (role.endsWith("leader") ? "leader" : "worker") : ""));
                // Single-node workloads are Deployments; multi-node ones LeaderWorkerSets (StatefulSets own the pods).
                String w = base + "-kserve" + (prefill ? "-prefill" : "") + (multi ? "-mn" : "");
                if (multi) owner(meta, "apps/v1", "StatefulSet", w);
                else owner(meta, "apps/v1", "ReplicaSet", w + "-template");
                meta.put("generateName", w + "-");
            }
            case "RayCluster", "RayService", "RayJob" -> {
                boolean head = role.equals("head");
                labels.put("ray.io/cluster", base);
                labels.put("ray.io/node-type", head ? "head" : "worker");
                labels.put("ray.io/group", head ? "headgroup" : role.replace("worker group ", ""));
                if (kind.equals("RayService")) labels.put(Classifier.RAY_SERVE_LABEL, "true"); // as KubeRay does for serving clusters
                owner(meta, "ray.io/v1", "RayCluster", base);
                meta.put("generateName", base + (head ? "-head-" : "-" + role.replace("worker group ", "") + "-worker-"));
            }
            case "JobSet", "TrainJob", "TrainingRuntime", "ClusterTrainingRuntime" -> {
                // JobSet (also under Kubeflow Trainer) runs each replicated job as Jobs: a Job owns the pods.
                String rj = kind.equals("TrainJob") ? "node" : role;
                String job = base + "-" + rj + "-0";
                labels.put("jobset.sigs.k8s.io/jobset-name", base);
                labels.put("jobset.sigs.k8s.io/replicatedjob-name", rj);
                labels.put("batch.kubernetes.io/job-name", job);
                labels.put("job-name", job);
                if (!kind.equals("JobSet")) labels.put("trainer.kubeflow.org/trainjob-ancestor-step", "trainer");
                owner(meta, "batch/v1", "Job", job);
                meta.put("generateName", job + "-");
            }
            case "Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow" -> {
                labels.put("workflows.argoproj.io/workflow", base);
                owner(meta, "argoproj.io/v1alpha1", "Workflow", base);
                meta.put("generateName", base + "-");
            }
            default -> {
                if (!WorkloadPods.TRAINING_OPERATOR.containsKey(kind)) throw new IllegalArgumentException(kind + " has no pod template");
                labels.put("training.kubeflow.org/job-name", base);
                labels.put("training.kubeflow.org/replica-type", role.toLowerCase(java.util.Locale.ROOT));
                labels.put("training.kubeflow.org/replica-index", "0");
                owner(meta, "kubeflow.org/v1", kind, base);
                meta.put("name", base + "-" + role.toLowerCase(java.util.Locale.ROOT) + "-0");
            }
        }
    }

    private static void owner(ObjectNode meta, String apiVersion, String kind, String name) {
        meta.remove("ownerReferences");
        meta.putArray("ownerReferences").addObject().put("apiVersion", apiVersion).put("kind", kind).put("name", name)
                .put("uid", "00000000-0000-0000-0000-000000000000").put("controller", true).put("blockOwnerDeletion", true);
    }
}
