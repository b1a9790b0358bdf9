package dev.ace.binpacker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.PodPolicy;
import dev.ace.binpacker.admission.PolicyConfig;
import dev.ace.binpacker.admission.ReviewCodec;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.workload.AceKeys;
import dev.ace.binpacker.workload.Pods;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The in-cluster path against fabric8's CRUD mock API server: informers, ledger rebuild, release, gate release. */
@EnableKubernetesMockClient(crud = true)
class ClusterWatchTest {
    KubernetesClient client;

    private final ObjectMapper json = Json.newMapper();
    private final Readiness readiness = new Readiness();
    private final PendingDemand pending = new PendingDemand(Metrics.NOOP);
    private final java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());
    private Fleet fleet;
    private ClusterWatch watch;
    private AdmissionEngine engine;

    @BeforeEach
    void setUp() throws Exception {
        for (Node n : NodeListLoader.demo()) {
            if (n.getMetadata().getName().equals("hgx-h100-0")) client.nodes().resource(n).create();
        }
        fleet = new Fleet(readiness);
        fleet.load(java.util.List.of());
        NamespaceWatch namespaces = new NamespaceWatch();
        engine = new AdmissionEngine(new PodPolicy(fleet::allocator, PolicyConfig.defaults(), pending, json, false),
                namespaces, Metrics.NOOP, json, now::get);
        watch = new ClusterWatch(client, fleet, namespaces, pending, Metrics.NOOP, readiness, json, now::get);
    }

    @AfterEach
    void tearDown() { watch.close(); }

    private Pod admitAndCreate(Pod pod, String uid) {
        JsonNode obj = json.valueToTree(pod);
        AdmissionResult r = engine.mutate(new AdmissionRequest(uid, ReviewCodec.API_VERSION, "Pod", null, "CREATE", "ml",
                pod.getMetadata().getName(), false, obj, pod));
        assertTrue(r.allowed());
        try {
            byte[] patch = Base64.getDecoder().decode(new ReviewCodec(json).complete(uid, ReviewCodec.API_VERSION, r).at("/response/patch").asText());
            Pod patched = json.treeToValue(com.flipkart.zjsonpatch.JsonPatch.apply(json.readTree(patch), obj), Pod.class);
            return client.pods().inNamespace("ml").resource(patched).create();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Pod tp(int n, String name) {
        Pod p = Pods.gpuPod("vllm/vllm-openai", "[--tensor-parallel-size, '" + n + "']", Integer.toString(n), null);
        p.getMetadata().setName(name);
        return p;
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("never happened: " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void informers_sync_nodes_then_readiness_goes_up() {
        assertFalse(readiness.snapshot().getOrDefault("informer-pods", false));
        watch.start();
        assertTrue(readiness.allReady(), readiness.snapshot().toString());
        assertEquals(1, fleet.allocator().state().liveNodes());
    }

    @Test
    void the_ledger_is_rebuilt_from_pod_annotations_at_start_and_released_when_the_pod_goes() throws Exception {
        watch.start();
        Pod created = admitAndCreate(tp(8, "big"), "uid-big");
        // A restarted replica: fresh ledger, rebuilt from the pod annotation by a new informer.
        watch.close();
        fleet.load(java.util.List.of());
        watch = new ClusterWatch(client, fleet, new NamespaceWatch(), pending, Metrics.NOOP, readiness, json, now::get);
        watch.start();
        eventually(() -> fleet.allocator().reservation("uid-big").map(r -> !r.pending()).orElse(false), "reservation adopted and confirmed");
        client.pods().inNamespace("ml").resource(created).delete();
        eventually(() -> fleet.allocator().ledger().size() == 0, "reservation released on delete");
    }

    @Test
    void a_gated_pod_is_released_onto_a_clique_when_capacity_frees() throws Exception {
        watch.start();
        Pod big = admitAndCreate(tp(8, "big"), "uid-big");
        Pod waiting = admitAndCreate(tp(4, "waiting"), "uid-waiting");
        assertTrue(waiting.getSpec().getSchedulingGates().stream().anyMatch(g -> g.getName().equals(AceKeys.GATE)));
        eventually(() -> pending.size() == 1, "gated pod queued from the informer");
        client.pods().inNamespace("ml").resource(big).delete();
        eventually(() -> {
            Pod p = client.pods().inNamespace("ml").withName("waiting").get();
            return p.getSpec().getSchedulingGates().isEmpty() && p.getMetadata().getAnnotations().containsKey(AceKeys.RESERVATION);
        }, "gate removed and reservation written");
        Pod released = client.pods().inNamespace("ml").withName("waiting").get();
        assertEquals("hgx-h100-0", released.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().get(0).getMatchExpressions().get(0).getValues().get(0));
        assertEquals(0, pending.size());
        assertEquals(1, fleet.allocator().ledger().size());
    }

    @Test
    void a_reservation_whose_pod_never_appears_expires() throws Exception {
        watch.start();
        JsonNode obj = json.valueToTree(tp(4, "ghost"));
        Pod ghost = tp(4, "ghost");
        engine.mutate(new AdmissionRequest("uid-ghost", ReviewCodec.API_VERSION, "Pod", null, "CREATE", "ml", "ghost", false, obj, ghost));
        assertEquals(1, fleet.allocator().ledger().size());
        watch.expire(TimeUnit.MINUTES.toMillis(5));
        assertEquals(1, fleet.allocator().ledger().size(), "still within the TTL");
        now.addAndGet(TimeUnit.MINUTES.toMillis(6));
        watch.expire(TimeUnit.MINUTES.toMillis(5));
        assertEquals(0, fleet.allocator().ledger().size());
    }
}
