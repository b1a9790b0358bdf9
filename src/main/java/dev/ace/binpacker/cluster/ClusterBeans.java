package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingCap;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.PodPolicy;
import dev.ace.binpacker.admission.PolicyConfig;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.admission.WorkloadAdmission;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.MicrometerMetrics;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.PoolStats;
import io.fabric8.kubernetes.api.model.Quantity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.Map;

/** The composition root: config -> policy -> engine, one instance each. */
@ApplicationScoped
public class ClusterBeans {
    @Produces
    @Singleton
    ReviewCodec codec() { return new ReviewCodec(dev.ace.binpacker.admission.Json.newMapper()); }

    @Produces
    @Singleton
    Fleet fleet(Readiness readiness, MicrometerMetrics metrics) {
        Fleet f = new Fleet(readiness);
        metrics.bindCapacity(new CachedStats(f));
        return f;
    }

    @Produces
    @Singleton
    PendingDemand pending(MicrometerMetrics metrics) {
        PendingDemand p = new PendingDemand(metrics);
        metrics.bindWaiting(() -> p.oldestWaitSeconds(System.currentTimeMillis()));
        return p;
    }

    @Produces
    @Singleton
    ClusterMode.Choice modeChoice(AceConfig config) {
        return ClusterMode.choose(config.mode(), System.getProperty(ClusterMode.KUBECONFIG_PROPERTY), System.getenv(),
                ClusterMode.SERVICE_ACCOUNT_TOKEN, Path.of(System.getProperty("user.home", ".")));
    }

    @Produces
    @Singleton
    ClusterMode mode(ClusterMode.Choice choice) { return choice.mode(); }

    @Produces
    @Singleton
    NamespacePolicies namespaces(AceConfig config, ClusterMode mode, NamespaceWatch watch) {
        NamespaceMode unlabelled = NamespaceMode.parse(config.policy().defaultMode(), "ace.policy.default-mode");
        NamespacePolicies chosen;
        if (mode == ClusterMode.IN_CLUSTER) {
            watch.defaultMode(unlabelled);
            chosen = watch;
        } else {
            // The older standalone property still names the standalone default when set; else the one default for both modes.
            String standalone = config.standalone().defaultPolicy().orElse(unlabelled.label());
            chosen = new ConfiguredNamespacePolicies(config.standalone().namespacePolicies(),
                    NamespaceMode.parse(standalone, "ace.standalone.default-policy").label());
        }
        return config.policy().observeOnly() ? NamespacePolicies.observeOnly(chosen) : chosen;
    }

    @Produces
    @Singleton
    PodPolicy policy(Fleet fleet, AceConfig config, PendingDemand pending, ReviewCodec codec, ClusterMode mode) {
        AceConfig.Policy p = config.policy();
        PolicyConfig pc = new PolicyConfig(p.slicingTaintKey(), mebibytes(p.embeddingMemory()), mebibytes(p.interactiveMemory()),
                p.batchWholeGpu(), p.reserveFree8Cliques(), p.maxPendingPerNamespace());
        // Standalone has no Pod informer: no pod is ever seen, so every unseen reservation counts from its first millisecond.
        PendingCap cap = mode == ClusterMode.STANDALONE ? PendingCap.strict(p.maxPendingPerNamespace())
                : new PendingCap(p.maxPendingPerNamespace(), p.maxArrivingPerNamespace(), p.pendingGrace().toMillis(), fleet::sightings);
        return new PodPolicy(fleet::allocator, pc, pending, codec.mapper(), mode == ClusterMode.STANDALONE, cap);
    }

    @Produces
    @Singleton
    AdmissionEngine engine(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ReviewCodec codec, ObservedDecisions observed) {
        return new AdmissionEngine(policy, namespaces, metrics, codec.mapper(), System::currentTimeMillis, observed);
    }

    @Produces
    @Singleton
    WorkloadAdmission workloads(PodPolicy policy, NamespacePolicies namespaces, Metrics metrics, ReviewCodec codec, ObservedDecisions observed) {
        return new WorkloadAdmission(policy, namespaces, metrics, codec.mapper(), System::currentTimeMillis, observed);
    }

    static long mebibytes(String quantity) {
        BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(quantity));
        return bytes.divide(BigDecimal.valueOf(1024L * 1024L), RoundingMode.CEILING).longValueExact();
    }

    /** Capacity gauges are scraped, not pushed: recompute at most once a second under the allocator lock. */
    private static final class CachedStats implements java.util.function.Supplier<Map<Pool, PoolStats>> {
        private final Fleet fleet;
        private volatile Map<Pool, PoolStats> last;
        private volatile long at;

        CachedStats(Fleet fleet) { this.fleet = fleet; }

        @Override
        public Map<Pool, PoolStats> get() {
            long now = System.nanoTime();
            Map<Pool, PoolStats> s = last;
            if (s == null || now - at > 1_000_000_000L) {
                s = fleet.allocator().read(a -> PoolStats.of(a.state()));
                last = s;
                at = now;
            }
            return s;
        }
    }
}
