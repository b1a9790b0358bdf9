package dev.ace.binpacker.cluster;

import dev.ace.binpacker.placement.BatchRule;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.DecisionLog;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingCap;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.PodPolicy;
import dev.ace.binpacker.admission.PolicyConfig;
import dev.ace.binpacker.admission.WorkloadAdmission;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The admission object graph (settings to policy to engines), built one way for {@code serve} ({@link ClusterBeans}
 * is its CDI face) and {@code explain}: both map the same {@link AceConfig} through {@link #policyConfig} and
 * {@link #pendingCap}, so an offline explanation decides with the settings the webhook runs with.
 */
public record AdmissionWiring(PodPolicy policy, AdmissionEngine engine, WorkloadAdmission workloads) {

    /** What the webhook needs around the policy: where its allocator is, how it counts, what it tells. */
    public record Edge(Supplier<Allocator> allocator, PendingDemand pending, ObjectMapper json, boolean standalone,
                       Supplier<PendingCap.Sightings> sightings, NamespacePolicies namespaces, Metrics metrics,
                       LongSupplier clock, DecisionLog observed) {
        /**
         * Where no Pod informer runs and nothing is exported ({@code explain}, the engine's tests and benchmarks): gated pods are
         * queued at admission, no pod is ever seen (the strict pending cap), nothing is counted or logged as observed.
         */
        public static Edge standalone(Supplier<Allocator> allocator, PendingDemand pending, ObjectMapper json,
                                      NamespacePolicies namespaces, LongSupplier clock) {
            return new Edge(allocator, pending, json, true, () -> PendingCap.Sightings.NONE, namespaces, Metrics.NOOP, clock,
                    DecisionLog.NONE);
        }
    }

    public static AdmissionWiring of(AceConfig config, Edge e) {
        PodPolicy policy = podPolicy(config, e);
        return new AdmissionWiring(policy,
                new AdmissionEngine(policy, e.namespaces(), e.metrics(), e.json(), e.clock(), e.observed()),
                new WorkloadAdmission(policy, e.namespaces(), e.metrics(), e.json(), e.clock(), e.observed()));
    }

    static PodPolicy podPolicy(AceConfig config, Edge e) {
        // Standalone has no Pod informer: no pod is ever seen, so every unseen reservation counts from its first millisecond.
        return new PodPolicy(e.allocator(), policyConfig(config.policy()), e.pending(), e.json(), e.standalone(),
                pendingCap(config.policy(), e.standalone(), e.sightings()));
    }

    /** The policy's settings from {@code ace.policy.*}. */
    public static PolicyConfig policyConfig(AceConfig.Policy p) {
        return new PolicyConfig(p.slicingTaintKey(), mebibytes(p.embeddingMemory()), mebibytes(p.interactiveMemory()),
                p.batchWholeGpu(), p.maxPendingPerNamespace(),
                new BatchRule(BatchRule.parseOrder(p.batchPools()), p.reserveFree8Cliques(), p.batchYieldsToWaitingTp()));
    }

    /** The per-namespace cap on gated pods; strict where no Pod informer can tell which reservations' pods arrived. */
    public static PendingCap pendingCap(AceConfig.Policy p, boolean standalone, Supplier<PendingCap.Sightings> sightings) {
        return standalone ? PendingCap.strict(p.maxPendingPerNamespace())
                : new PendingCap(p.maxPendingPerNamespace(), p.maxArrivingPerNamespace(), p.pendingGrace().toMillis(), sightings);
    }

    static long mebibytes(String quantity) {
        BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(quantity));
        return bytes.divide(BigDecimal.valueOf(1024L * 1024L), RoundingMode.CEILING).longValueExact();
    }
}
