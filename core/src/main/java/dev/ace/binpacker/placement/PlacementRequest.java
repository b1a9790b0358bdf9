package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Objects;

/**
 * What a pod needs from the packer.
 *
 * @param id          reservation id to use if placed
 * @param gpus        GPUs wanted (>= 1)
 * @param milliPerGpu 1000 for whole GPUs; 1..999 for a share of one GPU (gpus must then be 1)
 * @param tp          tensor-parallel degree; >= 2 demands that the GPUs form an NVLink clique when the allowed nodes have one
 * @param pools       pools the pod may use, in order of preference (never empty)
 * @param constraints the pod's own nodeSelector, affinity and tolerations
 * @param cpuMilli    CPU the pod needs, 0 when not tracked
 * @param gpuModel    GPU product the pod is pinned to, null for any
 * @param owner       whom a reservation made for this request belongs to ({@link Reservation.Owner#NONE} in trace replay)
 * @param needs       what the pod requests besides whole GPUs (cpu, memory, rdma/roce_gdr...), checked against each
 *                    node's allocatable minus what is in use there ({@link ClusterState#shortOf}); NONE for nothing
 */
public record PlacementRequest(String id, WorkloadClass workloadClass, int gpus, int milliPerGpu, int tp,
                               List<Pool> pools, NodeConstraints constraints, long cpuMilli, String gpuModel,
                               Reservation.Owner owner, Resources needs) {
    public PlacementRequest {
        needs = needs == null ? Resources.NONE : needs;
        Objects.requireNonNull(id, "id");
        workloadClass = workloadClass == null ? WorkloadClass.UNKNOWN : workloadClass;
        if (gpus < 1) throw new IllegalArgumentException("a placement needs at least one GPU, got " + gpus);
        if (milliPerGpu < 1 || milliPerGpu > 1000) throw new IllegalArgumentException("milliPerGpu must be 1..1000, got " + milliPerGpu);
        if (milliPerGpu < 1000 && gpus != 1) throw new IllegalArgumentException("a GPU share is one GPU, got " + gpus);
        if (tp < 1) throw new IllegalArgumentException("tp must be >= 1, got " + tp);
        pools = pools == null || pools.isEmpty() ? List.of(Pool.values()) : List.copyOf(pools);
        constraints = constraints == null ? NodeConstraints.NONE : constraints;
        owner = owner == null ? Reservation.Owner.NONE : owner;
    }

    /** A request that checks nothing but GPUs (and CPU when tracked). */
    public PlacementRequest(String id, WorkloadClass workloadClass, int gpus, int milliPerGpu, int tp,
                            List<Pool> pools, NodeConstraints constraints, long cpuMilli, String gpuModel,
                            Reservation.Owner owner) {
        this(id, workloadClass, gpus, milliPerGpu, tp, pools, constraints, cpuMilli, gpuModel, owner, Resources.NONE);
    }

    /** A request with no recorded owner (trace replay, probes). */
    public PlacementRequest(String id, WorkloadClass workloadClass, int gpus, int milliPerGpu, int tp,
                            List<Pool> pools, NodeConstraints constraints, long cpuMilli, String gpuModel) {
        this(id, workloadClass, gpus, milliPerGpu, tp, pools, constraints, cpuMilli, gpuModel, Reservation.Owner.NONE);
    }

    /** The same request on behalf of {@code owner}. */
    public PlacementRequest ownedBy(Reservation.Owner o) {
        return new PlacementRequest(id, workloadClass, gpus, milliPerGpu, tp, pools, constraints, cpuMilli, gpuModel, o, needs);
    }

    /** The same request, also needing {@code r} besides its GPUs. */
    public PlacementRequest needing(Resources r) {
        return new PlacementRequest(id, workloadClass, gpus, milliPerGpu, tp, pools, constraints, cpuMilli, gpuModel, owner, r);
    }

    /** Whole GPUs that must be pairwise NVLinked where the allowed nodes can offer that. */
    public boolean wantsClique() { return tp >= 2 && milliPerGpu == 1000; }

    public boolean isShare() { return milliPerGpu < 1000; }

    /** A whole-GPU request of {@code gpus} GPUs, TP {@code tp}, in the given pools. */
    public static PlacementRequest whole(String id, WorkloadClass c, int gpus, int tp, List<Pool> pools, NodeConstraints constraints) {
        return new PlacementRequest(id, c, gpus, 1000, tp, pools, constraints, 0, null);
    }
}
