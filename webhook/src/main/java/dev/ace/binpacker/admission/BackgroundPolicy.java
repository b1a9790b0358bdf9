package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.BatchPlacement;
import dev.ace.binpacker.placement.BatchRule;
import dev.ace.binpacker.placement.NodeConstraints;
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

    /**
     * A 1-GPU background pod (embedding, batch, interactive): moved to pool slicing when it may go there. A pod that is
     * not moved stays where it says, and is then decided by every GPU node it can really reach as it is
     * ({@link FleetView#reach}: each nodeSelectorTerm, the nodeSelector, {@code spec.nodeName}, its tolerations),
     * not by the first rule that matches: left untouched only when none of them is a node of pool inference;
     * otherwise placed by the batch-pool rule (reserved and pinned, on pool inference only in a used NVLink domain),
     * or denied with what to request.
     */
    Decision slice(AdmissionRequest req, Classification c, dev.ace.binpacker.workload.NodeNeeds needs, List<String> warnings,
                   boolean commit, long now) {
        NodeConstraints constraints = needs.constraints();
        String bound = PodConstraints.boundNode(req.pod());
        Allocator a = policy.allocator();
        if (bound == null) {
            Set<SlicingOffer> offers = a.read(al -> slicingOffers.of(al.state(), constraints));
            long need = c.gpuMemoryMiB() > 0 ? c.gpuMemoryMiB() : defaultNeed(c.workloadClass());
            Optional<SlicingOffer> offer = SlicingOffer.choose(offers, need);
            if (offer.isPresent()) return sliced(req, c, needs, offer.get(), need, warnings);
        }
        FleetView.Reach reach = a.read(al -> FleetView.reach(al.state(), req.pod()));
        if (!reach.inference()) {
            if (bound != null) {
                warnings.add("spec.nodeName binds this pod to " + bound + "; ACE does not move it to pool slicing");
                return Decision.untouched(c.workloadClass(), "bound by spec.nodeName to " + bound + ": " + PodPolicy.describe(c), warnings);
            }
            warnings.add(needs.image().isPresent() ? "no slicing-pool node has " + needs.image().get().family() + "; left as is"
                    : "no slicing-pool node this pod allows offers a GPU; left as is");
            return Decision.untouched(c.workloadClass(), "no slicing node for " + PodPolicy.describe(c), warnings);
        }
        if (needs.image().isPresent() && reach.nodes().stream().noneMatch(constraints::selects)) {
            String family = needs.image().get().family();
            return Decision.deny(c.workloadClass(), "1 GPU " + c.what() + ": no node it can reach has " + family
                    + ", the only GPUs its image runs on; left as it is, kube-scheduler could put it on pool inference ("
                    + reach.inferenceNodes() + "), where it would hold a GPU it cannot use; use an image built for the GPUs"
                    + " here, or select nodes that have " + family, warnings, Why.Rule.FRACTURING);
        }
        if (reach.onlyInference()) {
            // An embedding pod there is placed as a whole GPU is (the lone-GPU rule for all but identified servers).
            if (c.workloadClass() == WorkloadClass.EMBEDDING) return policy.whole(req, c, constraints, warnings, commit, now);
            int domain = FleetView.domainSize(reach.nodes());
            String where = bound != null ? " is bound by spec.nodeName to " + bound + ", an inference-pool node"
                    : " selects only inference-pool nodes";
            return Decision.deny(c.workloadClass(), "1 GPU " + c.what() + where + ", whose GPUs form " + domain
                    + "-GPU NVLink domains; " + (bound != null ? "leave spec.nodeName unset" : "drop the node selector")
                    + " so ACE can run it on pool slicing"
                    // a label never lifts the lone-GPU rule for a pod a batch controller owns
                    + (c.batchOwned() ? "" : ", or label it " + AceKeys.WORKLOAD_CLASS + "=inference"),
                    warnings, Why.Rule.FRACTURING);
        }
        // It may reach pool inference and other nodes (ace.dev/pool NotIn [slicing], OR'd terms naming an HGX and an
        // L40S node): kube-scheduler could pick either, so ACE picks, by the batch-pool rule.
        return multiGpu(req, c, constraints, warnings, commit, now);
    }

    private Decision sliced(AdmissionRequest req, Classification c, dev.ace.binpacker.workload.NodeNeeds needs, SlicingOffer o,
                            long need, List<String> warnings) {
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

    /**
     * The last word for a pod that is not an identified TP server (and for a 1-GPU embedding pod): a decision that
     * leaves it to kube-scheduler as it is, while a node of pool inference is among the nodes it can reach, becomes a
     * denial. Without ACE's reservation or pin nothing keeps its GPUs off a clean NVLink domain (kube-scheduler knows
     * no domains), now or once a domain frees up while it is pending.
     */
    Decision keptOffInference(AdmissionRequest req, Classification c, Decision d) {
        if (d.verdict() != Decision.Verdict.UNTOUCHED) return d;
        FleetView.Reach reach = policy.allocator().read(al -> FleetView.reach(al.state(), req.pod()));
        if (!reach.inference()) return d;
        String who = c.gpus() + (c.gpus() == 1 ? " GPU " : " GPUs ") + c.what();
        return Decision.deny(c.workloadClass(), who + " left as it is (" + d.text() + ") could be scheduled on pool inference ("
                + reach.inferenceNodes() + ") without a reservation, where ACE keeps the NVLink domains whole; "
                + toRequest(req, c, reach), d.warnings(), Why.Rule.FRACTURING);
    }

    /** What a non-TP pod that may reach pool inference should ask for instead, for a denial. */
    private static String toRequest(AdmissionRequest req, Classification c, FleetView.Reach reach) {
        String bound = PodConstraints.boundNode(req.pod());
        if (bound != null) return "leave spec.nodeName unset so ACE can choose a node";
        if (c.gpus() > 1) return "select nodes ACE can place it on (pool general or slicing), or request an aligned block";
        return reach.slicing() ? "select nodes outside pool inference, or ask for a GPU pool slicing offers"
                : "let its node selector and affinity allow pool slicing (" + AceKeys.POOL + "=slicing; ACE adds the toleration) so ACE can move it there";
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
            // admission may have raced us, so the reserve (and for a lone GPU the lone-GPU rule) is checked again on
            // what was really taken.
            Optional<Allocator.Outcome> done = commit(a, t, c, now);
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
        boolean lone = c.gpus() == 1;
        String text = t.pool() == Pool.INFERENCE
                ? "reserved " + (lone ? "" : "aligned ") + PodPolicy.promise(a, placed).text() + " for " + t.who()
                        + (lone && !c.identifiedServer() ? " in an NVLink domain already in use" : "") + "; " + t.placed().free8After() + " free 8-GPU NVLink domains left"
                : "reserved " + PodPolicy.promise(a, placed).text() + " in pool " + t.pool().label() + (lone ? "" : " ("
                        + (placed.gpus().length > 1 && placed.fullBandwidth() ? "NVLink " + placed.domain() : "no NVLink between them")
                        + ")") + " for " + t.who() + "; pool inference kept whole: " + t.protecting();
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
        int gpus = c.gpus();
        boolean lone = gpus == 1;
        // Left alone only when kube-scheduler could not put it on pool inference either (the pod's own constraints, not
        // ACE's narrowing by image architecture, which kube-scheduler does not know).
        if (domain == 0 && !FleetView.reach(al.state(), req.pod()).inference()) {
            return Trial.end(Decision.untouched(c.workloadClass(), "not on the inference pool", warnings), null);
        }
        String who = gpus + (lone ? " GPU " : " GPUs ") + c.what();
        BatchRule rule = config.batch();
        BatchPlacement.Ask ask = new BatchPlacement.Ask(Reservation.newId(), c.workloadClass(), gpus, PodPolicy.owner(req),
                PodRequests.besidesGpus(req.pod()), pool -> onPool(pool, c, constraints), tpWaiting);
        BatchPlacement.Choice choice = BatchPlacement.trial(al, rule, ask, now);
        boolean misaligned = !BatchPlacement.aligned(gpus, domain);
        if (choice instanceof BatchPlacement.Placed p) {
            if (lone && p.pool() == Pool.INFERENCE) {
                // A lone GPU may fill a hole in a used domain of pool inference, never split a clean one.
                Optional<Decision> split = Shapes.loneBatchGpu(al, (PlacementResult.Placed) p.outcome().result(), c, warnings);
                if (split.isPresent()) {
                    Decision d = split.get();
                    return Trial.end(Decision.deny(d.workloadClass(), d.text() + "; no other node it allows has a free GPU now; "
                            + loneFix(req), d.warnings(), Why.Rule.FRACTURING), who);
                }
            }
            String protecting = misaligned && domain > 0 ? "it would fracture the " + domain + "-GPU NVLink domains"
                    : "pools are tried in the order " + rule.orderText() + " (" + AceKeys.CONFIG_BATCH_POOLS + ")";
            return new Trial(null, p, who, protecting);
        }
        BatchPlacement.Refused r = (BatchPlacement.Refused) choice;
        if (lone) return Trial.end(loneRefusal(req, c, r, who, domain, tpWaiting, rule, warnings), who);
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
     * Why a lone GPU that may reach pool inference got no GPU from the batch-pool rule, and what to ask for: it is
     * not left to kube-scheduler, which could put it on a clean NVLink domain.
     */
    private Decision loneRefusal(AdmissionRequest req, Classification c, BatchPlacement.Refused r, String who, int domain,
                                 int tpWaiting, BatchRule rule, List<String> warnings) {
        String room = "no other node it allows has a free GPU now (pools " + rule.orderText() + ")";
        String text = switch (r.why()) {
            case TP_WAITING -> who + ": " + tpWaiting + " TP replica" + (tpWaiting == 1 ? " waits" : "s wait")
                    + " for an NVLink clique, and pool inference takes no batch work meanwhile (" + AceKeys.CONFIG_BATCH_YIELDS
                    + "); " + room + "; retry later";
            case NO_BLOCK -> who + ": no free GPU of pool inference it allows (" + r.detail() + ") and " + room + "; retry later";
            case RESERVE, MISALIGNED -> "1 GPU of " + c.what() + " would split a clean " + domain
                    + "-GPU NVLink domain of pool inference, and " + room;
            case NOT_OFFERED -> who + ": " + room + (domain == 0 ? "" : ", and pool inference takes no such pods ("
                    + AceKeys.CONFIG_BATCH_POOLS + ")") + "; retry later";
        };
        Why why = switch (r.why()) {
            case TP_WAITING -> Why.Rule.TP_WAITING;
            case NO_BLOCK -> new Why.Placement(ReasonCode.NO_FREE_CLIQUE);
            case RESERVE, MISALIGNED -> Why.Rule.FRACTURING;
            case NOT_OFFERED -> Why.Rule.NO_FREE_GPUS;
        };
        return Decision.deny(c.workloadClass(), text + "; " + loneFix(req), warnings, why);
    }

    /** What a lone GPU kept off pool slicing by its own constraints should ask for instead. */
    private static String loneFix(AdmissionRequest req) {
        String bound = PodConstraints.boundNode(req.pod());
        return bound != null ? "leave spec.nodeName unset so ACE can move it to pool slicing"
                : "let its node selector and affinity allow pool slicing (" + AceKeys.POOL + "=slicing; ACE adds the toleration)"
                        + " so ACE can move it there";
    }

    /**
     * Reserves what {@link #check} chose ({@link BatchPlacement#commit}); for a lone GPU on pool inference the lone-GPU
     * rule is judged again on the GPUs the packer now picks, under the same lock hold, as the reserve is.
     */
    private Optional<Allocator.Outcome> commit(Allocator a, Trial t, Classification c, long now) {
        if (c.gpus() != 1 || t.pool() != Pool.INFERENCE) return BatchPlacement.commit(a, config.batch(), t.placed(), now);
        Allocator.Checked<Boolean> done = a.place(t.placed().request(), false, now, (al, p) ->
                Shapes.loneBatchGpu(al, p, c, new java.util.ArrayList<>()).isPresent()
                        || BatchPlacement.free8CliquesAfter(al.state(), p, al.packer().freeCliques(Pool.INFERENCE, 8))
                                < config.batch().reserveFree8Cliques() ? Optional.of(true) : Optional.empty());
        if (done.veto().isPresent() || !done.outcome().placed()) return Optional.empty();
        return Optional.of(done.outcome());
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
