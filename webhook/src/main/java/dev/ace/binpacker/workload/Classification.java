package dev.ace.binpacker.workload;

import dev.ace.binpacker.placement.WorkloadClass;
import java.util.List;

/**
 * What a pod is, as far as placement cares.
 *
 * @param workloadClass  the class (UNKNOWN when nothing gave it away)
 * @param kind           a finer human word: server, embedding-server, evaluation, quantisation, notebook, job, rank...
 * @param evidence       why: "label", "image vllm/vllm-openai", "owner Job", ...
 * @param gpus           whole GPUs the pod asks for (effective count)
 * @param tp             tensor-parallel degree of this pod's GPUs (1 when none)
 * @param nnodes         nodes the TP group spans (1 unless a multi-node rank)
 * @param gpuMemoryMiB   the {@code ace.dev/gpu-memory} annotation in MiB, 0 when absent
 * @param alreadySliced  the pod also asks for a MIG or MPS resource (informational: slices never excuse whole GPUs)
 * @param batchOwned     a batch controller owns the pod (Job, CronJob, Kubeflow, Ray, Argo, JobSet, Volcano; or its label), whatever its class label says:
 *                       a label changes the class, never the shapes a batch job may take
 * @param notes          things a user should hear about (wrong TP flags, assumptions), each short
 */
public record Classification(WorkloadClass workloadClass, String kind, String evidence, int gpus, int tp, int nnodes,
                             long gpuMemoryMiB, boolean alreadySliced, boolean batchOwned, List<String> notes) {
    public Classification {
        notes = List.copyOf(notes);
    }

    /** Class and kind in words, "batch job" or "evaluation"; once when the kind only repeats the class ("batch", not "batch batch"). */
    public String what() {
        return kind.equals(workloadClass.label()) ? kind : workloadClass.label() + " " + kind;
    }

    /**
     * An inference or embedding server ACE identified (by its label, image or flags) that no batch controller owns: the
     * only pods that may take the reserve of free 8-cliques or a lone GPU of a clean clique. Every other pod with whole
     * GPUs, UNKNOWN included, obeys the shape rules of batch work (DESIGN "Classification is conservative").
     */
    public boolean identifiedServer() {
        return !batchOwned && (workloadClass == WorkloadClass.INFERENCE || workloadClass == WorkloadClass.EMBEDDING);
    }

    /** A rank of a TP group that spans several nodes (one or a few GPUs per pod). */
    public boolean multiNodeRank() { return nnodes > 1; }
}
