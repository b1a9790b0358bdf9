package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.truth.BindingPromise;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.PodConstraints;
import dev.ace.binpacker.workload.NodeNeeds;
import dev.ace.binpacker.workload.PodRequests;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * DESIGN "Who goes where", for one pod CREATE: classify, then reserve a clique (TP inference), gate
 * (no clique free), quarantine to the slicing pool (small work) or deny (fracturing background
 * work, see {@link BackgroundPolicy}). With {@code commit == false} (dry-run, /validate) nothing is
 * reserved or queued. Knows nothing of HTTP or namespace modes.
 */
public final class PodPolicy {
    private final Supplier<Allocator> allocator;
    private final PolicyConfig config;
    private final PendingDemand pending;
    private final ObjectMapper mapper;
    private final BackgroundPolicy background;
    private final boolean trackGated;
    private final PendingCap pendingCap;
    private final GroupAdmission groups = new GroupAdmission(GroupAdmission.DEFAULT_MAX_SIZE);

    /**
     * @param trackGated queue gated pods at admission (standalone); in-cluster the Pod informer queues them
     *                   by name instead, since a CREATE may not have a name yet ({@code generateName})
     * @param pendingCap the bound on reservations whose pods have not appeared ({@link #overCap})
     */
    public PodPolicy(Supplier<Allocator> allocator, PolicyConfig config, PendingDemand pending, ObjectMapper mapper, boolean trackGated,
                     PendingCap pendingCap) {
        this.trackGated = trackGated;
        this.pendingCap = pendingCap;
        this.allocator = allocator;
        this.config = config;
        this.pending = pending;
        this.mapper = mapper;
        this.background = new BackgroundPolicy(this, config);
    }

    public PendingDemand pending() { return pending; }

    Allocator allocator() { return allocator.get(); }

    /** Which reservations' pods this replica has seen (in-cluster: the Pod informer; standalone: none). */
    PendingCap.Sightings sightings() {
        PendingCap.Sightings s = pendingCap == null || pendingCap.sightings() == null ? null : pendingCap.sightings().get();
        return s == null ? PendingCap.Sightings.NONE : s;
    }

    /**
     * Decides for a pod as the tenant wrote it. The caller removes ACE's own output keys first
     * ({@link AceOutputs#strip}): nothing a pod brings is taken as already decided.
     */
    public Decision decide(AdmissionRequest req, boolean commit, long nowMillis) throws InvalidPodException {
        Pod pod = req.pod();
        Classification c = Classifier.classify(pod);
        List<String> warnings = new ArrayList<>(c.notes());
        // Slices never excuse whole GPUs: a pod that adds a MIG or MPS container still has its whole GPUs policed.
        if (c.gpus() == 0) {
            return Decision.untouched(c.workloadClass(), "no whole GPUs requested", warnings);
        }
        // The pod's MIG and MPS resources decide the node too (no pin to a node that offers its whole GPUs but not its
        // slices), and so do images built for one GPU architecture.
        NodeNeeds needs = NodeNeeds.of(pod);
        NodeConstraints constraints = needs.constraints();
        needs.image().ifPresent(a -> warnings.add(a.note()));
        if (!c.identifiedServer()) {
            if (c.workloadClass() == WorkloadClass.UNKNOWN) {
                warnings.add("unclassified GPU pod: its whole GPUs obey batch shapes; set label " + AceKeys.WORKLOAD_CLASS
                        + " to place it as what it is");
            }
            // A shape is a shape (DESIGN "Classification is conservative"): whatever the label or the class, a pod that
            // is not an identified server takes no lone GPU of a clean clique and no multi-GPU block past the reserve.
            // Whatever path decided it, a pod left to kube-scheduler must not be able to reach pool inference.
            return background.keptOffInference(req, c, switch (c.workloadClass()) {
                case EMBEDDING, BATCH, INTERACTIVE -> c.gpus() == 1 ? background.slice(req, c, needs, warnings, commit, nowMillis)
                        : background.multiGpu(req, c, constraints, warnings, commit, nowMillis);
                case INFERENCE, UNKNOWN -> c.gpus() == 1 ? whole(req, c, constraints, warnings, commit, nowMillis)
                        : background.multiGpu(req, c, constraints, warnings, commit, nowMillis);
            });
        }
        return c.workloadClass() == WorkloadClass.EMBEDDING && c.gpus() == 1
                ? background.keptOffInference(req, c, background.slice(req, c, needs, warnings, commit, nowMillis))
                : whole(req, c, constraints, warnings, commit, nowMillis);
    }

    /** Whole GPUs on the inference pool: a clique for TP >= 2, the least damaging single GPU for TP 1. */
    Decision whole(AdmissionRequest req, Classification c, NodeConstraints constraints, List<String> warnings,
                   boolean commit, long now) {
        Allocator a = allocator();
        // One look at the fleet for the pools and the shape (the packer's index, one allocator lock).
        Look look = a.read(al -> Look.of(al, c.gpus(), constraints));
        List<Pool> pools = look.pools();
        boolean inferenceAllowed = pools.contains(Pool.INFERENCE);
        if (inferenceAllowed) {
            Optional<Decision> shape = Shapes.misaligned(c, look.domain(), warnings);
            if (shape.isPresent()) return shape.get();
        }
        PlacementRequest pr = PlacementRequest.whole(Reservation.newId(), c.workloadClass(), c.gpus(), Math.max(c.tp(), c.gpus()), pools, constraints)
                .ownedBy(owner(req)).needing(PodRequests.besidesGpus(req.pod()));
        Optional<Decision> rank = groupRank(req, c, warnings, pr, now);
        if (rank.isPresent()) return rank.get();
        String bound = PodConstraints.boundNode(req.pod());
        String what = describe(c);
        Allocator.Outcome o;
        try {
            // The lone-GPU rule and the namespace cap judge the packer's decision under the same lock hold, before
            // anything is reserved or written: a refusal costs no ledger write, and no second one to give it back.
            Allocator.Checked<Decision> checked = a.place(pr, !commit, now, (al, p) -> {
                Optional<Decision> lone = inferenceAllowed ? Shapes.loneBatchGpu(al, p, c, warnings) : Optional.empty();
                return lone.isPresent() || !commit ? lone : capBefore(req, al, c, warnings, now);
            });
            if (checked.veto().isPresent()) return checked.veto().get();
            o = checked.outcome();
        } catch (Allocator.Contended e) {
            // A burst packed onto the same nodes by every replica: rather than fail (failurePolicy would admit the pod
            // without ACE), the pod waits at the gate and the leader, the one writer of gate releases, places it. A pod
            // bound by spec.nodeName cannot be gated: the engine answers it as it answers every other contended pod.
            if (bound != null) throw e;
            warnings.add("the GPUs ACE chose went to other replicas' pods first; pod is gated until ACE's leader places it");
            return gated(req, c, pr, pools, warnings, commit, now, e.getMessage() + " (a burst); the leader places it",
                    Why.Rule.CONTENDED);
        }
        if (o.result() instanceof PlacementResult.Placed p) {
            Pod m = copy(req.pod());
            // spec.nodeName already binds the pod: the reservation is made there, no affinity is added.
            if (bound == null) PodEdits.pinToNode(m, p.node());
            PodEdits.annotate(m, AceKeys.RESERVATION, ReservationJson.write(mapper, o.reservation()));
            String text = "reserved " + promise(a, p).text()
                    + (c.gpus() > 1 && p.fullBandwidth() ? " (NVLink clique " + p.domain() + ")" : "") + " for " + what
                    + (bound == null ? "" : " on the node its spec.nodeName names");
            if (c.gpus() > 1 && !p.fullBandwidth()) {
                warnings.add("no NVLink clique of " + c.gpus() + " GPUs on the nodes this pod allows; got the best-connected set");
                text += "; not NVLinked: best-connected set on the nodes the pod selects";
            }
            PodEdits.annotate(m, AceKeys.DECISION, text);
            return Decision.placed(c.workloadClass(), m, text, warnings, commit ? o.reservation() : null);
        }
        PlacementResult.Unschedulable u = (PlacementResult.Unschedulable) o.result();
        boolean capacity = u.hasReason(ReasonCode.NO_FREE_CLIQUE) || u.hasReason(ReasonCode.TOO_FEW_FREE_GPUS)
                || u.hasReason(ReasonCode.INSUFFICIENT_RESOURCE);
        // The metric says why it waits (no free clique, too few free GPUs), not the first filter listed (often another pool).
        Why reason = new Why.Placement(u.hasReason(ReasonCode.NO_FREE_CLIQUE) ? ReasonCode.NO_FREE_CLIQUE
                : u.hasReason(ReasonCode.TOO_FEW_FREE_GPUS) ? ReasonCode.TOO_FEW_FREE_GPUS
                : capacity ? ReasonCode.INSUFFICIENT_RESOURCE : u.reasons().isEmpty() ? ReasonCode.NO_GPUS : u.reasons().get(0).code());
        if (bound != null) {
            // The API server forbids scheduling gates on a pod with spec.nodeName, and ACE never moves it elsewhere.
            return Decision.deny(c.workloadClass(), "spec.nodeName binds this " + what + " to node " + bound
                    + ", which cannot hold it now: " + u.message() + " Leave spec.nodeName unset to let ACE choose a node",
                    warnings, reason);
        }
        if (!capacity) {
            warnings.add("ACE found no node that can ever hold this pod; left to kube-scheduler:");
            warnings.addAll(AdmissionEngine.split(u.message()));
            return Decision.unschedulable(c.workloadClass(), "not placed: " + u.message(), warnings);
        }
        warnings.add("no free NVLink clique of " + c.gpus() + " GPUs now; pod is gated until one frees up");
        return gated(req, c, pr, pools, warnings, commit, now, u.message(), reason);
    }

    /** The pools offered to a whole-GPU pod and the largest NVLink clique of pool inference it allows (0 when none). */
    private record Look(List<Pool> pools, int domain) {
        static Look of(Allocator al, int gpus, NodeConstraints constraints) {
            List<Pool> pools = FleetView.inferencePools(al, gpus, constraints);
            return new Look(pools, pools.contains(Pool.INFERENCE) ? FleetView.domainSize(al, Pool.INFERENCE, constraints) : 0);
        }
    }

    /** The pod with ACE's scheduling gate: the leader releases it onto GPUs it reserves then ({@code why}: the wait's cause). */
    private Decision gated(AdmissionRequest req, Classification c, PlacementRequest pr, List<Pool> pools, List<String> warnings,
                           boolean commit, long now, String why, Why reason) {
        Pod m = copy(req.pod());
        PodEdits.addSchedulingGate(m, AceKeys.GATE);
        String text = "waiting for " + c.gpus() + " free GPUs" + (c.gpus() > 1 ? " in one NVLink clique" : "")
                + " on pool " + pools.stream().map(Pool::label).collect(java.util.stream.Collectors.joining(" or ")) + " for " + describe(c) + "; " + why;
        PodEdits.annotate(m, AceKeys.DECISION, text);
        if (commit && trackGated) {
            Integer prio = req.pod().getSpec().getPriority();
            String key = req.namespace() + "/" + (req.name().isEmpty() ? "" : req.name());
            pending.add(new PendingDemand.Waiting(req.uid(), key, pr, prio == null ? 0 : prio, now));
        }
        return Decision.gated(c.workloadClass(), m, text, warnings, reason);
    }

    /** A rank of a multi-pod group is gated whole (issue 19); the resolver's refusal of a forged size becomes a denial. */
    private Optional<Decision> groupRank(AdmissionRequest req, Classification c, List<String> warnings, PlacementRequest pr, long now) {
        try {
            return groups.gate(this, req, c.workloadClass(), describe(c), warnings, pr, now);
        } catch (InvalidPodException e) {
            return Optional.of(Decision.deny(c.workloadClass(), e.getMessage(), warnings, Why.Rule.INVALID));
        }
    }

    /**
     * What the decision text may promise about which GPUs (DESIGN "Truth and trust"): the kubelet
     * picks the devices, so exact indices only where it has no choice (docs/topology.md).
     */
    static BindingPromise promise(Allocator a, PlacementResult.Placed p) {
        NodeInfo n = p.nodeIndex() < 0 ? null : a.read(al -> al.state().node(p.nodeIndex()));
        if (n == null || n.board() == null) return new BindingPromise.NodeOnly(p.node(), p.gpuMask());
        return BindingPromise.at(p.node(), n.board(), n.topologyPolicy(), p.gpuMask());
    }

    /**
     * A reservation just made that takes the namespace over its cap of pending reservations is given back: a pending
     * reservation holds GPUs for a pod that does not exist yet, so one namespace (or one unauthenticated poster) must
     * not be able to hold the fleet that way ({@link PendingCap}: reservations whose pod this replica has seen do not
     * count). A retried request that got its own reservation back is not counted twice.
     */
    Optional<Decision> overCap(AdmissionRequest req, Allocator.Outcome o, Classification c, List<String> warnings, long now) {
        if (!o.placed() || o.alreadyHeld() || o.reservation() == null) return Optional.empty();
        Allocator a = allocator();
        Optional<String> why = pendingCap.refusal(req.namespace(), a.pendingOf(req.namespace()), now);
        if (why.isEmpty()) return Optional.empty();
        a.release(o.reservation().id());
        return Optional.of(Decision.deny(c.workloadClass(), why.get(), warnings, Why.Rule.PENDING_CAP));
    }

    /**
     * The namespace cap of {@link #overCap}, asked under the allocator lock before a reservation is made ({@link
     * Allocator.Check}): the namespace's pending entries are read from the ledger's index, so the question costs what
     * that namespace holds, not what the fleet holds.
     */
    Optional<Decision> capBefore(AdmissionRequest req, Allocator al, Classification c, List<String> warnings, long now) {
        return pendingCap.refusalOfNew(req.namespace(), al.pendingOf(req.namespace()), now)
                .map(why -> Decision.deny(c.workloadClass(), why, warnings, Why.Rule.PENDING_CAP));
    }

    /** Whom a reservation made by this admission request is for: the request, the pod's namespace and (generate)name. */
    static Reservation.Owner owner(AdmissionRequest req) {
        var meta = req.pod().getMetadata();
        String name = !req.name().isEmpty() ? req.name()
                : meta == null ? null : meta.getName() != null && !meta.getName().isEmpty() ? meta.getName() : meta.getGenerateName();
        return new Reservation.Owner(req.uid(), req.namespace(), name == null || name.isEmpty() ? null : name, null);
    }

    static String describe(Classification c) {
        String tp = c.multiNodeRank() ? "a rank of a TP group over " + c.nnodes() + " nodes" : "TP " + c.tp();
        return c.what() + " (" + tp + ", " + c.evidence() + ")";
    }

    static String joined(int[] gpus) {
        StringBuilder b = new StringBuilder();
        for (int g : gpus) b.append(b.length() == 0 ? "" : ",").append(g);
        return b.toString();
    }

    ObjectMapper mapper() { return mapper; }

    /** A copy of the pod to edit, sharing what ACE never edits ({@link PodCopy}: linear in the pod's size). */
    Pod copy(Pod pod) {
        return PodCopy.forEdits(pod, mapper);
    }
}
