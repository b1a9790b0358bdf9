package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.DecisionLog;
import dev.ace.binpacker.admission.NamespaceMode;
import dev.ace.binpacker.admission.PendingCap;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.cluster.controller.Reconciler;
import dev.ace.binpacker.cluster.controller.ReconcilerConfig;
import dev.ace.binpacker.cluster.ledger.LedgerStore;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.NodeReports;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.PackerConfig;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One ACE replica wired as {@link InCluster} wires it, but over test ports: its own allocator, pod
 * cache, gated queue and view, the shared ledger on a {@link LedgerStore}, the reconciler writing
 * through a {@link PodApi}, and the admission engine a webhook request reaches.
 */
final class Replica {
    final String name;
    final Allocator allocator;
    final LocalView view;
    final PendingDemand pending = new PendingDemand(Metrics.NOOP);
    final Reconciler reconciler;
    final AdmissionEngine engine;
    final AtomicLong conflicts = new AtomicLong();
    final CountingMetrics metrics = new CountingMetrics();
    private final ObjectMapper json;
    private final ReviewCodec codec;

    Replica(String name, LedgerStore store, PodApi api, ObjectMapper json, ReconcilerConfig config, LongSupplier clock,
            Map<String, NamespaceMode> modes) {
        this.name = name;
        this.json = json;
        this.codec = new ReviewCodec(json);
        LocalView[] v = new LocalView[1];
        SharedLedger shared = new SharedLedger(store, n -> v[0].capacity(n), conflicts::incrementAndGet);
        this.allocator = new Allocator(new ClusterState(), PackerConfig.defaults(), shared);
        this.view = new LocalView(() -> allocator, new PodCache(), pending, Metrics.NOOP, json,
                new NodeReports(config.emptyReportGraceMillis(), clock));
        v[0] = view;
        view.onLedger(shared::seen, shared::gone);
        this.reconciler = new Reconciler(view, shared, api, metrics, json, config, clock, clock);
        // Production's wiring and settings (AdmissionWiring, as ClusterBeans builds it in a cluster), with this replica's
        // view counting which reservations' pods have arrived, as InCluster gives it to the Fleet.
        PendingCap.Sightings seen = view::podSeen;
        this.engine = AdmissionWiring.of(OfflineConfig.packaged(), new AdmissionWiring.Edge(() -> allocator, pending, json, false,
                () -> seen, ns -> modes.getOrDefault(ns, NamespaceMode.ENFORCE), Metrics.NOOP, clock, DecisionLog.NONE)).engine();
    }

    /**
     * The API server calling this replica's /mutate for {@code pod}: the pod as it would be created, or
     * the pod unchanged when the webhook failed (HTTP 500 under {@code failurePolicy: Ignore}), or null
     * when it was denied.
     */
    Pod admit(Pod pod, String requestUid) {
        JsonNode obj = json.valueToTree(pod);
        String name = pod.getMetadata().getName() == null ? "" : pod.getMetadata().getName();
        AdmissionRequest req = new AdmissionRequest(requestUid, ReviewCodec.API_VERSION, "Pod", null, "CREATE",
                pod.getMetadata().getNamespace(), name, false, obj, pod);
        AdmissionResult r;
        try {
            r = engine.mutate(req);
        } catch (RuntimeException e) {
            return pod; // failed open
        }
        if (!r.allowed()) return null;
        if (r.patch() == null) return pod;
        try {
            byte[] patch = Base64.getDecoder().decode(codec.complete(requestUid, ReviewCodec.API_VERSION, r).at("/response/patch").asText());
            return json.treeToValue(JsonPatch.apply(json.readTree(patch), obj), Pod.class);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
