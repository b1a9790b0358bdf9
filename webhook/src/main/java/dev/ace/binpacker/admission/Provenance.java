package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.GpuCount;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Which of the ACE keys a pod brings to admission ACE wrote for this very pod (DESIGN "Truth and
 * trust"). The API server gives every webhook call its own {@code request.uid} (a reinvocation and
 * the /validate call included), so ACE recognises its own work by what it can check, never by what
 * the pod claims:
 * <ul>
 * <li>a reservation is ACE's when the ledger holds it, unchanged, made at admission for this pod
 * (namespace, name or generateName), still pending and claimed by no other pod (once a /validate call
 * accepted it, only that pod, by the UID the API server gave it, is its owner, and no /mutate call owns it: a
 * copy with the same generateName is not, whatever {@code metadata.uid} it sets, which proves nothing before the
 * API server assigns the UID after mutation); and the pod is
 * pinned to its node and asks for exactly its GPUs. A copy of a running pod's annotation names a
 * reservation that is confirmed (or gone), so it is never ACE's for the copy;</li>
 * <li>a gate, a rewrite and a decision text hold no GPUs, so they are judged against what ACE
 * decides for the pod without them: the gate only where ACE would hold the pod for whole GPUs, the
 * rewrite only on a pod really narrowed to a slice of pool slicing, the text only beside one of
 * those or as the warn/audit record of a denial.</li>
 * </ul>
 */
final class Provenance {
    private static final Pattern REWRITE = Pattern.compile(Pattern.quote(AceKeys.GPU) + "=[1-9][0-9]*");

    /**
     * @param own     the reservation the pod names when ACE made it for this pod (even if the pod no longer fits it)
     * @param foreign each key ACE did not write for this pod, with a short reason (empty: every key is ACE's)
     */
    record Judgement(Optional<Reservation> own, Map<String, String> foreign) {
        static final Judgement NONE = new Judgement(Optional.empty(), Map.of());

        boolean allOwn() { return foreign.isEmpty(); }

        /** ACE's own reservation, but the pod no longer matches it (a later webhook changed the pod). */
        boolean ownButBroken() { return own.isPresent() && foreign.containsKey(AceKeys.RESERVATION); }
    }

    /** Bindings kept before old ones (of reservations the ledger no longer holds) are swept. */
    static final int MAX_BINDINGS = 1024;

    private final Supplier<Allocator> allocator;
    private final ObjectMapper mapper;
    /** Which reservations' pods this replica's informer has seen stored (in-cluster; standalone: none). */
    private final Supplier<PendingCap.Sightings> sightings;
    /**
     * Reservation id -> the pod (its UID, which the API server assigns before validating admission) whose /validate call
     * accepted it. Until then every call of the one admission (the /mutate call, its reinvocation) sees a pod without a
     * UID the API server gave (a client may set one, never read there), and nobody else knows the random id; from then
     * on the pod exists and can be copied, so the reservation is ACE's own for that pod alone (issues 17 and 34: a
     * second pod of the same generateName carrying it is not, whatever UID it claims, and its mismatch releases
     * nothing).
     */
    private final Map<String, String> acceptedFor = new java.util.concurrent.ConcurrentHashMap<>();

    Provenance(Supplier<Allocator> allocator, ObjectMapper mapper, Supplier<PendingCap.Sightings> sightings) {
        this.allocator = allocator;
        this.mapper = mapper;
        this.sightings = sightings;
    }

    /**
     * @param fresh      ACE's decision for the pod without its ACE keys (computed only when needed)
     * @param validating true for /validate, which sees the final object a moment after /mutate decided:
     *                   a gate is then accepted where ACE would place the pod or gate it
     */
    Judgement judge(AdmissionRequest r, AceOutputs out, Supplier<Decision> fresh, NamespaceMode mode, boolean validating) {
        if (out.isEmpty()) return Judgement.NONE;
        Map<String, String> foreign = new LinkedHashMap<>();
        Optional<Reservation> own = Optional.empty();
        if (out.reservation() != null) {
            Optional<Reservation> claimed = ReservationJson.read(mapper, out.reservation(), 0);
            own = claimed.flatMap(c -> ownReservation(r, c, validating));
            // A dry run reserves nothing, so its /validate call cannot find the reservation its /mutate call showed;
            // nothing of a dry run is stored either, so the pod is held to the reservation's shape only.
            boolean dryShape = validating && r.dryRun() && claimed.isPresent();
            if (claimed.isEmpty()) foreign.put(AceKeys.RESERVATION, "unreadable");
            else if (own.isEmpty() && !dryShape) foreign.put(AceKeys.RESERVATION, "ACE made no such reservation for this pod");
            else mismatch(r.pod(), own.orElse(claimed.get())).ifPresent(why -> foreign.put(AceKeys.RESERVATION, why));
            if (out.gated()) foreign.put(AceKeys.GATE, "a pod with a reservation does not wait for a clique");
            if (out.rewrittenFrom() != null) foreign.put(AceKeys.REWRITTEN_FROM, "ACE never rewrites a pod it reserves GPUs for");
            if (out.decision() != null && foreign.containsKey(AceKeys.RESERVATION)) {
                foreign.put(AceKeys.DECISION, "it describes a reservation ACE did not make");
            }
            return new Judgement(own, foreign);
        }
        Decision d = fresh.get();
        if (out.gated() && !(validating ? holdsWholeGpus(d) : d.outcome() == Decision.Outcome.GATED)) {
            foreign.put(AceKeys.GATE, "ACE's decision for this pod is: " + d.outcome().label());
        }
        if (out.rewrittenFrom() != null && !slicedByAce(r.pod(), out.rewrittenFrom())) {
            foreign.put(AceKeys.REWRITTEN_FROM, "the pod is not a GPU slice on pool slicing");
        }
        if (out.decision() != null && !decisionFits(r.pod(), out, foreign, d, mode)) {
            foreign.put(AceKeys.DECISION, "ACE's decision for this pod is: " + d.outcome().label());
        }
        return new Judgement(own, foreign);
    }

    /** The reservation {@code claimed} names, if ACE made exactly that one at admission for this pod and nobody claimed it yet. */
    private Optional<Reservation> ownReservation(AdmissionRequest r, Reservation claimed, boolean validating) {
        Allocator a = allocator.get();
        Optional<Reservation> thisRequest = a.heldForRequest(r.uid()).filter(h -> same(h, claimed));
        if (thisRequest.isPresent()) return thisRequest;
        return a.reservationOn(claimed.node(), claimed.id()).filter(h -> same(h, claimed) && madeFor(h, r, validating));
    }

    private static boolean same(Reservation held, Reservation claimed) {
        return held.id().equals(claimed.id()) && held.node().equals(claimed.node()) && held.gpuMask() == claimed.gpuMask();
    }

    /**
     * The final object {@code r} carries ACE's own reservation {@code res} and is allowed: from now on it is that pod's
     * alone. Called by /validate (not for a dry run, which reserves nothing).
     */
    void accepted(Reservation res, AdmissionRequest r) {
        if (acceptedFor.size() >= MAX_BINDINGS) {
            Allocator a = allocator.get();
            acceptedFor.keySet().removeIf(id -> a.read(al -> al.ledger().get(id)).isEmpty());
        }
        acceptedFor.putIfAbsent(res.id(), identity(r));
    }

    /** The pod's UID, or its namespace/name when it has none (a review posted by hand). */
    private static String identity(AdmissionRequest r) {
        var m = r.pod().getMetadata();
        if (m != null && m.getUid() != null && !m.getUid().isEmpty()) return "uid:" + m.getUid();
        String name = !r.name().isEmpty() ? r.name() : m == null || m.getName() == null ? "" : m.getName();
        return "name:" + r.namespace() + "/" + name;
    }

    /**
     * Whether the pending reservation {@code h} was made at admission for the pod of {@code r}: its namespace and name
     * (or generateName), and evidence no client can steer that the pod is the one ACE reserved for.
     * <ul>
     * <li>/mutate: the pod has no UID yet (the API server assigns it after mutating admission), so a
     * {@code metadata.uid} the request carries is the client's word and proves nothing; it is never read. A
     * reinvocation comes before its pod's /validate call and before the pod is stored, so once a /validate call
     * accepted the reservation, the leader tied it to a pod, or this replica saw a pod carrying it, its pod exists and
     * a /mutate call naming it is another pod's (a copy of the stored pod, whatever UID it claims).</li>
     * <li>/validate: the UID is the API server's. The reservation is this pod's unless another pod's /validate call
     * accepted it, or a pod carrying it is already stored (the pod validated now is not stored yet).</li>
     * </ul>
     */
    private boolean madeFor(Reservation h, AdmissionRequest r, boolean validating) {
        Reservation.Owner o = h.owner();
        if (!h.pending() || o.requestUid() == null || !r.namespace().equals(o.namespace()) || o.podName() == null) return false;
        String acceptedBy = acceptedFor.get(h.id());
        boolean stored = sightings.get().podSeen(h);
        if (!validating) {
            if (acceptedBy != null || o.podUid() != null || stored) return false;
        } else {
            String podUid = r.pod().getMetadata() == null ? null : r.pod().getMetadata().getUid();
            if (o.podUid() != null && !o.podUid().equals(podUid)) return false;
            if (acceptedBy != null ? !acceptedBy.equals(identity(r)) : stored) return false;
        }
        String name = r.name().isEmpty() && r.pod().getMetadata() != null && r.pod().getMetadata().getName() != null
                ? r.pod().getMetadata().getName() : r.name();
        String generate = r.pod().getMetadata() == null ? null : r.pod().getMetadata().getGenerateName();
        if (!name.isEmpty() && name.equals(o.podName())) return true;
        // Made while the name was not known yet: the pod's generateName, and at /validate the name it generated.
        return generate != null && generate.equals(o.podName()) && (name.isEmpty() || name.startsWith(generate));
    }

    /** Why the pod no longer matches its reservation: not pinned to its node, or another number of whole GPUs. */
    static Optional<String> mismatch(Pod pod, Reservation r) {
        if (!PodEdits.pinnedTo(pod, r.node())) return Optional.of("the pod is not pinned to node " + r.node() + " of its reservation");
        int gpus;
        try {
            gpus = GpuCount.of(pod).effective();
        } catch (InvalidPodException e) {
            return Optional.of(e.getMessage());
        }
        if (gpus != r.gpuCount()) return Optional.of("the pod asks for " + gpus + " whole GPUs, its reservation holds " + r.gpuCount());
        return Optional.empty();
    }

    /** What ACE's gate stands for: the pod is one ACE places on whole GPUs (and queues when none are free). */
    static boolean holdsWholeGpus(Decision d) {
        if (d.verdict() != Decision.Verdict.MUTATE) return false;
        if (d.outcome() == Decision.Outcome.GATED) return true;
        return d.outcome() == Decision.Outcome.PLACED && (d.workloadClass() == WorkloadClass.INFERENCE || d.workloadClass() == WorkloadClass.EMBEDDING);
    }

    /** The shape of ACE's slicing rewrite: no whole GPU left, a MIG or MPS resource instead, pool slicing selected. */
    private static boolean slicedByAce(Pod pod, String rewrittenFrom) {
        if (!REWRITE.matcher(rewrittenFrom).matches() || !selectsSlicing(pod)) return false;
        boolean slice = false;
        for (Container c : containers(pod)) {
            if (c.getResources() == null) continue;
            for (Map<String, ?> m : resourceMaps(c)) {
                if (m.containsKey(AceKeys.GPU)) return false;
                slice |= m.keySet().stream().anyMatch(k -> k.startsWith(AceKeys.MIG_PREFIX) || k.equals(AceKeys.GPU_SHARED));
            }
        }
        return slice;
    }

    private static boolean decisionFits(Pod pod, AceOutputs out, Map<String, String> foreign, Decision d, NamespaceMode mode) {
        if (out.gated() && !foreign.containsKey(AceKeys.GATE)) return true;
        if (out.rewrittenFrom() != null && !foreign.containsKey(AceKeys.REWRITTEN_FROM)) return true;
        if (selectsSlicing(pod) && d.outcome() == Decision.Outcome.SLICED) return true;
        boolean recordsDenial = mode == NamespaceMode.WARN || mode == NamespaceMode.AUDIT;
        return recordsDenial && d.verdict() == Decision.Verdict.DENY && out.decision().startsWith(mode.label() + ": would deny: ");
    }

    private static boolean selectsSlicing(Pod pod) {
        return pod.getSpec() != null && pod.getSpec().getNodeSelector() != null
                && "slicing".equals(pod.getSpec().getNodeSelector().get(AceKeys.POOL));
    }

    private static List<Container> containers(Pod pod) {
        List<Container> all = new ArrayList<>();
        if (pod.getSpec() == null) return all;
        if (pod.getSpec().getContainers() != null) all.addAll(pod.getSpec().getContainers());
        if (pod.getSpec().getInitContainers() != null) all.addAll(pod.getSpec().getInitContainers());
        return all;
    }

    private static List<Map<String, ?>> resourceMaps(Container c) {
        List<Map<String, ?>> maps = new ArrayList<>();
        if (c.getResources().getLimits() != null) maps.add(c.getResources().getLimits());
        if (c.getResources().getRequests() != null) maps.add(c.getResources().getRequests());
        return maps;
    }
}
