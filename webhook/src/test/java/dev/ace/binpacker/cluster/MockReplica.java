package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.DecisionLog;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.controller.LeaseLeadership;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.cluster.view.NamespaceWatch;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.Reservation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** One ACE replica as {@link ClusterBootstrap} starts it in a cluster ({@link InCluster}), with short timings, plus its webhook. */
final class MockReplica implements AutoCloseable {
    static final InCluster.Settings FAST = new InCluster.Settings("ace-system", "ace-binpacker",
            new LeaseLeadership.Timing(Duration.ofMillis(2_000), Duration.ofMillis(1_500), Duration.ofMillis(300)),
            Duration.ofMillis(200), new ReconcilerConfig(5_000, 1_000, 500));

    final String name;
    final KubernetesClient client;
    final Readiness readiness = new Readiness();
    final Fleet fleet = new Fleet(readiness);
    final NamespaceWatch namespaces = new NamespaceWatch();
    final PendingDemand pending;
    final CountingMetrics metrics = new CountingMetrics();
    final InCluster cluster;
    final AdmissionEngine engine;
    private final ObjectMapper json;

    MockReplica(String name, KubernetesClient client, ObjectMapper json) {
        this(name, client, json, FAST, Map.of());
    }

    /**
     * Admits through production's wiring ({@link AdmissionWiring}, as {@link ClusterBeans} builds it in a cluster: the
     * pending cap over this replica's Pod informer), with the packaged settings and {@code overrides} over them.
     */
    MockReplica(String name, KubernetesClient client, ObjectMapper json, InCluster.Settings settings, Map<String, String> overrides) {
        this.name = name;
        this.client = client;
        this.json = json;
        this.pending = new PendingDemand(metrics);
        this.cluster = new InCluster(client, fleet, namespaces, pending, metrics, readiness, json, settings, name);
        this.engine = AdmissionWiring.of(OfflineConfig.packaged(overrides), new AdmissionWiring.Edge(fleet::allocator, pending, json, false,
                fleet::sightings, namespaces, metrics, System::currentTimeMillis, DecisionLog.NONE)).engine();
    }

    MockReplica start() {
        cluster.start();
        return this;
    }

    boolean ready() { return readiness.allReady(); }

    boolean leading() { return cluster.leadership().leading(); }

    /** The API server calling /mutate: the pod as patched (not created), null when denied. Exceptions are the webhook's 500. */
    Pod admit(Pod pod) {
        String uid = UUID.randomUUID().toString();
        JsonNode obj = json.valueToTree(pod);
        String n = pod.getMetadata().getName() == null ? "" : pod.getMetadata().getName();
        AdmissionResult r = engine.mutate(new AdmissionRequest(uid, ReviewCodec.API_VERSION, "Pod", null, "CREATE",
                pod.getMetadata().getNamespace(), n, false, obj, pod));
        if (!r.allowed()) return null;
        if (r.patch() == null) return pod;
        try {
            byte[] patch = Base64.getDecoder().decode(new ReviewCodec(json).complete(uid, ReviewCodec.API_VERSION, r).at("/response/patch").asText());
            return json.treeToValue(JsonPatch.apply(json.readTree(patch), obj), Pod.class);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** ACE's entries in this replica's view (not what it counts for other pods). */
    List<Reservation> entries() {
        return fleet.allocator().read(a -> a.ledger().all().stream().filter(Reservation::isAce).toList());
    }

    @Override
    public void close() {
        cluster.close();
        client.close();
    }
}
