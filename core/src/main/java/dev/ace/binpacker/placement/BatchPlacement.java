package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The batch-pool rule ({@link BatchRule}, issue 20), one code path for the webhook's multi-GPU batch admission and the
 * simulator's {@code ace} rows: the pools are tried in the rule's order and the first that holds the pod wins; pool
 * inference takes it only as an aligned clique, only while the reserve of free 8-cliques survives it and (when the
 * rule yields) while no TP replica waits for a clique. A tenant cannot buy its way past this with labels: a node
 * selector or a workload-class label narrows the pools tried, it never skips the checks of pool inference.
 */
public final class BatchPlacement {
    private BatchPlacement() {}

    /** Why pool inference did not take the pod (when no pool before it could either). */
    public enum Refusal {
        /** Not in the rule's order, or the pod allows no node of pool inference. */
        NOT_OFFERED,
        /** Not an aligned block (a power of two no larger than the boards' cliques): it would fracture a domain. */
        MISALIGNED,
        /** TP replicas wait for a clique and the rule yields to them. */
        TP_WAITING,
        /** No free aligned block of its size there now. */
        NO_BLOCK,
        /** It would leave fewer free 8-cliques than the reserve. */
        RESERVE
    }

    /**
     * One pod to place.
     *
     * @param constraints the pod's own constraints as they apply on each pool; null for a pool it may not be sent to
     *                    (the caller adds what the pool needs, such as the slicing taint's toleration, or refuses it)
     * @param tpWaiting   TP replicas waiting for a clique now (the webhook's gated queue, the simulator's queue)
     */
    public record Ask(String id, WorkloadClass workloadClass, int gpus, Reservation.Owner owner, Resources needs,
                      Function<Pool, NodeConstraints> constraints, int tpWaiting) {}

    /** What the rule chose: a trial placement on one pool, or why pool inference, the last hope, refused. */
    public sealed interface Choice permits Placed, Refused {}

    /** A trial (nothing reserved) on {@code pool}; {@code free8After} is meaningful on pool inference. */
    public record Placed(Pool pool, PlacementRequest request, Allocator.Outcome outcome, int free8After) implements Choice {}

    /**
     * No pool in the order held it; {@code why} pool inference did not. {@code domain}: the largest clique of the
     * pool inference nodes the pod allows (0: none); {@code detail}: the packer's message for {@link Refusal#NO_BLOCK}.
     */
    public record Refused(Refusal why, int domain, int free8After, String detail) implements Choice {}

    /** Tries the pools in order, reserving nothing. Call under the allocator lock ({@link Allocator#read}). */
    public static Choice trial(Allocator al, BatchRule rule, Ask ask, long now) {
        Refused inference = new Refused(Refusal.NOT_OFFERED, 0, 0, "");
        for (Pool pool : rule.order()) {
            NodeConstraints c = ask.constraints().apply(pool);
            if (c == null) continue;
            if (pool == Pool.INFERENCE) {
                Choice ch = onInference(al, rule, ask, c, now);
                if (ch instanceof Placed) return ch;
                inference = (Refused) ch;
            } else {
                Optional<Placed> p = elsewhere(al, pool, ask, c, now);
                if (p.isPresent()) return p.get();
            }
        }
        return inference;
    }

    /**
     * Reserves what {@link #trial} chose. Empty when the GPUs went to another admission meanwhile, or, on pool
     * inference, when the GPUs the packer now picks would leave fewer free 8-cliques than the reserve: that check is
     * the allocator's {@link Allocator.Check}, judged on the decision under the same lock hold before anything is
     * reserved, so nothing is reserved and given back.
     */
    public static Optional<Allocator.Outcome> commit(Allocator a, BatchRule rule, Placed t, long now) {
        Allocator.Checked<Refusal> c = a.place(t.request(), false, now, (al, p) -> t.pool() == Pool.INFERENCE
                && free8CliquesAfter(al.state(), p, al.packer().freeCliques(Pool.INFERENCE, 8)) < rule.reserveFree8Cliques()
                ? Optional.of(Refusal.RESERVE) : Optional.empty());
        if (c.veto().isPresent() || !c.outcome().placed()) return Optional.empty();
        return Optional.of(c.outcome());
    }

    /** An aligned clique on pool inference, if the rule lets it have one now. */
    private static Choice onInference(Allocator al, BatchRule rule, Ask ask, NodeConstraints c, long now) {
        int domain = al.packer().largestClique(Pool.INFERENCE, c);
        int gpus = ask.gpus();
        if (domain == 0) return new Refused(Refusal.NOT_OFFERED, 0, 0, "");
        if (!aligned(gpus, domain)) return new Refused(Refusal.MISALIGNED, domain, 0, "");
        int before = al.packer().freeCliques(Pool.INFERENCE, 8);
        if (rule.yieldToWaitingTp() && ask.tpWaiting() > 0) return new Refused(Refusal.TP_WAITING, domain, before, "");
        PlacementRequest pr = request(ask, gpus, Pool.INFERENCE, c);
        Allocator.Outcome trial = al.place(pr, true, now);
        if (!(trial.result() instanceof PlacementResult.Placed p)) {
            return new Refused(Refusal.NO_BLOCK, domain, before, ((PlacementResult.Unschedulable) trial.result()).message());
        }
        int after = free8CliquesAfter(al.state(), p, before);
        if (after < rule.reserveFree8Cliques()) return new Refused(Refusal.RESERVE, domain, after, "");
        return new Placed(Pool.INFERENCE, pr, trial, after);
    }

    /**
     * An NVLink clique of the pod's size where a free one exists (a 2-GPU job on a bridged pair), else the least
     * damaging GPUs of one node: data-parallel batch work does not need NVLink.
     */
    private static Optional<Placed> elsewhere(Allocator al, Pool pool, Ask ask, NodeConstraints c, long now) {
        for (int tp : ask.gpus() > 1 ? new int[] {ask.gpus(), 1} : new int[] {1}) {
            PlacementRequest pr = request(ask, tp, pool, c);
            Allocator.Outcome o = al.place(pr, true, now);
            if (o.placed()) return Optional.of(new Placed(pool, pr, o, 0));
        }
        return Optional.empty();
    }

    private static PlacementRequest request(Ask ask, int tp, Pool pool, NodeConstraints c) {
        return PlacementRequest.whole(ask.id(), ask.workloadClass(), ask.gpus(), tp, List.of(pool), c).ownedBy(ask.owner()).needing(ask.needs());
    }

    /** True when {@code gpus} is an aligned block of boards whose NVLink domains are {@code domain} GPUs: a power of two that fits. */
    public static boolean aligned(int gpus, int domain) { return Integer.bitCount(gpus) == 1 && gpus <= domain; }

    /** Free 8-cliques on pool inference once {@code p} is taken, given {@code before} free now. */
    public static int free8CliquesAfter(ClusterState s, PlacementResult.Placed p, int before) {
        int idx = s.indexOf(p.node());
        NodeInfo n = s.node(idx);
        if (n.pool() != Pool.INFERENCE) return before;
        long free = s.freeMask(idx);
        return before - PoolStats.freeCliques(n, free, 8) + PoolStats.freeCliques(n, free & ~p.gpuMask(), 8);
    }
}
