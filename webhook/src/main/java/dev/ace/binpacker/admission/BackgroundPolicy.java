package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.BatchPlacement;
import dev.ace.binpacker.placement.BatchRule;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.PodConstraints;
import dev.ace.binpacker.workload.PodRequests;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Small and background work: 1-GPU embedding, evaluation, quantisation and notebook pods go to the
 * slicing pool with the resource its nodes offer; multi-GPU batch and interactive pods may use the
 * inference pool only as whole aligned cliques while the reserve of free 8-cliques lasts.
 */
final class BackgroundPolicy {
    private final PodPolicy policy;
    private final PolicyConfig config;
    private final SlicingOffers slicingOffers = new SlicingOffers();

    BackgroundPolicy(PodPolicy policy, PolicyConfig config) {
        this.policy = policy;
        this.config = config;
    }

    Decision slice(AdmissionRequest req, Classification c, dev.ace.binpacker.workload.NodeNeeds needs, List<String> warnings) {
        NodeConstraints constraints = needs.constraints();
        String bound = PodConstraints.boundNode(req.pod());
        if (bound != null) {
            warnings.add("spec.nodeName binds this pod to " + bound + "; ACE does not move it to pool slicing");
            return Decision.untouched(c.workloadClass(), "bound by spec.nodeName to " + bound + ": " + PodPolicy.describe(c), warnings);
        }
        Allocator a = policy.allocator();
        Set<SlicingOffer> offers = a.read(al -> slicingOffers.of(al.state(), constraints));
        long need = c.gpuMemoryMiB() > 0 ? c.gpuMemoryMiB() : defaultNeed(c.workloadClass());
        Optional<SlicingOffer> offer = SlicingOffer.choose(offers, need);
        if (offer.isEmpty()) {
            if (c.workloadClass() != WorkloadClass.EMBEDDING) {
                Optional<Decision> pinned = pinnedToFlagship(c, constraints, warnings);
                if (pinned.isPresent()) return pinned.get();
            }
            warnings.add(needs.image().isPresent() ? "no slicing-pool node has " + needs.image().get().family() + "; left as is"
                    : "no slicing-pool node this pod allows offers a GPU; left as is");
            return Decision.untouched(c.workloadClass(), "no slicing node for " + PodPolicy.describe(c), warnings);
        }
        SlicingOffer o = offer.get();
        Pod m = policy.copy(req.pod());
        PodEdits.selectPool(m, Pool.SLICING.label());
        // The scheduler picks the slicing node: an image built for one GPU architecture is kept to it on the pod itself.
        needs.image().ifPresent(arch -> PodEdits.requireOneOf(m, arch.alternatives()));
        PodEdits.tolerate(m, config.slicingTaintKey());
        PodEdits.replaceGpuResource(m, o.resource());
        if (!o.resource().equals(AceKeys.GPU)) PodEdits.annotate(m, AceKeys.REWRITTEN_FROM, AceKeys.GPU + "=1");
        String size = need > 0 ? "needs " + need / 1024 + "Gi" : "needs a whole GPU";
        String text = "moved to pool slicing as " + o.resource() + " for " + c.what()
                + " (" + size + (c.gpuMemoryMiB() > 0 ? ", from " + AceKeys.GPU_MEMORY : "") + ")";
        PodEdits.annotate(m, AceKeys.DECISION, text);
        return Decision.sliced(c.workloadClass(), m, text, warnings);
    }

    private long defaultNeed(WorkloadClass c) {
        return switch (c) {
            case EMBEDDING -> config.embeddingMemoryMiB();
            case INTERACTIVE -> config.interactiveMemoryMiB();
            default -> config.batchWholeGpu() ? 0 : config.embeddingMemoryMiB();
        };
    }

    /** A 1-GPU background pod whose own selector allows only flagship nodes would break an NVLink domain. */
    private Optional<Decision> pinnedToFlagship(Classification c, NodeConstraints constraints, List<String> warnings) {
        return policy.allocator().read(al -> {
            List<NodeInfo> all = FleetView.allowed(al.state(), null, constraints, true);
            if (all.isEmpty() || all.stream().anyMatch(n -> n.pool() != Pool.INFERENCE)) return Optional.empty();
            int domain = FleetView.domainSize(all);
            return Optional.of(Decision.deny(c.workloadClass(), "1 GPU " + c.what()
                    + " selects only inference-pool nodes, whose GPUs form " + domain + "-GPU NVLink domains; drop the node"
                    + " selector so ACE can run it on pool slicing, or label it " + AceKeys.WORKLOAD_CLASS + "=inference",
                    warnings, Why.Rule.FRACTURING));
        });
    }

    /**
     * A trial placement that passed every check, or the decision that ends the request.
     *
     * @param pool       the pool of the placement (on pool inference the reserve of free 8-cliques is checked again at commit)
     * @param protecting why pool inference was not used, for the decision text of a placement elsewhere
     */
    private record Trial(Decision decision, BatchPlacement.Placed placed, String who, String protecting) {
        static Trial end(Decision d, String who) { return new Trial(d, null, who, null); }

        Pool pool() { return placed.pool(); }
    }

    Decision multiGpu(AdmissionRequest req, Classification c, NodeConstraints constraints, List<String> warnings,
                      boolean commit, long now) {
        Allocator a = policy.allocator();
        int tpWaiting = policy.pending() == null ? 0 : policy.pending().waitingForCliques();
        Trial t = a.read(al -> check(al, req, c, constraints, warnings, now, tpWaiting));
        if (t.decision() != null) return t.decision();
        Allocator.Outcome o = t.placed().outcome();
        if (commit) {
            // Reserved outside the allocator lock (with several replicas the commit is an API round trip); another
            // admission may have raced us, so the reserve is checked again on what was really taken.
            Optional<Allocator.Outcome> done = BatchPlacement.commit(a, config.batch(), t.placed(), now);
            if (done.isEmpty()) {
                return Decision.deny(c.workloadClass(), t.who() + " lost a race for the last free GPUs it could use; retry later",
                        warnings, Why.Rule.RESERVE);
            }
            o = done.get();
            Optional<Decision> capped = policy.overCap(req, o, c, warnings, now);
            if (capped.isPresent()) return capped.get();
        }
        PlacementResult.Placed placed = (PlacementResult.Placed) o.result();
        Pod m = policy.copy(req.pod());
        if (PodConstraints.boundNode(req.pod()) == null) PodEdits.pinToNode(m, placed.node());
        if (t.pool() == Pool.SLICING) PodEdits.tolerate(m, config.slicingTaintKey());
        PodEdits.annotate(m, AceKeys.RESERVATION, ReservationJson.write(policy.mapper(), o.reservation()));
        String text = t.pool() == Pool.INFERENCE
                ? "reserved aligned " + PodPolicy.promise(a, placed).text() + " for " + t.who()
                        + "; " + t.placed().free8After() + " free 8-GPU NVLink domains left"
                : "reserved " + PodPolicy.promise(a, placed).text() + " in pool " + t.pool().label() + " ("
                        + (placed.gpus().length > 1 && placed.fullBandwidth() ? "NVLink " + placed.domain() : "no NVLink between them")
                        + ") for " + t.who() + "; pool inference kept whole: " + t.protecting();
        PodEdits.annotate(m, AceKeys.DECISION, text);
        return Decision.placed(c.workloadClass(), m, text, warnings, commit ? o.reservation() : null);
    }

    /**
     * Under the allocator lock: the batch-pool rule ({@link BatchPlacement}, the simulator's too) picks the pool, in
     * the configured order; a refusal says why pool inference, the last pool tried, did not take the pod.
     */
    private Trial check(Allocator al, AdmissionRequest req, Classification c, NodeConstraints constraints, List<String> warnings,
                        long now, int tpWaiting) {
        int domain = FleetView.domainSize(al, Pool.INFERENCE, constraints);
        if (domain == 0) {
            return Trial.end(Decision.untouched(c.workloadClass(), "not on the inference pool", warnings), null);
        }
        int gpus = c.gpus();
        String who = gpus + " GPUs " + c.what();
        BatchRule rule = config.batch();
        BatchPlacement.Ask ask = new BatchPlacement.Ask(Reservation.newId(), c.workloadClass(), gpus, PodPolicy.owner(req),
                PodRequests.besidesGpus(req.pod()), pool -> onPool(pool, c, constraints), tpWaiting);
        BatchPlacement.Choice choice = BatchPlacement.trial(al, rule, ask, now);
        boolean misaligned = !BatchPlacement.aligned(gpus, domain);
        if (choice instanceof BatchPlacement.Placed p) {
            String protecting = misaligned ? "it would fracture the " + domain + "-GPU NVLink domains"
                    : "pools are tried in the order " + rule.orderText() + " (" + AceKeys.CONFIG_BATCH_POOLS + ")";
            return new Trial(null, p, who, protecting);
        }
        BatchPlacement.Refused r = (BatchPlacement.Refused) choice;
        String refusal = switch (r.why()) {
            case MISALIGNED -> who + " would fracture the " + domain + "-GPU NVLink domains of pool inference; request "
                    + Shapes.aligned(domain) + " GPUs (an aligned block) or 1 GPU for pool slicing" + Shapes.labelNote(c);
            case TP_WAITING -> who + ": " + tpWaiting + " TP replica" + (tpWaiting == 1 ? " waits" : "s wait")
                    + " for an NVLink clique, and pool inference takes no batch work meanwhile (" + AceKeys.CONFIG_BATCH_YIELDS
                    + "); no room on pools " + rule.orderText() + " now; retry later";
            case NO_BLOCK -> who + ": no free aligned block of " + gpus + " GPUs on pool inference (" + r.detail() + "); retry later";
            case RESERVE -> who + " would leave " + r.free8After() + " free 8-GPU NVLink domains on pool inference, below the reserve of "
                    + rule.reserveFree8Cliques() + " kept for TP 8; retry later" + Shapes.labelNote(c);
            case NOT_OFFERED -> who + ": no room on pools " + rule.orderText() + " now, and pool inference takes no such pods ("
                    + AceKeys.CONFIG_BATCH_POOLS + "); retry later";
        };
        Why why = switch (r.why()) {
            case MISALIGNED -> OtherPools.couldHold(al.state(), constraints, gpus) ? Why.Rule.NO_FREE_GPUS : Why.Rule.FRACTURING;
            case TP_WAITING -> Why.Rule.TP_WAITING;
            case NO_BLOCK -> new Why.Placement(ReasonCode.NO_FREE_CLIQUE);
            case RESERVE -> Why.Rule.RESERVE;
            case NOT_OFFERED -> Why.Rule.NO_FREE_GPUS;
        };
        String accepted = OtherPools.acceptedNow(al, req.uid(), c.workloadClass(), constraints, rule, tpWaiting, now);
        return Trial.end(Decision.deny(c.workloadClass(), refusal + "; accepted now: " + accepted, warnings, why), who);
    }

    /**
     * The pod's constraints as they apply on {@code pool}, null where it may not be sent: pool slicing only for work
     * that belongs there (batch, interactive, embedding; never an unclassified pod or one that says it serves, which
     * ACE does not move), with the slicing taint tolerated and only on nodes that offer whole GPUs (no MIG, no MPS).
     */
    private NodeConstraints onPool(Pool pool, Classification c, NodeConstraints constraints) {
        if (pool != Pool.SLICING) return constraints;
        if (c.workloadClass() == WorkloadClass.UNKNOWN || c.workloadClass() == WorkloadClass.INFERENCE) return null;
        return OtherPools.wholeGpuSlicing(constraints, config.slicingTaintKey());
    }
}
