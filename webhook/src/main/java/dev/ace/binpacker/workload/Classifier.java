package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.WorkloadClass;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Pod -> {@link Classification}. Conservative (DESIGN "Classification is conservative"): explicit
 * label, then owner kind, notebook signs, embedding servers, LLM servers; anything else is UNKNOWN.
 * Pure over the fabric8 model: no I/O, no clock.
 */
public final class Classifier {
    static final Set<String> TP_FLAGS = Set.of("--tensor-parallel-size", "--tensor_parallel_size", "-tp", "--tp",
            "--tp-size", "--tp_size", "--num-shard", "--num_shard");
    static final Set<String> NNODES_FLAGS = Set.of("--nnodes", "--num-nodes", "--num_nodes", "--nnodes_per_replica");
    static final List<String> TP_ENV = List.of("NUM_SHARD", "TENSOR_PARALLEL_SIZE", "TP_SIZE");
    private static final Set<String> EMBED_TASKS = Set.of("embed", "embedding", "score", "classify", "reward");

    private Classifier() {}

    public static Classification classify(Pod pod) throws InvalidPodException {
        GpuCount count = GpuCount.of(pod);
        List<String> notes = new ArrayList<>();
        Map<String, String> labels = labels(pod);
        Map<String, String> annotations = annotations(pod);
        List<CommandLine> lines = commandLines(pod);
        if (lines.stream().anyMatch(CommandLine::truncated) || lines.size() == MAX_CONTAINERS) {
            notes.add("command line longer than ACE reads (" + CommandLine.MAX_CHARS / 1024 + " KiB, " + CommandLine.MAX_TOKENS
                    + " words per container); the rest is not evidence");
        }

        WorkloadClass cls;
        String kind;
        String evidence;
        Optional<WorkloadClass> explicit = WorkloadClass.fromLabel(labels.get(AceKeys.WORKLOAD_CLASS));
        if (labels.containsKey(AceKeys.WORKLOAD_CLASS) && explicit.isEmpty()) {
            notes.add("label " + AceKeys.WORKLOAD_CLASS + "=" + Clip.of(labels.get(AceKeys.WORKLOAD_CLASS)) + " is not a class; ignored");
        }
        String owner = batchOwner(pod, labels);
        if (explicit.isPresent()) {
            cls = explicit.get();
            kind = isEmbedding(lines) || server(lines) != null ? "server" : cls.label();
            evidence = "label " + AceKeys.WORKLOAD_CLASS;
        } else if (owner != null) {
            cls = WorkloadClass.BATCH;
            kind = batchKind(lines);
            evidence = "owner " + owner;
        } else if (servingController(labels) != null) {
            // KServe's controllers make only serving pods; their image may come from a runtime or config ACE does not read.
            cls = WorkloadClass.INFERENCE;
            kind = isEmbedding(lines) ? "embedding-server" : "server";
            evidence = servingController(labels) + (server(lines) != null ? ", LLM server " + server(lines) : "");
        } else if (isNotebook(labels, lines)) {
            cls = WorkloadClass.INTERACTIVE;
            kind = "notebook";
            evidence = "notebook labels/image";
        } else if (isEmbedding(lines)) {
            cls = WorkloadClass.EMBEDDING;
            kind = "server";
            evidence = "embedding server " + server(lines);
        } else if (server(lines) != null) {
            cls = WorkloadClass.INFERENCE;
            kind = "server";
            evidence = "LLM server " + server(lines);
        } else {
            cls = WorkloadClass.UNKNOWN;
            kind = "pod";
            evidence = "no label, owner, notebook sign or known server";
        }

        int nnodes = 1;
        for (CommandLine l : lines) {
            OptionalInt n = l.intFlag(NNODES_FLAGS);
            if (n.isPresent() && n.getAsInt() > nnodes) nnodes = n.getAsInt();
        }
        int tp = tensorParallel(annotations, lines, count.effective(), nnodes, notes);
        if (nnodes > 1 && cls == WorkloadClass.UNKNOWN && server(lines) != null) cls = WorkloadClass.INFERENCE;
        if (nnodes > 1 && cls == WorkloadClass.INFERENCE) kind = "rank";
        long memory = gpuMemoryMiB(annotations);
        if (count.alreadySliced() && count.effective() > 0) {
            notes.add("asks for GPU slices and " + count.effective() + " whole GPUs; the whole GPUs follow the usual rules");
        }
        return new Classification(cls, kind, evidence, count.effective(), tp, nnodes, memory, count.alreadySliced(),
                owner != null, notes);
    }

    /** TP of this pod's GPUs: the annotation, else flags/env, else the GPU count for a single-node group. */
    private static int tensorParallel(Map<String, String> annotations, List<CommandLine> lines, int gpus, int nnodes,
                                      List<String> notes) throws InvalidPodException {
        String a = annotations.get(AceKeys.TENSOR_PARALLEL);
        if (a != null) {
            try {
                int v = Integer.parseInt(a.trim());
                if (v >= 1 && v <= GpuCount.MAX_GPUS_PER_POD) return v;
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
            throw new InvalidPodException("metadata.annotations[\"" + AceKeys.TENSOR_PARALLEL + "\"]",
                    "'" + Clip.of(a) + "' is not a tensor-parallel degree (1.." + GpuCount.MAX_GPUS_PER_POD + ")");
        }
        OptionalInt flag = OptionalInt.empty();
        for (CommandLine l : lines) {
            OptionalInt f = l.intFlag(TP_FLAGS);
            if (f.isPresent()) flag = f;
            for (String env : TP_ENV) {
                if (flag.isEmpty() && l.env(env) != null) {
                    try {
                        flag = OptionalInt.of(Integer.parseInt(l.env(env).trim()));
                    } catch (NumberFormatException e) {
                        // a templated value is not evidence
                    }
                }
            }
        }
        if (flag.isEmpty()) return Math.max(1, gpus);
        int tp = flag.getAsInt();
        if (nnodes > 1) {
            // --tp 2 --nnodes 2: the group's TP is split across pods; this pod holds its own GPUs whole.
            return Math.max(1, gpus);
        }
        if (gpus > 0 && tp != gpus) {
            notes.add("TP " + tp + " but " + gpus + " GPUs requested; kept the " + gpus + " GPUs together");
            return Math.max(1, gpus);
        }
        return Math.max(1, tp);
    }

    private static long gpuMemoryMiB(Map<String, String> annotations) throws InvalidPodException {
        String v = annotations.get(AceKeys.GPU_MEMORY);
        if (v == null) return 0;
        String field = "metadata.annotations[\"" + AceKeys.GPU_MEMORY + "\"]";
        try {
            BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(v.trim()));
            if (bytes.signum() <= 0) throw new InvalidPodException(field, "'" + Clip.of(v) + "' must be a positive memory size such as 12Gi");
            return bytes.divide(BigDecimal.valueOf(1024L * 1024L), java.math.RoundingMode.CEILING).longValueExact();
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new InvalidPodException(field, "'" + Clip.of(v) + "' is not a memory size such as 12Gi");
        }
    }

    /**
     * The batch controller that owns the pod, or null. Job and CronJob, and the ecosystem's training and batch
     * controllers, which create pods themselves or through Jobs: a label may move such a pod between classes, never
     * past the shape rules of batch work ({@link Classification#identifiedServer}).
     */
    private static String batchOwner(Pod pod, Map<String, String> labels) {
        // KubeRay labels the pods of a RayService's clusters ray.io/serve (its serve Service selects them): serving,
        // not batch, though a RayCluster owns them as it owns a RayJob's. Their command line decides their class.
        boolean rayServing = labels.containsKey(RAY_SERVE_LABEL);
        if (pod.getMetadata() != null && pod.getMetadata().getOwnerReferences() != null) {
            for (OwnerReference o : pod.getMetadata().getOwnerReferences()) {
                String kind = o.getKind() == null ? "" : o.getKind();
                String group = o.getApiVersion() == null ? "" : o.getApiVersion().split("/", 2)[0];
                if ("Job".equals(kind) || "CronJob".equals(kind)) return kind;
                if (rayServing && "ray.io".equals(group) && "RayCluster".equals(kind)) continue;
                if (BATCH_GROUPS.contains(group) && BATCH_KINDS.contains(kind)) return kind + " (" + group + ")";
            }
        }
        if (labels.containsKey("batch.kubernetes.io/job-name") || labels.containsKey("job-name")) return "Job";
        for (String key : BATCH_LABELS) {
            if (rayServing && key.equals(RAY_CLUSTER_LABEL)) continue;
            if (labels.containsKey(key)) return "label " + key;
        }
        return null;
    }

    /** The label KubeRay puts on the pods of a RayService's Ray clusters. */
    static final String RAY_SERVE_LABEL = "ray.io/serve";
    /** The label KubeRay puts on every pod of a Ray cluster. */
    static final String RAY_CLUSTER_LABEL = "ray.io/cluster";

    /** API groups of the training and batch controllers whose pods are batch work (issue 17). */
    static final Set<String> BATCH_GROUPS = Set.of("kubeflow.org", "trainer.kubeflow.org", "ray.io", "argoproj.io",
            "jobset.x-k8s.io", "batch.volcano.sh", "flow.volcano.sh");
    /** Kinds of those groups that own pods (or the Jobs that own them). */
    static final Set<String> BATCH_KINDS = Set.of("PyTorchJob", "MPIJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob",
            "MXJob", "TrainJob", "RayJob", "RayCluster", "Workflow", "CronWorkflow", "WorkflowTemplate", "JobSet", "Job",
            "JobFlow");
    /** Labels those controllers put on every pod they create (a tenant may add one: it only makes the pod batch). */
    static final List<String> BATCH_LABELS = List.of("training.kubeflow.org/job-name", "trainer.kubeflow.org/trainjob-ancestor-step", "jobset.sigs.k8s.io/jobset-name",
            RAY_CLUSTER_LABEL, "workflows.argoproj.io/workflow", "volcano.sh/job-name");

    /** The serving controller whose labels the pod carries (KServe InferenceService, LLMInferenceService), or null. */
    static String servingController(Map<String, String> labels) {
        if (labels.containsKey("serving.kserve.io/inferenceservice")) return "KServe InferenceService";
        if ("llminferenceservice".equals(labels.get("app.kubernetes.io/part-of"))) return "KServe LLMInferenceService";
        return null;
    }

    private static boolean isNotebook(Map<String, String> labels, List<CommandLine> lines) {
        if (labels.containsKey("notebook-name") || "singleuser-server".equals(labels.get("component"))) return true;
        String app = labels.getOrDefault("app", "") + labels.getOrDefault("app.kubernetes.io/name", "");
        if (app.contains("jupyter") || app.contains("notebook")) return true;
        for (CommandLine l : lines) {
            if (l.image().contains("jupyter") || l.image().contains("notebook") || l.hasToken("jupyter")
                    || l.hasToken("jupyterhub-singleuser") || l.hasToken("start-notebook.sh")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isEmbedding(List<CommandLine> lines) {
        for (CommandLine l : lines) {
            if (l.image().contains("text-embeddings-inference") || l.image().contains("infinity")
                    || l.hasToken("text-embeddings-router") || l.hasToken("infinity_emb")
                    || l.hasToken("--is-embedding")) {
                return true;
            }
            String task = l.flagValue("--task");
            if (task != null && EMBED_TASKS.contains(task)) return true;
            if ("pooling".equals(l.flagValue("--runner"))) return true;
        }
        return false;
    }

    /** The LLM server a pod runs, or null. */
    static String server(List<CommandLine> lines) {
        for (CommandLine l : lines) {
            if (l.image().contains("text-embeddings-inference") || l.hasToken("text-embeddings-router")) return "text-embeddings-inference";
            if (l.image().contains("infinity") || l.hasToken("infinity_emb")) return "infinity";
            if (l.mentions("sglang")) return "sglang";
            if (l.mentions("tensorrt-llm", "tensorrt_llm", "tensorrtllm", "trtllm")) return "tensorrt-llm";
            if (l.mentions("tritonserver")) return "triton";
            if (l.mentions("text-generation-inference", "text-generation-launcher")) return "tgi";
            if (l.mentions("vllm")) return "vllm";
        }
        return null;
    }

    private static String batchKind(List<CommandLine> lines) {
        for (CommandLine l : lines) {
            if (l.mentions("lm_eval", "lm-eval", "lighteval", "evaluate", "eval")) return "evaluation";
            if (l.mentions("quantiz", "quantis", "gptq", "awq", "llmcompressor", "llm-compressor")) return "quantisation";
        }
        return "job";
    }

    /** Containers whose command lines are read (issue 17: the classifier's work is bounded whatever the pod). */
    static final int MAX_CONTAINERS = 64;

    private static List<CommandLine> commandLines(Pod pod) {
        List<CommandLine> out = new ArrayList<>();
        if (pod.getSpec() == null) return out;
        if (pod.getSpec().getContainers() != null) {
            for (Container c : pod.getSpec().getContainers()) {
                if (out.size() == MAX_CONTAINERS) break;
                out.add(CommandLine.of(EnvExpansion.expand(c)));
            }
        }
        return out;
    }

    static Map<String, String> labels(Pod pod) {
        return pod.getMetadata() == null || pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    }

    static Map<String, String> annotations(Pod pod) {
        return pod.getMetadata() == null || pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    }
}
