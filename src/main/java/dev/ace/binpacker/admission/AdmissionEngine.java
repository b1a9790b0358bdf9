package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.workload.AceKeys;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The two webhooks as handlers: guards first (not a Pod CREATE, exempt namespace), each an early
 * "allowed" with a reason; then the {@link PodPolicy} decision; then the namespace mode turns a
 * denial into warnings (warn) or a record (audit). The metric is reported on every exit path.
 */
public final class AdmissionEngine {
    private final PodPolicy policy;
    private final NamespacePolicies namespaces;
    private final Metrics metrics;
    private final ObjectMapper mapper;
    private final LongSupplier clock;

    public AdmissionEngine(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ObjectMapper mapper, LongSupplier clock) {
        this.policy = policy;
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.mapper = mapper;
        this.clock = clock;
    }

    public PodPolicy policy() { return policy; }

    public AdmissionResult mutate(AdmissionRequest r) { return handle(r, true); }

    public AdmissionResult validate(AdmissionRequest r) { return handle(r, false); }

    private AdmissionResult handle(AdmissionRequest r, boolean mutating) {
        long t0 = System.nanoTime();
        String outcome = "error";
        try {
            AdmissionResult result = decide(r, mutating);
            outcome = result.outcome();
            return result;
        } finally {
            metrics.admission(mutating ? "mutate" : "validate", r.operation().isEmpty() ? "UNKNOWN" : r.operation(),
                    outcome, r.dryRun(), System.nanoTime() - t0);
        }
    }

    private AdmissionResult decide(AdmissionRequest r, boolean mutating) {
        if (!r.isPodCreate()) {
            return AdmissionResult.allowed("ACE acts on Pod CREATE only; " + r.operation() + " " + r.kind() + " passed untouched");
        }
        NamespaceMode mode = namespaces.modeOf(r.namespace());
        if (mode == NamespaceMode.EXEMPT) return AdmissionResult.allowed("namespace " + r.namespace() + " is exempt from ACE");
        boolean commit = mutating && !r.dryRun();
        long t0 = System.nanoTime();
        Decision d;
        try {
            d = policy.decide(r, commit, clock.getAsLong());
        } catch (InvalidPodException e) {
            d = Decision.deny(WorkloadClass.UNKNOWN, e.getMessage(), List.of(), "invalid");
        }
        if (mutating) metrics.decision(d.workloadClass().label(), d.result(), d.reason(), System.nanoTime() - t0);
        try {
            return answer(r, d, mode, mutating);
        } catch (RuntimeException e) {
            // No path keeps GPUs for a request that ends in an error (DESIGN "What bad input gets").
            if (d.reserved() != null) policy.allocator().release(d.reserved().id());
            policy.pending().remove(r.uid());
            throw e;
        }
    }

    private AdmissionResult answer(AdmissionRequest r, Decision d, NamespaceMode mode, boolean mutating) {
        List<String> warnings = new ArrayList<>(d.warnings());
        switch (d.verdict()) {
            case UNTOUCHED:
                return AdmissionResult.patched(null, warnings, Map.of(), "allowed");
            case MUTATE:
                if (r.dryRun()) warnings.add(0, d.text());
                if (!mutating) return AdmissionResult.patched(null, r.dryRun() ? warnings : d.warnings(), Map.of(), "allowed");
                return AdmissionResult.patched(diff(r.pod(), d.mutated()), warnings, Map.of(), d.result());
            default:
                break;
        }
        switch (mode) {
            case WARN -> {
                warnings.addAll(0, split(d.text()));
                Pod m = annotated(r.pod(), "warn: would deny: " + d.text());
                return AdmissionResult.patched(mutating ? diff(r.pod(), m) : null, warnings, Map.of(), "warned");
            }
            case AUDIT -> {
                Pod m = annotated(r.pod(), "audit: would deny: " + d.text());
                return AdmissionResult.patched(mutating ? diff(r.pod(), m) : null, List.of(),
                        Map.of("would-deny", d.text()), "audited");
            }
            default -> {
                return AdmissionResult.denied(d.text(), warnings);
            }
        }
    }

    private Pod annotated(Pod pod, String text) {
        Pod m = mapper.convertValue(pod, Pod.class);
        PodEdits.annotate(m, AceKeys.DECISION, text);
        return m;
    }

    private ArrayNode diff(Pod original, Pod mutated) {
        JsonNode a = mapper.valueToTree(original);
        JsonNode b = mapper.valueToTree(mutated);
        return JsonPatch.diff(a, b);
    }

    /** A denial as warnings of at most 120 characters, split at "; " and then at words. */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        for (String part : text.split("; ")) {
            String rest = part.strip();
            while (rest.length() > AdmissionResult.MAX_WARNING) {
                int cut = rest.lastIndexOf(' ', AdmissionResult.MAX_WARNING);
                if (cut <= 0) cut = AdmissionResult.MAX_WARNING;
                out.add(rest.substring(0, cut).strip());
                rest = rest.substring(cut).strip();
            }
            if (!rest.isEmpty()) out.add(rest);
        }
        return out;
    }
}
