package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.NamespacePolicies;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.PodPolicy;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.admission.WorkloadAdmission;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.MicrometerMetrics;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.PoolStats;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Map;

/** The composition root of {@code serve}: config -> policy -> engine, one instance each, built by {@link AdmissionWiring}. */
@ApplicationScoped
public class ClusterBeans {
    @Produces
    @Singleton
    ReviewCodec codec() { return new ReviewCodec(dev.ace.binpacker.admission.Json.newMapper()); }

    @Produces
    @Singleton
    Fleet fleet(Readiness readiness, MicrometerMetrics metrics, AceConfig config) {
        Fleet f = new Fleet(readiness, config.queue().starvationBound().toMillis());
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
    AdmissionWiring wiring(Fleet fleet, AceConfig config, PendingDemand pending, ReviewCodec codec, ClusterMode mode,
                           NamespacePolicies namespaces, Metrics metrics, ObservedDecisions observed) {
        return AdmissionWiring.of(config, new AdmissionWiring.Edge(fleet::allocator, pending, codec.mapper(),
                mode == ClusterMode.STANDALONE, fleet::sightings, namespaces, metrics, System::currentTimeMillis, observed));
    }

    @Produces
    @Singleton
    PodPolicy policy(AdmissionWiring w) { return w.policy(); }

    @Produces
    @Singleton
    AdmissionEngine engine(AdmissionWiring w) { return w.engine(); }

    @Produces
    @Singleton
    WorkloadAdmission workloads(AdmissionWiring w) { return w.workloads(); }

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
