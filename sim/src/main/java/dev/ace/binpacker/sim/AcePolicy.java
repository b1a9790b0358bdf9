package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.BatchPlacement;
import dev.ace.binpacker.placement.BatchRule;
import dev.ace.binpacker.placement.Earmarks;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * ACE itself: the production {@link Allocator} (packer + ledger under one lock) on the run's
 * cluster state. GPU pods become {@link PlacementRequest}s exactly as the webhook builds them
 * (TP 1: the trace declares no tensor parallelism); the GPU model constraint becomes a required
 * node-affinity term on the model label.
 *
 * <p>CPU-only pods are outside the engine's contract (a placement needs a GPU, and the webhook never
 * sees a pod without one: kube-scheduler places them). In the simulator they go to the feasible node
 * with the best FGD score of the run's target workload, the measure the {@code fgd} row places them by
 * ({@link CpuOnlyRule#FGD_SCORE}, since issue 20's CPU lists), or, in the variant {@code ace-cpu-engine},
 * where the engine's own {@link dev.ace.binpacker.placement.FragmentationScorer} says their CPU fragments
 * the least (the rule before); either way equal scores go to the node whose GPUs are fullest, so they do
 * not eat CPU next to free GPUs. They are recorded through the allocator's ledger like any reservation.
 */
final class AcePolicy implements Policy {
    private final SimContext c;
    private final Allocator allocator;
    private final PackerConfig config;
    private final Map<String, NodeConstraints> bySpec = new HashMap<>();

    /** Where multi-GPU batch pods go: the webhook's rule ({@link BatchPlacement}), its defaults unless a variant says otherwise. */
    private BatchRule batch = BatchRule.defaults();

    /** How CPU-only pods, which the webhook never sees, are placed in the simulator. */
    enum CpuOnlyRule {
        /**
         * FGD's integer score on the run's target workload (CPU-only shapes and the 95 % coverage of the
         * {@code fgd} row): CPU-only pods land where the compared scheduler's measure puts them, so the rows
         * differ in what ACE decides, the GPU pods. 0.51 above the engine's rule on {@code cpu250} (seeds 1-5),
         * within 0.03 on every other list.
         */
        FGD_SCORE,
        /** The engine's learned target (GPU requests only, every shape) and coarse cost: the rule before. */
        ENGINE
    }

    private CpuOnlyRule cpuOnly = CpuOnlyRule.FGD_SCORE;

    /** This policy with another rule for CPU-only pods (a variant row). */
    AcePolicy withCpuOnly(CpuOnlyRule rule) {
        this.cpuOnly = rule;
        return this;
    }

    /** False for the variant that offers TP replicas the inference pool first, then the general pool (before issue 10). */
    private final boolean webhookPools;

    AcePolicy(SimContext c, Supplier<PackerConfig> config) { this(c, config, true); }

    AcePolicy(SimContext c, Supplier<PackerConfig> config, boolean webhookPools) {
        this(c, config, webhookPools, Allocator.DEFAULT_EARMARKS);
    }

    /** {@code earmarks}: how a TP replica that waits holds the node closest to a free clique ({@link Earmarks}). */
    AcePolicy(SimContext c, Supplier<PackerConfig> config, boolean webhookPools, Earmarks.Rule earmarks) {
        this(c, config, webhookPools, earmarks, STARVATION_BOUND_MILLIS);
    }

    /**
     * {@code starvationBoundMillis}: how long the oldest waiting TP replica waits before its earmarked node takes no
     * other pod ({@link Earmarks#starving}; {@link Earmarks#NO_BOUND}: never, the {@code ace-no-bound} row).
     */
    AcePolicy(SimContext c, Supplier<PackerConfig> config, boolean webhookPools, Earmarks.Rule earmarks, long starvationBoundMillis) {
        this.webhookPools = webhookPools;
        this.c = c;
        this.config = config.get();
        this.allocator = new Allocator(c.state(), this.config, dev.ace.binpacker.placement.ReservationStore.IN_MEMORY, earmarks,
                starvationBoundMillis);
    }

    /**
     * The webhook's default starvation bound ({@code ace.queue.starvation-bound}, 5m in webhook's AceConfig and
     * docs/webhook.md): every ACE row but {@code ace-no-bound} runs it, as the webhook does.
     */
    static final long STARVATION_BOUND_MILLIS = 5 * 60_000L;

    /** The simulated time of the decisions that follow, in millis (protocol B's clock): what the starvation bound measures. */
    private long nowMillis;

    @Override
    public void clock(double seconds) {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) throw new IllegalArgumentException("simulated time must be finite and not negative: " + seconds);
        this.nowMillis = Math.round(seconds * 1000);
    }

    @Override
    public boolean place(SimPod pod, String id) {
        return place(pod, id, 1, List.of(Pool.GENERAL));
    }

    /**
     * {@code pools} is the protocol's suggestion; a TP replica instead gets the pools the webhook
     * offers ({@link dev.ace.binpacker.placement.Packer#inferencePools}), so protocol B measures what
     * the webhook does.
     */
    @Override
    public boolean place(SimPod pod, String id, int tp, List<Pool> pools) {
        if (pod.cpuOnly()) return placeCpuOnly(pod, id);
        if (tp >= 2 && webhookPools) pools = allocator.read(a -> a.packer().inferencePools(pod.numGpu(), NodeConstraints.NONE));
        PlacementRequest r = new PlacementRequest(id, WorkloadClass.UNKNOWN, pod.numGpu(), pod.milli(), tp,
                pools, constraints(pod.spec()), pod.cpuMilli(), null).needing(memoryOf(pod));
        // a TP replica that does not fit waits (protocol B's queue, the webhook's scheduling gate) under its pod's id
        String waiter = r.wantsClique() ? id : null;
        Allocator.Outcome o = allocator.place(r, false, nowMillis, waiter);
        if (!o.placed()) {
            // waiting since now; a replica already waiting keeps its first time (Allocator.awaiting)
            if (waiter != null) allocator.awaiting(waiter, r, nowMillis);
            return false;
        }
        took(id, o.reservation().node(), pod.memMib());
        return true;
    }

    /** The pod's memory as a request the engine checks, when the run enforces memory; nothing otherwise. */
    private dev.ace.binpacker.placement.Resources memoryOf(SimPod pod) {
        return c.cluster().enforcesMemory() ? SimCluster.memory(pod.memMib()) : dev.ace.binpacker.placement.Resources.NONE;
    }

    /**
     * A pod placed: its memory is booked on its node and, when the run enforces memory, told to the engine as the
     * node's bound requests (the pod no longer pinned apart), as the webhook's view tells it of bound pods.
     */
    private void took(String id, String node, long mib) {
        int i = c.state().indexOf(node);
        c.memory().take(id, i, mib);
        if (!c.cluster().enforcesMemory()) return;
        if (c.memory().used(i) > c.cluster().memCap(i)) throw new IllegalStateException("ACE placed " + id + " beyond " + node + "'s memory");
        allocator.requested(node, SimCluster.memory(c.memory().used(i)), java.util.Set.of(id));
    }

    /** This policy with another batch-pool rule (a variant row). */
    AcePolicy withBatch(BatchRule rule) {
        this.batch = rule;
        return this;
    }

    /**
     * A multi-GPU batch pod goes where the webhook's batch-pool rule sends it ({@link BatchPlacement}, the code
     * {@code admission.BackgroundPolicy} runs), not where the protocol suggests; {@code tpWaiting} is the queue of
     * waiting TP replicas, as the webhook's gated queue counts it.
     */
    @Override
    public boolean placeBatch(SimPod pod, String id, List<Pool> pools, int tpWaiting) {
        NodeConstraints own = constraints(pod.spec());
        BatchPlacement.Ask ask = new BatchPlacement.Ask(id, WorkloadClass.BATCH, pod.numGpu(), Reservation.Owner.NONE,
                memoryOf(pod), p -> own, tpWaiting);
        BatchPlacement.Choice choice = allocator.read(a -> BatchPlacement.trial(a, batch, ask, nowMillis));
        if (!(choice instanceof BatchPlacement.Placed t)) return false;
        java.util.Optional<Allocator.Outcome> o = BatchPlacement.commit(allocator, batch, t, nowMillis);
        if (o.isEmpty()) return false;
        took(id, o.get().reservation().node(), pod.memMib());
        return true;
    }

    @Override
    public void release(String id) {
        allocator.release(id);
        int i = c.memory().giveBack(id);
        if (i >= 0 && c.cluster().enforcesMemory()) {
            allocator.requested(c.state().node(i).name(), SimCluster.memory(c.memory().used(i)), java.util.Set.of());
        }
    }

    @Override
    public java.util.Optional<Reservation> reservation(String id) { return allocator.reservation(id); }

    private NodeConstraints constraints(String spec) {
        if (spec.isEmpty()) return NodeConstraints.NONE;
        return bySpec.computeIfAbsent(spec, AcePolicy::modelConstraint);
    }

    /** A trace's GPU model list ({@code V100M16|V100M32}) as the required node affinity the webhook would read. */
    static NodeConstraints modelConstraint(String spec) {
        return new NodeConstraints(Map.of(),
                List.of(List.of(new LabelRequirement(SimCluster.MODEL_LABEL, "In", new ArrayList<>(List.of(spec.split("\\|")))))),
                List.of());
    }

    private boolean placeCpuOnly(SimPod pod, String id) {
        var s = c.state();
        int best = -1;
        long bestFree = Long.MAX_VALUE;
        double bestCost = Double.MAX_VALUE;
        var frag = config.fragmentation();
        for (int i = 0; i < c.cluster().size(); i++) {
            if (s.cpuFree(i) < pod.cpuMilli()) continue;
            if (!c.cluster().memoryFits(i, c.memory().used(i), pod.memMib())) continue;
            double cost = cpuOnly == CpuOnlyRule.FGD_SCORE
                    ? -FgdPolicy.cpuOnlyScore(c, i, pod.cpuMilli()) // FGD's highest score, as the lowest cost
                    : frag == null ? 0 : frag.cost(frag.delta(s, i, 0, 0, pod.cpuMilli()));
            long free = 0;
            for (int g = 0; g < c.cluster().gpus(i); g++) free += s.milliFree(i, g);
            if (cost < bestCost - 1e-9 || (Math.abs(cost - bestCost) <= 1e-9 && free < bestFree)) {
                bestCost = cost; bestFree = free; best = i;
            }
        }
        if (best < 0) return false;
        var o = allocator.adopt(new Reservation(id, s.node(best).name(), 0, 1000, pod.cpuMilli(), 1, null, 0, false));
        if (o != dev.ace.binpacker.placement.Ledger.Outcome.RESERVED) throw new IllegalStateException("CPU reservation refused: " + o);
        took(id, s.node(best).name(), pod.memMib());
        return true;
    }
}
