package dev.ace.binpacker.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.WorkloadPods;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * {@code /validate-workloads}: judges the pod templates of Deployments, StatefulSets, ReplicaSets,
 * Jobs, CronJobs and LeaderWorkerSets with the rules and namespace modes pods get, so that
 * {@code kubectl apply} of a fracturing Job fails with the message its pods would get instead of
 * FailedCreate events later. Only shape rules refuse a workload: a denial that depends on what is
 * free right now becomes a warning, because the controller retries its pods and capacity changes.
 * Nothing is reserved here. An UPDATE is judged only when a pod template changed (scaling,
 * labels and the controllers' own bookkeeping pass).
 */
public final class WorkloadAdmission {
    public static final String WEBHOOK = "validate-workloads";
    /** Decision reasons that depend on the free GPUs at this moment, not on the pod's shape. */

    private final PodPolicy policy;
    private final NamespacePolicies namespaces;
    private final Metrics metrics;
    private final ObjectMapper mapper;
    private final LongSupplier clock;
    private final DecisionLog observed;

    public WorkloadAdmission(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ObjectMapper mapper, LongSupplier clock) {
        this(policy, namespaces, metrics, mapper, clock, DecisionLog.NONE);
    }

    public WorkloadAdmission(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ObjectMapper mapper, LongSupplier clock,
                             DecisionLog observed) {
        this.observed = observed;
        this.policy = policy;
        this.namespaces = namespaces;
        this.metrics = metrics;
        this.mapper = mapper;
        this.clock = clock;
    }

    public AdmissionResult validate(AdmissionRequest r) {
        long t0 = System.nanoTime();
        String outcome = "error";
        try {
            AdmissionResult result = decide(r);
            outcome = result.outcome();
            return result;
        } finally {
            metrics.counting(!r.warmUp()).admission(WEBHOOK, r.operation().isEmpty() ? "UNKNOWN" : r.operation(), outcome, r.dryRun(), System.nanoTime() - t0);
        }
    }

    private AdmissionResult decide(AdmissionRequest r) {
        JsonNode o = r.object();
        boolean judged = WorkloadPods.isWorkload(r.kind()) && (r.subResource() == null || r.subResource().isEmpty())
                && (r.operation().equals("CREATE") || r.operation().equals("UPDATE")) && o != null && o.isObject()
                && group(o).equals(WorkloadPods.KINDS.get(r.kind()));
        if (!judged) {
            return AdmissionResult.allowed("ACE judges workload pod templates at CREATE and UPDATE; " + r.operation() + " "
                    + r.kind() + " passed untouched");
        }
        if (r.operation().equals("UPDATE") && r.oldObject() != null && r.oldObject().isObject()
                && WorkloadPods.templates(o).equals(WorkloadPods.templates(r.oldObject()))) {
            return AdmissionResult.allowed("pod templates unchanged");
        }
        NamespaceMode mode = namespaces.modeOf(r.namespace());
        if (mode == NamespaceMode.EXEMPT) return AdmissionResult.allowed("namespace " + r.namespace() + " is exempt from ACE");
        List<WorkloadPods.TemplatePod> pods;
        try {
            pods = WorkloadPods.of(o, mapper);
        } catch (IllegalArgumentException e) {
            // The API server's own validation answers for malformed templates; ACE does not block on them.
            return AdmissionResult.allowed("pod template not judged: " + e.getMessage());
        }
        Verdicts v = judge(r, pods);
        if (mode == NamespaceMode.OBSERVE) {
            List<String> would = new ArrayList<>(v.refusals());
            would.addAll(v.capacity());
            String text = would.isEmpty() ? "would allow: " + String.join("; ", v.warnings()) : "would deny: " + String.join("; ", would);
            observed.observed(r.namespace(), r.kind() + "/" + r.name(), would.isEmpty() ? "allowed" : "denied", text);
            return new AdmissionResult(true, 200, null, null, List.of(), Map.of("would", text), "observed");
        }
        if (v.refusals().isEmpty()) {
            List<String> warnings = new ArrayList<>(v.warnings());
            if (!v.capacity().isEmpty() && mode != NamespaceMode.AUDIT) {
                warnings.add("as the cluster is now, ACE would refuse these pods; the controller retries them:");
                v.capacity().forEach(t -> warnings.addAll(AdmissionEngine.split(t)));
            }
            return AdmissionResult.patched(null, mode == NamespaceMode.AUDIT ? List.of() : warnings, Map.of(), "allowed");
        }
        String text = String.join("; ", v.refusals());
        return switch (mode) {
            case WARN -> {
                List<String> warnings = new ArrayList<>(AdmissionEngine.split(text));
                warnings.addAll(v.warnings());
                yield new AdmissionResult(true, 200, null, null, warnings, Map.of(), "warned");
            }
            case AUDIT -> new AdmissionResult(true, 200, null, null, List.of(), Map.of("would-deny", text), "audited");
            default -> AdmissionResult.denied(text, v.warnings());
        };
    }

    /** Shape refusals, capacity refusals and the other warnings of every template's pod. */
    private record Verdicts(List<String> refusals, List<String> capacity, List<String> warnings) {}

    private Verdicts judge(AdmissionRequest r, List<WorkloadPods.TemplatePod> pods) {
        Set<String> refusals = new LinkedHashSet<>();
        Set<String> capacity = new LinkedHashSet<>();
        Set<String> warnings = new LinkedHashSet<>();
        long now = clock.getAsLong();
        for (WorkloadPods.TemplatePod t : pods) {
            if (t.group() != null) warnings.add(groupNote(t));
            String name = Objects.requireNonNullElse(t.pod().getMetadata().getName(), "");
            AdmissionRequest pod = new AdmissionRequest(r.uid() + "/" + t.role(), r.apiVersion(), "Pod", null, "CREATE",
                    r.namespace(), name, true, mapper.valueToTree(t.pod()), t.pod());
            Decision d;
            try {
                d = policy.decide(pod, false, now);
            } catch (InvalidPodException e) {
                d = Decision.deny(WorkloadClass.UNKNOWN, e.getMessage(), List.of(), Why.Rule.INVALID);
            }
            String prefix = pods.size() > 1 ? t.role() + " pods: " : "";
            if (d.verdict() == Decision.Verdict.DENY) (d.why().wantOfGpus() ? capacity : refusals).add(prefix + d.text());
            warnings.addAll(d.warnings());
        }
        return new Verdicts(List.copyOf(refusals), List.copyOf(capacity), List.copyOf(warnings));
    }

    /**
     * How the controller groups the pods of a template, said plainly: "worker: 2 groups of 2 pods
     * (spec.leaderWorkerTemplate.size); ACE places each group whole" (its ranks are gated at pod creation and
     * the leader releases a group only when every rank fits).
     */
    static String groupNote(WorkloadPods.TemplatePod t) {
        WorkloadPods.Group g = t.group();
        return t.role() + ": " + g.groups() + (g.groups() == 1 ? " group" : " groups") + " of " + g.size() + " pods (" + g.from()
                + "); ACE places each group whole";
    }

    private static String group(JsonNode o) {
        String apiVersion = o.path("apiVersion").asText("");
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }
}
