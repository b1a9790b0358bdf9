package dev.ace.binpacker.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.flipkart.zjsonpatch.JsonPatch;
import com.flipkart.zjsonpatch.JsonPatchApplicationException;
import dev.ace.binpacker.admission.Json;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.ledger.LedgerStore;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A deterministic, in-memory stand-in for the API server as ACE meets it (FACTS "How a real cluster
 * behaves"): resourceVersion compare-and-swap on ledger objects, JSON patches whose failed {@code test}
 * answers 422, node affinity and nodeSelector immutable once a pod's gates are gone (422), deletes with
 * a resourceVersion precondition, bound pods that stay Terminating until their kubelet lets go, and
 * watch events queued per replica and delivered only when the test says so. Faults are armed by the
 * test. Single-threaded by design: the soak drives it step by step.
 */
public final class FakeCluster {
    final ObjectMapper json = Json.newMapper();
    final AtomicLong clock = new AtomicLong(1_000_000);
    final Faults faults = new Faults();
    final Map<String, Node> nodes = new TreeMap<>();
    final Map<String, Pod> pods = new LinkedHashMap<>();
    public final Map<String, LedgerDoc> docs = new TreeMap<>();
    final List<String> events = new ArrayList<>();
    final List<String> deletedByAce = new ArrayList<>();
    int gateReleases;
    final List<Watch> watches = new ArrayList<>();
    private final Random rnd;
    private long rv;

    public FakeCluster(long seed) { this.rnd = new Random(seed); }

    /** What the test has armed: the next matching calls fail. */
    static final class Faults {
        int ledgerWriteFailBefore;
        int ledgerWriteFailAfter;
        int podPatchFailBefore;
        int podPatchFailAfter;
        int podReadFail;
    }

    String nextRv() { return Long.toString(++rv); }

    String uid() { return new java.util.UUID(rnd.nextLong(), rnd.nextLong()).toString(); }

    void emit(Watch.Event e) { watches.forEach(w -> w.queue.add(e)); }

    // ---- nodes --------------------------------------------------------------------------------------------

    /** The node agent writes its node's GpuNodeReport: the spec's JSON text per node. */
    final java.util.Map<String, String> reports = new java.util.TreeMap<>();

    void putReport(String node, String text) {
        reports.put(node, text);
        emit(new Watch.ReportUp(node, text));
    }

    void putNode(Node n) {
        n.getMetadata().setResourceVersion(nextRv());
        nodes.put(n.getMetadata().getName(), n);
        emit(new Watch.NodeUp(copy(n, Node.class)));
    }

    // ---- pods ---------------------------------------------------------------------------------------------

    /** Creates a pod as the API server does: a UID, a name from generateName, a creation time. */
    Pod create(Pod p) {
        Pod pod = copy(p, Pod.class);
        var m = pod.getMetadata();
        if (m.getName() == null || m.getName().isEmpty()) m.setName(m.getGenerateName() + Long.toString(rnd.nextLong() & 0xffffffL, 36));
        if (find(m.getNamespace(), m.getName()).isPresent()) throw new PodApi.Refused(409, "pods \"" + m.getName() + "\" already exists");
        m.setUid(uid());
        m.setCreationTimestamp(Instant.ofEpochMilli(clock.get()).toString());
        if (pod.getStatus() == null) pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        pod.getStatus().setPhase(pod.getSpec().getNodeName() == null ? "Pending" : "Running");
        store(pod);
        return copy(pod, Pod.class);
    }

    void store(Pod pod) {
        pod.getMetadata().setResourceVersion(nextRv());
        pods.put(pod.getMetadata().getUid(), pod);
        emit(new Watch.PodUp(copy(pod, Pod.class)));
    }

    void removePod(String uid) {
        if (pods.remove(uid) != null) emit(new Watch.PodDown(uid));
    }

    Optional<Pod> find(String ns, String name) {
        return pods.values().stream().filter(p -> ns.equals(p.getMetadata().getNamespace()) && name.equals(p.getMetadata().getName())).findFirst();
    }

    /** The user (or a controller) deletes a pod: gone at once when unscheduled, Terminating when bound. */
    void deleteByUser(String uid) {
        Pod p = pods.get(uid);
        if (p == null) return;
        if (p.getSpec().getNodeName() == null) {
            removePod(uid);
        } else if (p.getMetadata().getDeletionTimestamp() == null) {
            p.getMetadata().setDeletionTimestamp(Instant.ofEpochMilli(clock.get()).toString());
            store(p);
        }
    }

    /** Kubelets let go of every Terminating pod. */
    void kubeletsFinish() {
        for (Pod p : new ArrayList<>(pods.values())) {
            if (p.getMetadata().getDeletionTimestamp() != null) removePod(p.getMetadata().getUid());
        }
    }

    void complete(String uid) {
        Pod p = pods.get(uid);
        if (p == null || p.getSpec().getNodeName() == null) return;
        p.getStatus().setPhase("Succeeded");
        store(p);
    }

    // ---- ledger objects -------------------------------------------------------------------------------------

    public final LedgerStore ledger = new LedgerStore() {
        @Override
        public Optional<LedgerDoc> get(String node) { return Optional.ofNullable(docs.get(node)); }

        @Override
        public LedgerDoc create(LedgerDoc doc) {
            if (docs.containsKey(doc.node())) throw new StaleLedgerException("already exists");
            return write(doc);
        }

        @Override
        public LedgerDoc update(LedgerDoc doc) {
            LedgerDoc cur = docs.get(doc.node());
            if (cur == null || !cur.resourceVersion().equals(doc.resourceVersion())) throw new StaleLedgerException("stale " + doc.node());
            return write(doc);
        }

        @Override
        public void delete(LedgerDoc doc) {
            LedgerDoc cur = docs.get(doc.node());
            if (cur == null || !cur.resourceVersion().equals(doc.resourceVersion())) throw new StaleLedgerException("stale " + doc.node());
            docs.remove(doc.node());
            emit(new Watch.DocDown(doc.node()));
        }

        private LedgerDoc write(LedgerDoc doc) {
            if (faults.ledgerWriteFailBefore > 0) {
                faults.ledgerWriteFailBefore--;
                throw new IllegalStateException("HTTP 500 on gpuledgers/" + doc.node());
            }
            LedgerDoc stored = new LedgerDoc(doc.node(), nextRv(), doc.capacity(), doc.entries(), doc.reportGeneration());
            docs.put(doc.node(), stored);
            emit(new Watch.DocUp(stored));
            if (faults.ledgerWriteFailAfter > 0) {
                faults.ledgerWriteFailAfter--;
                throw new IllegalStateException("timeout on gpuledgers/" + doc.node() + " (the write landed)");
            }
            return stored;
        }
    };

    // ---- pod writes the leader makes ----------------------------------------------------------------------------

    final PodApi podApi = new PodApi() {
        @Override
        public Optional<Pod> get(String namespace, String name) {
            if (faults.podReadFail > 0) {
                faults.podReadFail--;
                throw new IllegalStateException("HTTP 500 reading pod " + namespace + "/" + name);
            }
            return find(namespace, name).map(p -> copy(p, Pod.class));
        }

        @Override
        public void patch(String namespace, String name, ArrayNode ops) {
            Pod cur = find(namespace, name).orElseThrow(() -> new PodApi.Refused(404, "pods \"" + name + "\" not found"));
            if (faults.podPatchFailBefore > 0) {
                faults.podPatchFailBefore--;
                throw new IllegalStateException("HTTP 500 patching " + name);
            }
            JsonNode after;
            try {
                after = JsonPatch.apply(ops, json.valueToTree(cur));
            } catch (JsonPatchApplicationException e) {
                throw new PodApi.Refused(422, "the server rejected our request: " + e.getMessage());
            }
            Pod next = copy(after, Pod.class);
            refuseImmutableChange(cur, next);
            store(next);
            gateReleases++;
            if (faults.podPatchFailAfter > 0) {
                faults.podPatchFailAfter--;
                throw new IllegalStateException("timeout patching " + name + " (the patch landed)");
            }
        }

        @Override
        public void delete(String namespace, String name, String resourceVersion) {
            Pod cur = find(namespace, name).orElseThrow(() -> new PodApi.Refused(404, "pods \"" + name + "\" not found"));
            if (!cur.getMetadata().getResourceVersion().equals(resourceVersion)) {
                throw new PodApi.Refused(409, "precondition failed: resourceVersion " + resourceVersion);
            }
            deletedByAce.add(cur.getMetadata().getUid());
            deleteByUser(cur.getMetadata().getUid());
        }

        @Override
        public void event(PodFacts pod, String type, String reason, String message) {
            events.add(pod.key() + " " + reason + ": " + message);
        }
    };

    /** FACTS: once a pod's scheduling gates are gone its node affinity and nodeSelector are immutable; gates are never added. */
    static void refuseImmutableChange(Pod before, Pod after) {
        boolean wasGated = before.getSpec().getSchedulingGates() != null && !before.getSpec().getSchedulingGates().isEmpty();
        boolean nowGated = after.getSpec().getSchedulingGates() != null && !after.getSpec().getSchedulingGates().isEmpty();
        if (!wasGated && nowGated) throw new PodApi.Refused(422, "spec.schedulingGates: Forbidden: only deletion is allowed");
        if (wasGated) return;
        if (!Objects.equals(before.getSpec().getAffinity(), after.getSpec().getAffinity())
                || !Objects.equals(before.getSpec().getNodeSelector(), after.getSpec().getNodeSelector())) {
            throw new PodApi.Refused(422, "spec: Forbidden: pod updates may not change fields other than ... (node affinity of an ungated pod)");
        }
    }

    <T> T copy(Object o, Class<T> type) { return json.convertValue(o, type); }
}
