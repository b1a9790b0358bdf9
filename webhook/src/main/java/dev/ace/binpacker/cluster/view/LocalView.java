package dev.ace.binpacker.cluster.view;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.node.NodeMapper;
import dev.ace.binpacker.cluster.node.NodeShape;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.workload.InvalidPodException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * One replica's view of the cluster, fed by watch events (fabric8 informers in production, a
 * deterministic double in tests): nodes and their allocatable GPUs, every pod's facts, the gated
 * queue, and the ledger objects mirrored into the local allocator. After each event the affected
 * node's usage is counted again: ACE's entries plus the pods they do not cover, charged to the GPUs
 * the node agent reports ({@code ace.dev/gpu-allocation}) where it has, with the GPUs it reports
 * unhealthy out of capacity, and the GPUs of allocated DRA ResourceClaims there. ACE's entries themselves change only through the leader's writes to the
 * ledger objects. Every handler is idempotent, so the informers' initial lists may be processed twice.
 */
public final class LocalView {
    private static final Logger LOG = Logger.getLogger(LocalView.class);

    private final Supplier<Allocator> allocator;
    private final PodCache pods;
    private final PendingDemand pending;
    private final Metrics metrics;
    private final ObjectMapper json;
    private final NodeMapper mapper = NodeMapper.standard();
    private final NodeReports reports;
    private final Map<String, LedgerDoc.Capacity> nodes = new ConcurrentHashMap<>();
    private final Map<String, NodeShape> shapes = new ConcurrentHashMap<>();
    private final Set<String> copiesSeen = Collections.newSetFromMap(new ConcurrentHashMap<>());
    private final Set<String> ledgers = ConcurrentHashMap.newKeySet();
    /** The resourceVersion of each node's GpuLedger object last mirrored (guarded by itself). */
    private final Map<String, String> ledgerVersions = new java.util.HashMap<>();
    private final Set<String> touched = ConcurrentHashMap.newKeySet();
    /** UIDs of the pods whose facts changed or that left since the last drain (the leader maps them to its keys). */
    private final Set<String> touchedPods = ConcurrentHashMap.newKeySet();
    private final GroupBook groups = new GroupBook(dev.ace.binpacker.workload.group.GroupResolver.DEFAULT_MAX_SIZE);
    /** Report text per node from its GpuNodeReport object; it wins over the Node annotation older agents wrote. */
    private final Map<String, String> reportObjects = new ConcurrentHashMap<>();
    /** The {@code ace.dev/gpu-allocation} annotation per node (agents before GpuNodeReport), read only where no object is. */
    private final Map<String, String> legacyReports = new ConcurrentHashMap<>();
    private final NodeRequests requests = new NodeRequests();
    private final ClaimBook claims = new ClaimBook();
    /** DRA drivers whose allocated devices are GPUs ({@code ace.dra.gpu-drivers}). */
    private volatile Set<String> gpuDrivers = ClaimGpus.DEFAULT_DRIVERS;
    private volatile Runnable onChange = () -> { };
    private volatile Consumer<LedgerDoc> ledgerSeen = d -> { };
    private volatile Consumer<String> ledgerDeleted = n -> { };

    public LocalView(Supplier<Allocator> allocator, PodCache pods, PendingDemand pending, Metrics metrics, ObjectMapper json,
                     NodeReports reports) {
        this.reports = reports;
        this.allocator = allocator;
        this.pods = pods;
        this.pending = pending;
        this.metrics = metrics;
        this.json = json;
    }

    /** Called after every change (wakes the leader's reconciler). */
    public void onChange(Runnable r) { this.onChange = r; }

    /** Told every ledger object the informer brings, and every deletion (the shared ledger writes from the newest version). */
    public void onLedger(Consumer<LedgerDoc> seen, Consumer<String> deleted) {
        this.ledgerSeen = seen;
        this.ledgerDeleted = deleted;
    }

    public PodCache pods() { return pods; }

    public PendingDemand pending() { return pending; }

    /** The ranks of multi-pod groups among the pods seen (issue 19). */
    public GroupBook groups() { return groups; }

    public Allocator allocator() { return allocator.get(); }

    public ObjectMapper json() { return json; }

    /**
     * A Node event. Only a changed {@link NodeShape} maps the node again and upserts it; a changed node
     * report only counts the node's usage again; anything else (kubelet status writes) costs two compares.
     */
    public void nodeChanged(Node node) {
        String name = node.getMetadata().getName();
        NodeShape shape = NodeShape.of(node);
        boolean reshaped = !shape.equals(shapes.get(name)) || !nodes.containsKey(name);
        if (reshaped) {
            var info = mapper.map(node);
            nodes.put(name, new LedgerDoc.Capacity(info.gpuCount(), shape.allocatable(), 0));
            allocator.get().upsertNode(info);
            shapes.put(name, shape);
        }
        String legacy = NodeShape.report(node);
        if (legacy == null) legacyReports.remove(name);
        else legacyReports.put(name, legacy);
        boolean reported = reports.update(name, reportText(name));
        if (!reshaped && !reported) return;
        refresh(name);
        onChange.run();
    }

    /**
     * A GpuNodeReport event: the node agent's report, as the spec's JSON text (null when the object was deleted).
     * Only counts the node's usage again when the report this replica believes changed.
     */
    public void reportChanged(String node, String text) {
        if (text == null) reportObjects.remove(node);
        else reportObjects.put(node, text);
        if (!reports.update(node, reportText(node))) return;
        refresh(node);
        onChange.run();
    }

    /** Nodes with a GpuNodeReport object, for {@link #retain} after a fresh list. */
    Set<String> reportNodes() { return new LinkedHashSet<>(reportObjects.keySet()); }

    private String reportText(String node) {
        String text = reportObjects.get(node);
        return text != null ? text : legacyReports.get(node);
    }

    public void nodeGone(String name) {
        legacyReports.remove(name);
        shapes.remove(name);
        requests.forgetNode(name);
        reports.forget(name);
        nodes.remove(name);
        allocator.get().removeNode(name);
        touch(name);
        onChange.run();
    }

    /** Which DRA drivers' devices count as GPUs (default {@code gpu.nvidia.com}); set before the informers start. */
    public void countClaimsOf(Set<String> drivers) { this.gpuDrivers = Set.copyOf(drivers); }

    /**
     * A ResourceClaim event: the GPUs an allocated claim holds on its node count as held there, like the GPUs of a
     * pod ACE did not place; a claim deallocated or deleted frees them. Only a change of those GPUs counts the node again.
     */
    public void claimChanged(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim) {
        claimsMoved(claims.put(ClaimGpus.of(claim, gpuDrivers)));
    }

    public void claimGone(String uid) { claimsMoved(claims.remove(uid)); }

    /** After a fresh list of ResourceClaims (or none: the API is absent): the claims it no longer has were deleted. */
    public void retainClaims(Set<String> uids) {
        for (String uid : claims.uids()) if (!uids.contains(uid)) claimGone(uid);
    }

    /** Allocated ResourceClaims holding GPUs that this replica counts. */
    public int claimsCounted() { return claims.size(); }

    private void claimsMoved(Set<String> nodes) {
        if (nodes.isEmpty()) return;
        nodes.forEach(this::refresh);
        onChange.run();
    }

    public void podChanged(Pod pod) {
        PodFacts f = PodFacts.of(pod, json);
        boolean regrouped = groups.seen(pod, f); // before the filter below: a rank without GPUs still makes its group whole
        Set<String> requestsMoved = countRequests(pod, f);
        if (f.gpus() == 0 && !f.gated() && f.reservationId() == null) {
            // Most pods of a cluster hold no GPU and never will (extended resources cannot be resized): only their
            // other requests on GPU nodes are kept, as sums.
            if (pods.get(f.uid()).isPresent()) podGone(f.uid());
            else if (!requestsMoved.isEmpty()) requestsMoved.forEach(this::pushRequests);
            if (regrouped) onChange.run(); // a rank without GPUs: its group may be whole now
            return;
        }
        Optional<PodFacts> old = pods.put(f); // kept at its new resource version (a precondition of ACE's deletes)
        // An update that changes none of the facts, the pod's group or its requests (kubelet's status, conditions) is no
        // event: nothing ACE decides on moves.
        if (old.isPresent() && old.get().sameFactsAs(f) && !regrouped && requestsMoved.isEmpty()) return;
        touchedPods.add(f.uid());
        old.map(PodFacts::reservationNode).ifPresent(this::touch);
        touch(f.reservationNode()); // a pinned pod not bound yet: its node's key
        queue(pod, f);
        old.map(PodFacts::nodeName).filter(n -> !n.equals(f.nodeName())).ifPresent(this::refresh);
        if (f.nodeName() != null) refresh(f.nodeName());
        onChange.run();
    }

    public void podGone(String uid) {
        requests.remove(uid).forEach(this::pushRequests);
        Optional<PodFacts> old = pods.remove(uid);
        touchedPods.add(uid);
        old.map(PodFacts::reservationNode).ifPresent(this::touch);
        groups.forget(uid);
        pending.remove(uid);
        copiesSeen.remove(uid);
        old.map(PodFacts::nodeName).ifPresent(this::refresh);
        onChange.run();
    }

    /**
     * A version of a node's GpuLedger object, from the informer or from a fresh read (the leader's in-flight check).
     * A version older than one already applied is not mirrored: a fresh read can go ahead of the watch, and the
     * watch's older event arriving after it would drop entries the store holds (their GPUs would look free here
     * until the next event; the compare-and-swap still refuses them, but the namespace cap miscounts).
     */
    public void ledgerChanged(LedgerDoc doc) {
        ledgerSeen.accept(doc);
        synchronized (ledgerVersions) {
            String applied = ledgerVersions.get(doc.node());
            if (applied != null && LedgerDoc.olderVersion(doc.resourceVersion(), applied)) return;
            ledgerVersions.put(doc.node(), doc.resourceVersion());
            ledgers.add(doc.node());
            allocator.get().mirror(doc.node(), doc.entries());
        }
        refresh(doc.node());
        onChange.run();
    }

    public void ledgerGone(String node) {
        ledgerDeleted.accept(node);
        synchronized (ledgerVersions) {
            ledgerVersions.remove(node);
            ledgers.remove(node);
            allocator.get().mirror(node, java.util.List.of());
        }
        refresh(node);
        onChange.run();
    }

    /**
     * After a fresh list (an informer restarted): what this view knows that the list no longer has was
     * deleted while nobody watched. Idempotent, like every handler.
     */
    public void retain(Set<String> nodeNames, Set<String> ledgerNodes, Set<String> podUids) {
        for (String n : nodeNames()) if (!nodeNames.contains(n)) nodeGone(n);
        for (String n : new java.util.ArrayList<>(ledgers)) if (!ledgerNodes.contains(n)) ledgerGone(n);
        for (PodFacts f : pods.all()) if (!podUids.contains(f.uid())) podGone(f.uid());
    }

    /**
     * True when this replica's informer has seen the live pod an ACE reservation was made for, carrying it: the
     * reservation is no longer waiting for its pod, whether or not the leader has tied it in the ledger yet.
     */
    public boolean podSeen(Reservation r) {
        return pods.carrying(r.id()).stream().anyMatch(p -> !p.terminal() && (p.uid().equals(r.owner().podUid()) || p.ownedBy(r.owner())));
    }

    /** A node's GPUs as this replica sees them (board, allocatable, used by pods ACE did not place). */
    public LedgerDoc.Capacity capacity(String node) {
        LedgerDoc.Capacity c = nodes.getOrDefault(node, LedgerDoc.Capacity.UNKNOWN);
        return new LedgerDoc.Capacity(c.gpus(), c.usable(), allocator.get().observedOn(node));
    }

    public Set<String> nodeNames() { return new LinkedHashSet<>(nodes.keySet()); }

    public boolean hasNode(String name) { return nodes.containsKey(name); }

    /**
     * The node agent's report as this replica believes it ({@link NodeReports}), without the pods the
     * informers know finished, left the node or were deleted (the agent has not caught up with them).
     */
    public Optional<NodeReport> report(String node) {
        return reports.effective(node).map(r -> {
            List<NodeReport.PodDevices> live = r.pods().stream().filter(p -> !behind(node, p)).toList();
            return live.size() == r.pods().size() ? r
                    : new NodeReport(r.generation(), r.observedAt(), r.policy(), r.gpuCount(), r.healthy(), live, r.unmapped());
        });
    }

    private boolean behind(String node, NodeReport.PodDevices p) {
        List<PodFacts> named = pods.named(p.namespace(), p.name());
        if (named.isEmpty()) return pods.seenGoneByName(p.namespace(), p.name());
        return named.stream().noneMatch(f -> !f.terminal() && node.equals(f.nodeName()));
    }

    /** Every replica: nodes whose empty report outlived its grace are counted again (every GPU leaves capacity). */
    public void expireReports() {
        for (String node : reports.graceEnded()) {
            refresh(node);
            onChange.run();
        }
    }

    /** Nodes whose report, entries, pods or counts changed, or that left, since the last call: the keys the leader looks at again. */
    public Set<String> drainTouched() { return drain(touched); }

    /** UIDs of the pods whose facts changed or that were deleted since the last call. */
    public Set<String> drainTouchedPods() { return drain(touchedPods); }

    /** Keys of the groups whose ranks arrived, changed or left since the last call ({@link GroupBook#drainTouched}). */
    public Set<String> drainTouchedGroups() { return groups.drainTouched(); }

    private static Set<String> drain(Set<String> from) {
        Set<String> out = new LinkedHashSet<>();
        for (var it = from.iterator(); it.hasNext(); ) {
            out.add(it.next());
            it.remove();
        }
        return out;
    }

    private void touch(String node) {
        if (node != null) touched.add(node);
    }

    /**
     * A bound, non-terminal pod on a GPU node counts its requests besides GPUs there (fit before pin); any other
     * is forgotten. Returns the nodes whose sums changed.
     */
    private Set<String> countRequests(Pod pod, PodFacts f) {
        LedgerDoc.Capacity c = f.nodeName() == null ? null : nodes.get(f.nodeName());
        boolean counted = c != null && c.gpus() > 0 && !f.terminal();
        return requests.put(f.uid(), counted ? f.nodeName() : null,
                counted ? dev.ace.binpacker.workload.PodRequests.besidesGpus(pod) : dev.ace.binpacker.placement.Resources.NONE);
    }

    /** What the pods bound to a node request besides GPUs, to the allocator (with the ACE reservations they carry). */
    private void pushRequests(String node) {
        if (!nodes.containsKey(node)) return;
        Set<String> ids = new java.util.HashSet<>();
        for (PodFacts p : pods.onNode(node)) if (p.reservationId() != null && !p.terminal()) ids.add(p.reservationId());
        allocator.get().requested(node, requests.on(node), ids);
    }

    /** What the pods bound to a node request besides whole GPUs, as this replica counts them. */
    public dev.ace.binpacker.placement.Resources requestedOn(String node) { return requests.on(node); }

    /** Counts the node's usage again: ACE's entries plus what the pods bound to it use beyond them. */
    public void refresh(String node) {
        LedgerDoc.Capacity c = nodes.get(node);
        if (c == null) return; // its Node event counts it when it arrives
        touched.add(node);
        pushRequests(node);
        var on = pods.onNode(node);
        NodeReport report = report(node).orElse(null);
        List<dev.ace.binpacker.placement.Holding> claimed = claims.holdings(node);
        NodeUsage.Result r = allocator.get().read(a -> {
            NodeUsage.Result u = NodeUsage.of(node, on, a.ledger(), report);
            List<dev.ace.binpacker.placement.Holding> held = new java.util.ArrayList<>(u.holdings());
            held.addAll(claimed);
            a.observe(node, c.usable(), unhealthy(a, node, report), held);
            return u;
        });
        for (PodFacts copy : r.copies()) {
            if (copiesSeen.add(copy.uid())) {
                metrics.ledgerConflict();
                LOG.warnf("pod %s carries reservation %s, which is tied to another pod; its GPUs are counted as its own",
                        copy.key(), copy.reservationId());
            }
        }
    }

    private void queue(Pod pod, PodFacts f) {
        if (!f.gated() || f.terminal()) {
            pending.remove(f.uid());
            return;
        }
        if (pending.contains(f.uid())) return;
        try {
            PlacementRequest r = allocator.get().read(a -> {
                try {
                    return GateRelease.waitingFor(pod, f.uid(), a);
                } catch (InvalidPodException e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
            });
            pending.add(new PendingDemand.Waiting(f.uid(), f.key(), r, f.priority(), f.createdMillis()));
        } catch (IllegalArgumentException e) {
            LOG.warnf("gated pod %s cannot be placed by ACE: %s", f.key(), e.getMessage());
        }
    }

    /** GPUs of the node's board its report does not offer; none when the report does not describe this board. */
    private static long unhealthy(Allocator a, String node, NodeReport report) {
        int i = a.state().indexOf(node);
        if (report == null || i < 0 || a.state().node(i).board() == null) return 0;
        var board = a.state().node(i).board();
        return report.gpuCount() == board.gpuCount() ? board.allGpus() & ~report.healthy() : 0;
    }
}
