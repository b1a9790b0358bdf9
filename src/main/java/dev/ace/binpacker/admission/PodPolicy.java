package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.workload.AceKeys;
import dev.ace.binpacker.workload.Classification;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.PodConstraints;
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

    public PodPolicy(Supplier<Allocator> allocator, PolicyConfig config, PendingDemand pending, ObjectMapper mapper) {
        this(allocator, config, pending, mapper, true);
    }

    /**
     * @param trackGated queue gated pods at admission (standalone); in-cluster the Pod informer queues them
     *                   by name instead, since a CREATE may not have a name yet ({@code generateName})
     */
    public PodPolicy(Supplier<Allocator> allocator, PolicyConfig config, PendingDemand pending, ObjectMapper mapper, boolean trackGated) {
        this.trackGated = trackGated;
        this.allocator = allocator;
        this.config = config;
        this.pending = pending;
        this.mapper = mapper;
        this.background = new BackgroundPolicy(this, config);
    }

    public PendingDemand pending() { return pending; }

    Allocator allocator() { return allocator.get(); }

    public Decision decide(AdmissionRequest req, boolean commit, long nowMillis) throws InvalidPodException {
        Pod pod = req.pod();
        Classification c = Classifier.classify(pod);
        List<String> warnings = new ArrayList<>(c.notes());
        if (c.gpus() == 0 || c.alreadySliced()) {
            return Decision.untouched(c.workloadClass(), "no whole GPUs requested", warnings, "untouched");
        }
        Optional<Decision> held = alreadyPlaced(pod, c, warnings, commit, nowMillis);
        if (held.isPresent()) return held.get();
        NodeConstraints constraints = PodConstraints.of(pod);
        return switch (c.workloadClass()) {
            case INFERENCE -> whole(req, c, constraints, warnings, commit, nowMillis);
            case EMBEDDING -> c.gpus() == 1 ? background.slice(req, c, constraints, warnings)
                    : whole(req, c, constraints, warnings, commit, nowMillis);
            case BATCH, INTERACTIVE -> c.gpus() == 1 ? background.slice(req, c, constraints, warnings)
                    : background.multiGpu(req, c, constraints, warnings, commit, nowMillis);
            case UNKNOWN -> {
                warnings.add("ACE could not classify this GPU pod; set label " + AceKeys.WORKLOAD_CLASS + " to place it");
                yield Decision.untouched(WorkloadClass.UNKNOWN, "unclassified: " + c.evidence(), warnings, "unclassified");
            }
        };
    }

    /** Reinvocation and retries: a pod that already carries a valid reservation, or our gate, is left alone. */
    private Optional<Decision> alreadyPlaced(Pod pod, Classification c, List<String> warnings, boolean commit, long now) {
        if (PodEdits.hasSchedulingGate(pod, AceKeys.GATE)) {
            return Optional.of(Decision.untouched(c.workloadClass(), "already waiting for a clique", warnings, "already-gated"));
        }
        String json = PodEdits.annotations(pod).get(AceKeys.RESERVATION);
        if (json == null) return Optional.empty();
        Optional<Reservation> r = ReservationJson.read(mapper, json, now);
        if (r.isEmpty()) {
            warnings.add("ignored unreadable " + AceKeys.RESERVATION + " annotation; placing afresh");
            return Optional.empty();
        }
        Allocator a = allocator();
        Reservation want = r.get();
        boolean valid = a.read(al -> {
            Optional<Reservation> have = al.reservation(want.id());
            if (have.isPresent()) return have.get().node().equals(want.node()) && have.get().gpuMask() == want.gpuMask();
            int i = al.state().indexOf(want.node());
            if (i < 0 || !al.state().fits(i, want.gpuMask(), 1000, 0)) return false;
            // Known to the pod but not to this replica's ledger (restart, other replica): adopt it.
            return !commit || al.adopt(want) == Ledger.Outcome.RESERVED;
        });
        if (valid) {
            return Optional.of(Decision.untouched(c.workloadClass(), "already reserved as " + want.id(), warnings, "already-reserved"));
        }
        warnings.add(AceKeys.RESERVATION + " " + want.id() + " names GPUs that are not free; placing afresh");
        return Optional.empty();
    }

    /** Whole GPUs on the inference pool: a clique for TP >= 2, the least damaging single GPU for TP 1. */
    Decision whole(AdmissionRequest req, Classification c, NodeConstraints constraints, List<String> warnings,
                   boolean commit, long now) {
        Allocator a = allocator();
        List<Pool> pools = a.read(al -> FleetView.inferencePools(al, c.gpus(), constraints));
        PlacementRequest pr = PlacementRequest.whole(req.uid(), c.workloadClass(), c.gpus(), Math.max(c.tp(), c.gpus()), pools, constraints)
                .ownedBy(owner(req));
        Allocator.Outcome o = a.place(pr, !commit, now);
        String what = describe(c);
        if (o.result() instanceof PlacementResult.Placed p) {
            Pod m = copy(req.pod());
            PodEdits.pinToNode(m, p.node());
            PodEdits.annotate(m, AceKeys.RESERVATION, ReservationJson.write(mapper, o.reservation()));
            String gpus = joined(p.gpus());
            String text = (c.gpus() == 1 ? "reserved whole GPU " : "reserved GPUs ") + gpus + " on " + p.node()
                    + (c.gpus() > 1 && p.fullBandwidth() ? " (NVLink clique " + p.domain() + ")" : "") + " for " + what;
            if (c.gpus() > 1 && !p.fullBandwidth()) {
                warnings.add("no NVLink clique of " + c.gpus() + " GPUs on the nodes this pod allows; got the best-connected set");
                text += "; not NVLinked: best-connected set on the nodes the pod selects";
            }
            PodEdits.annotate(m, AceKeys.DECISION, text);
            return new Decision(Decision.Verdict.MUTATE, c.workloadClass(), m, text, warnings,
                    commit ? o.reservation() : null, "placed", "none");
        }
        PlacementResult.Unschedulable u = (PlacementResult.Unschedulable) o.result();
        boolean capacity = u.hasReason(ReasonCode.NO_FREE_CLIQUE) || u.hasReason(ReasonCode.TOO_FEW_FREE_GPUS);
        String reason = u.reasons().isEmpty() ? "none" : u.reasons().get(0).code().name().toLowerCase(java.util.Locale.ROOT);
        if (!capacity) {
            warnings.add("ACE found no node that can ever hold this pod; left to kube-scheduler");
            return Decision.untouched(c.workloadClass(), "not placed: " + u.message(), warnings, "unschedulable");
        }
        Pod m = copy(req.pod());
        PodEdits.addSchedulingGate(m, AceKeys.GATE);
        String text = "waiting for " + c.gpus() + " free GPUs" + (c.gpus() > 1 ? " in one NVLink clique" : "")
                + " on pool " + pools.stream().map(Pool::label).collect(java.util.stream.Collectors.joining(" or ")) + " for " + what + "; " + u.message();
        PodEdits.annotate(m, AceKeys.DECISION, text);
        warnings.add("no free NVLink clique of " + c.gpus() + " GPUs now; pod is gated until one frees up");
        if (commit && trackGated) {
            Integer prio = req.pod().getSpec().getPriority();
            String key = req.namespace() + "/" + (req.name().isEmpty() ? "" : req.name());
            pending.add(new PendingDemand.Waiting(req.uid(), key, pr, prio == null ? 0 : prio, now));
        }
        return new Decision(Decision.Verdict.MUTATE, c.workloadClass(), m, text, warnings, null, "gated", reason);
    }

    /** Whom a reservation made by this admission request is for: the request, the pod's namespace and (generate)name. */
    static Reservation.Owner owner(AdmissionRequest req) {
        String name = req.name().isEmpty() ? req.pod().getMetadata().getGenerateName() : req.name();
        return new Reservation.Owner(req.uid(), req.namespace(), name == null || name.isEmpty() ? null : name, null);
    }

    static String describe(Classification c) {
        String tp = c.multiNodeRank() ? "a rank of a TP group over " + c.nnodes() + " nodes" : "TP " + c.tp();
        return c.workloadClass().label() + " " + c.kind() + " (" + tp + ", " + c.evidence() + ")";
    }

    static String joined(int[] gpus) {
        StringBuilder b = new StringBuilder();
        for (int g : gpus) b.append(b.length() == 0 ? "" : ",").append(g);
        return b.toString();
    }

    ObjectMapper mapper() { return mapper; }

    Pod copy(Pod pod) {
        return mapper.convertValue(pod, Pod.class);
    }
}
