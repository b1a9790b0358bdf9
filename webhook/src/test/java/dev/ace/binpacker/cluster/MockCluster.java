package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.cluster.ledger.CrdLedgerStore;
import dev.ace.binpacker.cluster.ledger.LedgerCodec;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.cluster.report.NodeReportStore;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A stand-in for a real cluster over HTTP: fabric8's CRUD mock behind {@link RealisticDispatcher}, a
 * kube-scheduler that binds pods ({@link #schedule}), kubelets that finish and fail pods, and the
 * ACE replicas under test, each with its own client, informers and Lease campaign.
 */
public final class MockCluster implements AutoCloseable {
    final ObjectMapper json = Json.newMapper();
    final RealisticDispatcher api = new RealisticDispatcher(json);
    final KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(),
            new HashMap<>(), api, false);
    final KubernetesClient client;
    private final List<MockReplica> replicas = new ArrayList<>();

    MockCluster() {
        server.init();
        client = server.createClient();
    }

    MockReplica replica(String name) {
        MockReplica r = new MockReplica(name, server.createClient(), json);
        replicas.add(r);
        return r;
    }

    /** @param overrides {@code ace.*} settings over the packaged ones (e.g. the pending cap's) */
    MockReplica replica(String name, InCluster.Settings settings, java.util.Map<String, String> overrides) {
        MockReplica r = new MockReplica(name, server.createClient(), json, settings, overrides);
        replicas.add(r);
        return r;
    }

    void node(Node n) { client.nodes().resource(n).create(); }

    void namespace(String name, String policy) {
        var b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
        if (policy != null) b.editMetadata().addToLabels(AceKeys.POLICY, policy).endMetadata();
        client.namespaces().resource(b.build()).create();
    }

    Pod create(Pod p) { return client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).create(); }

    Optional<Pod> pod(String ns, String name) { return Optional.ofNullable(client.pods().inNamespace(ns).withName(name).get()); }

    /** kube-scheduler: binds every ungated, unbound pod to the first node (by name) its constraints and allocatable allow. */
    int schedule() {
        List<Node> nodes = new ArrayList<>(client.nodes().list().getItems());
        nodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        List<Pod> pods = new ArrayList<>(client.pods().inAnyNamespace().list().getItems());
        pods.sort(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp()));
        int bound = 0;
        for (Pod p : pods) {
            if (p.getSpec().getNodeName() != null || p.getMetadata().getDeletionTimestamp() != null) continue;
            if (p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty()) continue;
            if (p.getStatus() != null && ("Succeeded".equals(p.getStatus().getPhase()) || "Failed".equals(p.getStatus().getPhase()))) continue;
            for (Node n : nodes) {
                if (!FakeScheduler.allows(p, n) || FakeScheduler.free(pods, n) < dev.ace.binpacker.workload.GpuCount.held(p.getSpec())) continue;
                p.getSpec().setNodeName(n.getMetadata().getName());
                merge(p, "{\"spec\":{\"nodeName\":\"" + n.getMetadata().getName() + "\"},\"status\":{\"phase\":\"Running\"}}");
                bound++;
                break;
            }
        }
        return bound;
    }

    /** The kubelet reports the pod's end (a failed replica, a finished job). */
    void phase(Pod p, String phase) { merge(p, "{\"status\":{\"phase\":\"" + phase + "\"}}"); }

    void setAllocatable(String node, int gpus) {
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"status\":{\"allocatable\":{\"" + AceKeys.GPU + "\":\"" + gpus + "\"}}}");
    }

    /** The node agent publishing what the kubelet reports, as it does: its node's GpuNodeReport object, made or replaced. */
    void agentReports(String node, dev.ace.binpacker.truth.NodeReport r) {
        NodeReportStore store = new NodeReportStore(client);
        if (store.get(node).isPresent()) store.replace(node, r);
        else store.create(node, r);
    }

    /** What an agent before GpuNodeReport did: a merge patch of the {@code ace.dev/gpu-allocation} annotation on its Node. */
    void legacyAgentReports(String node, dev.ace.binpacker.truth.NodeReport r) {
        var patch = json.createObjectNode();
        patch.putObject("metadata").putObject("annotations").put(AceKeys.GPU_ALLOCATION, NodeReportJson.write(r));
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }

    /** Events recorded on a pod, as {@code reason: message}. */
    List<String> events(String namespace, String pod) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> pod.equals(e.getInvolvedObject().getName())).map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    private void merge(Pod p, String patch) {
        client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    List<GenericKubernetesResource> ledgerObjects() {
        return client.genericKubernetesResources(CrdLedgerStore.CONTEXT).list().getItems();
    }

    /** The pod as replica {@code r}'s /mutate answered it (asserted admitted), then created on the API server. */
    Pod admitAndCreate(MockReplica r, Pod pod) {
        Pod out = r.admit(pod);
        org.junit.jupiter.api.Assertions.assertNotNull(out, "admitted");
        return create(out);
    }

    /** Every entry of every GpuLedger object the API server holds now. */
    List<dev.ace.binpacker.placement.Reservation> storeEntries() {
        return ledgerDocs().stream().flatMap(d -> d.entries().stream()).toList();
    }

    List<LedgerDoc> ledgerDocs() {
        LedgerCodec codec = new LedgerCodec(json);
        return ledgerObjects().stream().map(codec::read).toList();
    }

    public static void eventually(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("never happened: " + what);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void close() {
        replicas.forEach(MockReplica::close);
        client.close();
        server.destroy();
    }
}
