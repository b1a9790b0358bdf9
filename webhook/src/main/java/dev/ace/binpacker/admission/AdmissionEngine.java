package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The two webhooks as handlers: guards first (not a Pod CREATE, exempt namespace), each an early
 * "allowed" with a reason; then ACE's own output keys the pod brings are judged ({@link Provenance}):
 * kept only when ACE wrote them for this very pod (a reinvocation), otherwise dropped with a warning
 * and the pod decided afresh (/mutate) or denied (/validate, in every mode but exempt). Then the
 * {@link PodPolicy} decision; the namespace mode turns a denial into warnings (warn) or a record
 * (audit). The metric is reported on every exit path.
 */
public final class AdmissionEngine {
    static final String OWN_KEYS = AceKeys.RESERVATION + ", " + AceKeys.DECISION + ", " + AceKeys.REWRITTEN_FROM
            + " and the scheduling gate " + AceKeys.GATE + " are ACE's own outputs: a pod that still carries one ACE did not"
            + " write for it after /mutate is refused in every namespace mode but exempt, because it would let the pod skip"
            + " ACE's placement rules; create the pod without them";
    private final PodPolicy policy;
    private final NamespacePolicies namespaces;
    private final Metrics metrics;
    private final ObjectMapper mapper;
    private final LongSupplier clock;
    private final Provenance provenance;
    private final DecisionLog observed;

    public AdmissionEngine(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ObjectMapper mapper, LongSupplier clock) {
        this(policy, namespaces, metrics, mapper, clock, DecisionLog.NONE);
    }

    /** @param observed where the decisions of namespaces in mode observe are recorded (Events, log) */
    public AdmissionEngine(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ObjectMapper mapper, LongSupplier clock,
                           DecisionLog observed) {
        this.observed = observed;
        this.policy = policy;
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.mapper = mapper;
        this.clock = clock;
        this.provenance = new Provenance(policy::allocator, mapper, policy::sightings);
    }

    public PodPolicy policy() { return policy; }

    public AdmissionResult mutate(AdmissionRequest r) { return handle(r, true); }

    public AdmissionResult validate(AdmissionRequest r) { return handle(r, false); }

    /**
     * The answer for a review that did not get decided within the time budget (issue 17: the API server gives up at
     * {@code timeoutSeconds} and {@code failurePolicy: Ignore} would then admit the pod untouched). A pod that asks for
     * whole GPUs is denied in enforce (retried by its controller), admitted with a warning in warn and audit; anything
     * else passes. Decides nothing and reserves nothing: what the late decision reserves is given back by {@link #abandon}.
     */
    public AdmissionResult overBudget(AdmissionRequest r, String why) {
        String outcome = "over_budget";
        try {
            if (!r.isPodCreate() || r.pod() == null) return AdmissionResult.allowed("ACE acts on Pod CREATE only; passed untouched");
            NamespaceMode mode = namespaces.modeOf(r.namespace());
            int gpus;
            try {
                gpus = dev.ace.binpacker.workload.GpuCount.of(r.pod()).effective();
            } catch (InvalidPodException e) {
                gpus = 1;
            }
            if (mode == NamespaceMode.EXEMPT || gpus == 0) return AdmissionResult.allowed("ACE passed the pod untouched: " + why);
            String text = "ACE could not decide for this pod in time (" + why + "); retry";
            if (mode == NamespaceMode.ENFORCE) return AdmissionResult.denied(text, List.of());
            return AdmissionResult.patched(null, List.of(text), Map.of(), "warned");
        } finally {
            metrics.counting(!r.warmUp()).admission("budget", r.operation().isEmpty() ? "UNKNOWN" : r.operation(), outcome, r.dryRun(), 0);
        }
    }

    /** A review whose answer was not sent (over budget): the GPUs it reserved and its place in the gated queue go back. */
    public void abandon(AdmissionRequest r) {
        policy.allocator().heldForRequest(r.uid()).ifPresent(res -> policy.allocator().release(res.id()));
        policy.pending().remove(r.uid());
    }

    private AdmissionResult handle(AdmissionRequest r, boolean mutating) {
        long t0 = System.nanoTime();
        String outcome = "error";
        try {
            AdmissionResult result = decide(r, mutating);
            outcome = result.outcome();
            return result;
        } finally {
            metrics.counting(!r.warmUp()).admission(mutating ? "mutate" : "validate", r.operation().isEmpty() ? "UNKNOWN" : r.operation(),
                    outcome, r.dryRun(), System.nanoTime() - t0);
        }
    }

    private AdmissionResult decide(AdmissionRequest r, boolean mutating) {
        if (!r.isPodCreate()) {
            return AdmissionResult.allowed("ACE acts on Pod CREATE only; " + r.operation() + " " + r.kind() + " passed untouched");
        }
        NamespaceMode mode = namespaces.modeOf(r.namespace());
        if (mode == NamespaceMode.EXEMPT) return AdmissionResult.allowed("namespace " + r.namespace() + " is exempt from ACE");
        long now = clock.getAsLong();
        AceOutputs brought = AceOutputs.of(r.pod());
        AdmissionRequest clean = brought.isEmpty() ? r : r.withPod(brought.strip(r.pod(), mapper));
        Once<Decision> dry = new Once<>(() -> decideSafely(clean, false, now));
        if (mode == NamespaceMode.OBSERVE && mutating) return observe(r, clean, dry);
        Provenance.Judgement j = provenance.judge(r, brought, dry, mode, !mutating);
        if (!mutating) return validated(r, brought, j, dry, mode);
        boolean commit = !r.dryRun();
        if (!brought.isEmpty() && j.allOwn()) {
            // Reinvocation (another webhook changed the pod after ACE): ACE's own answer stands, nothing is decided twice.
            String result = j.own().isPresent() ? "already-reserved" : brought.gated() ? "already-gated" : "already-decided";
            metrics.counting(!r.warmUp()).decision(classOf(clean).label(), result, "none", 0);
            return AdmissionResult.patched(null, List.of(), Map.of(), "allowed");
        }
        if (commit && j.ownButBroken()) policy.allocator().release(j.own().get().id());
        long t0 = System.nanoTime();
        Decision d = commit ? decideSafely(clean, true, now) : dry.get();
        metrics.counting(!r.warmUp()).decision(d.workloadClass().label(), d.outcome().label(), d.why().label(), System.nanoTime() - t0);
        try {
            return answer(r.pod(), clean, d, mode, true).withWarnings(dropped(brought, j, d, clean.pod()));
        } catch (RuntimeException e) {
            // No path keeps GPUs for a request that ends in an error (DESIGN "What bad input gets").
            if (d.reserved() != null) policy.allocator().release(d.reserved().id());
            policy.pending().remove(r.uid());
            throw e;
        }
    }

    /**
     * /validate sees the final object. Keys ACE did not write for this pod deny it in every mode but exempt: a
     * forged reservation, gate or rewrite is a way around the policy, not a policy outcome to warn about.
     */
    private AdmissionResult validated(AdmissionRequest r, AceOutputs brought, Provenance.Judgement j, Once<Decision> dry,
                                      NamespaceMode mode) {
        if (!j.allOwn()) {
            // The pod will not be created: GPUs ACE held for it go back now, not at the pending TTL.
            if (!r.dryRun()) j.own().ifPresent(res -> policy.allocator().release(res.id()));
            Map.Entry<String, String> first = j.foreign().entrySet().iterator().next();
            return AdmissionResult.denied("ACE did not write " + first.getKey() + " for this pod (" + first.getValue() + "). "
                    + OWN_KEYS, j.foreign().entrySet().stream().map(e -> "not ACE's: " + e.getKey() + " (" + e.getValue() + ")").toList());
        }
        if (j.own().isPresent()) {
            if (!r.dryRun()) provenance.accepted(j.own().get(), r);
            return AdmissionResult.allowed("GPUs reserved by ACE as " + j.own().get().id());
        }
        return answer(r.pod(), r, dry.get(), mode, false);
    }

    /**
     * Mode observe: the pod is admitted as it came and nothing is reserved; what ACE would have done is counted
     * ({@code result="observed-<result>"}), put in an audit annotation and given to the {@link DecisionLog}.
     */
    private AdmissionResult observe(AdmissionRequest r, AdmissionRequest clean, Once<Decision> dry) {
        long t0 = System.nanoTime();
        Decision d = dry.get();
        metrics.counting(!r.warmUp()).decision(d.workloadClass().label(), "observed-" + d.outcome().label(), d.why().label(), System.nanoTime() - t0);
        String text = observedText(d);
        var meta = r.pod().getMetadata();
        String name = !r.name().isEmpty() ? r.name() : meta != null && meta.getName() != null ? meta.getName()
                : meta != null && meta.getGenerateName() != null ? meta.getGenerateName() + "*" : "";
        observed.observed(r.namespace(), name, d.outcome().label(), text);
        return new AdmissionResult(true, 200, null, null, List.of(), Map.of("would", text), "observed");
    }

    /** "would place: reserved 4 GPUs ...", "would deny: ...", "would leave untouched: ..." */
    static String observedText(Decision d) {
        String verb = switch (d.verdict()) {
            case DENY -> "would deny";
            case UNTOUCHED -> "would leave untouched";
            case MUTATE -> "would " + switch (d.outcome()) {
                case PLACED -> "place";
                case GATED -> "gate";
                case SLICED -> "move to pool slicing";
                default -> d.outcome().label();
            };
        };
        String w = d.warnings().isEmpty() ? "" : " (" + String.join("; ", d.warnings()) + ")";
        return verb + ": " + d.text() + w;
    }

    private Decision decideSafely(AdmissionRequest r, boolean commit, long now) {
        try {
            return policy.decide(r, commit, now);
        } catch (InvalidPodException e) {
            return Decision.deny(WorkloadClass.UNKNOWN, e.getMessage(), List.of(), Why.Rule.INVALID);
        } catch (dev.ace.binpacker.placement.Allocator.Contended e) {
            // Not a server error: a 500 would let failurePolicy admit the pod without ACE. Enforce denies (the
            // controller retries), warn and audit admit with the reason.
            return Decision.deny(classOf(r), "ACE could not reserve GPUs for this pod now: " + e.getMessage() + "; retry",
                    List.of(), Why.Rule.CONTENDED);
        }
    }

    private static WorkloadClass classOf(AdmissionRequest r) {
        try {
            return Classifier.classify(r.pod()).workloadClass();
        } catch (InvalidPodException e) {
            return WorkloadClass.UNKNOWN;
        }
    }

    /** One warning per brought key that the fresh decision did not write back with the same value. */
    private static List<String> dropped(AceOutputs brought, Provenance.Judgement j, Decision d, Pod clean) {
        if (brought.isEmpty()) return List.of();
        Map<String, String> after = AceOutputs.of(d.mutated() != null ? d.mutated() : clean).present();
        List<String> out = new ArrayList<>();
        brought.present().forEach((key, value) -> {
            if (value.equals(after.get(key))) return;
            String why = j.foreign().getOrDefault(key, "dropped with the other ACE keys");
            out.add("dropped " + key + " (" + why + "); decided afresh");
        });
        return out;
    }

    /**
     * @param base  the pod as it came (the patch is taken against it, so keys ACE dropped are removed)
     * @param clean the request about the pod without ACE's keys, which the decision was made for
     */
    private AdmissionResult answer(Pod base, AdmissionRequest clean, Decision d, NamespaceMode mode, boolean mutating) {
        List<String> warnings = new ArrayList<>(d.warnings());
        switch (d.verdict()) {
            case UNTOUCHED:
                return AdmissionResult.patched(mutating ? diff(base, clean.pod()) : null, warnings, Map.of(), "allowed");
            case MUTATE:
                if (clean.dryRun()) warnings.add(0, d.text());
                if (!mutating) return AdmissionResult.patched(null, clean.dryRun() ? warnings : d.warnings(), Map.of(), "allowed");
                return AdmissionResult.patched(diff(base, d.mutated()), warnings, Map.of(), d.outcome().label());
            default:
                break;
        }
        switch (mode) {
            case WARN -> {
                warnings.addAll(0, split(d.text()));
                Pod m = annotated(clean.pod(), "warn: would deny: " + d.text());
                return AdmissionResult.patched(mutating ? diff(base, m) : null, warnings, Map.of(), "warned");
            }
            case OBSERVE -> {
                // /validate in mode observe (the /mutate answer already recorded the decision): admitted, recorded only.
                return AdmissionResult.patched(null, List.of(), Map.of("would", observedText(d)), "observed");
            }
            case AUDIT -> {
                Pod m = annotated(clean.pod(), "audit: would deny: " + d.text());
                return AdmissionResult.patched(mutating ? diff(base, m) : null, List.of(),
                        Map.of("would-deny", d.text()), "audited");
            }
            default -> {
                return AdmissionResult.denied(d.text(), warnings);
            }
        }
    }

    private Pod annotated(Pod pod, String text) {
        Pod m = PodCopy.forEdits(pod, mapper);
        PodEdits.annotate(m, AceKeys.DECISION, text);
        return m;
    }

    private ArrayNode diff(Pod original, Pod mutated) {
        return PodCopy.diff(mapper, original, mutated);
    }

    /** A denial as warnings of at most 120 characters, split at "; " and then at words (linear in the text). */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        for (String part : text.split("; ")) {
            String rest = part.strip();
            int from = 0;
            while (rest.length() - from > AdmissionResult.MAX_WARNING) {
                int cut = from + AdmissionResult.MAX_WARNING;
                while (cut > from && rest.charAt(cut) != ' ') cut--; // looks back at most 120 characters
                if (cut == from) cut = from + AdmissionResult.MAX_WARNING;
                String piece = rest.substring(from, cut).strip();
                if (!piece.isEmpty()) out.add(piece);
                from = cut;
                while (from < rest.length() && rest.charAt(from) == ' ') from++;
            }
            if (from < rest.length()) out.add(rest.substring(from));
        }
        return out;
    }
}
