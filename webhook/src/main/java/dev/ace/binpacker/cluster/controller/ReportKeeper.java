package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.truth.Drift;
import dev.ace.binpacker.truth.DriftText;
import dev.ace.binpacker.truth.LedgerEntry;
import dev.ace.binpacker.truth.NodeReconciler;
import dev.ace.binpacker.truth.NodeReport;
import dev.ace.binpacker.truth.Reconciliation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader takes each node's word over ACE's choice (DESIGN "Truth and trust"), one node per key. For a
 * node whose report or entries changed since it last looked (the key comes with the node's events): the ledger object's entries and the report (without
 * pods the informers know finished or gone) go through {@link NodeReconciler}, and the result is written
 * with compare-and-swap, judged again on every re-read: entries re-keyed to the GPUs their pods really
 * hold and marked exact, entries of pods not started yet moved off GPUs that turned out taken, displaced
 * ones dropped and handed to {@link PinRepair}, duplicates dropped. Every replica's mirror follows the
 * write. A report of a lower generation than the object records is stale and ignored. Each drift is
 * counted ({@code ace_binding_drift_total{kind}}) and told to its pod in an Event once, not once per pass;
 * a TP pod whose GPUs the node confirmed gets an Event saying so.
 */
final class ReportKeeper implements KeyReconciler<String> {
    private static final Logger LOG = Logger.getLogger(ReportKeeper.class);
    static final String DRIFT = "GpuBindingDrift";
    static final String CONFIRMED = "GpuBindingConfirmed";

    private final LocalView view;
    private final SharedLedger ledger;
    private final PodApi api;
    private final Metrics metrics;
    private final PinRepair pins;
    /** Per node, what the last application saw: nothing to do while it is unchanged. */
    private final Map<String, Seen> seen = new HashMap<>();
    /** Per node, the drift findings already counted and told; a finding that persists is not counted again. */
    private final Map<String, Set<String>> told = new HashMap<>();

    private record Key(String id, long gpus, String podUid, String podName, boolean exact, boolean pending) {}

    private record Seen(long generation, long healthy, List<NodeReport.PodDevices> pods, List<Key> entries) {}

    /** One node's reconciliation and the entries it makes of {@code before}. */
    private record Plan(List<Reservation> before, List<Reservation> after, Reconciliation result, boolean changed) {}

    ReportKeeper(LocalView view, SharedLedger ledger, PodApi api, Metrics metrics, PinRepair pins) {
        this.view = view;
        this.ledger = ledger;
        this.api = api;
        this.metrics = metrics;
        this.pins = pins;
    }

    /** A new leader looks at every node again (findings already told stay told). */
    @Override
    public void forget() { seen.clear(); }

    @Override
    public Collection<String> keys() { return view.nodeNames(); }

    /** Looks at a node whose report, entries or pods changed (every node on a new leader's start and on each resync). */
    @Override
    public Result reconcile(String node, long now, BooleanSupplier leading) {
        if (!view.hasNode(node)) {
            seen.remove(node);
            told.remove(node);
            return Result.DONE;
        }
        Optional<NodeReport> report = view.report(node);
        if (report.isEmpty()) {
            seen.remove(node);
            return Result.DONE;
        }
        Seen current = seen(report.get(), aceEntries(node));
        if (current.equals(seen.get(node))) return Result.DONE;
        if (!leading.getAsBoolean()) return Result.DONE;
        try {
            seen.put(node, apply(node, report.get()).orElse(current));
            return Result.DONE;
        } catch (RuntimeException e) { // one node's failed write must not stop the others: judged again after its backoff
            LOG.warnf("could not apply the report of %s: %s", node, e.getMessage());
            return new Result.Retry(e.getMessage());
        }
    }

    /** Applies the report; returns what was seen when the entries were written (so the mirror's echo is no news). */
    private Optional<Seen> apply(String node, NodeReport report) {
        GpuBoard board = view.allocator().read(a -> {
            int i = a.state().indexOf(node);
            return i < 0 ? null : a.state().node(i).board();
        });
        if (board == null || board.gpuCount() != report.gpuCount()) {
            LOG.debugf("node %s: the report counts %d GPUs, the board %s; not applied", node, report.gpuCount(), board);
            return Optional.empty();
        }
        Plan[] last = new Plan[1];
        boolean[] stale = {false};
        Optional<LedgerDoc> written = ledger.rewrite(node, doc -> {
            stale[0] = report.generation() < doc.reportGeneration();
            if (stale[0]) return null;
            last[0] = plan(node, board, doc.entries(), report);
            return last[0].changed() ? doc.withEntries(last[0].after(), report.generation()) : null;
        });
        if (stale[0]) {
            LOG.infof("node %s: report generation %d is older than the %d applied; ignored", node, report.generation(),
                    ledger.read(node).map(LedgerDoc::reportGeneration).orElse(0L));
            return Optional.empty();
        }
        Plan p = last[0] != null ? last[0] : plan(node, board, List.of(), report); // no object: no ACE entry on the node
        tell(node, board, p);
        return written.map(d -> seen(report, d.entries().stream().map(ReportKeeper::key).toList()));
    }

    private Plan plan(String node, GpuBoard board, List<Reservation> entries, NodeReport report) {
        List<LedgerEntry> in = new ArrayList<>();
        for (Reservation r : entries) in.add(entry(node, r));
        in.addAll(observed(node, report, in));
        Reconciliation rec = NodeReconciler.reconcile(board, in, report);
        Map<String, LedgerEntry> out = new HashMap<>();
        rec.entries().forEach(e -> out.put(e.id(), e));
        Set<String> dropped = new HashSet<>();
        rec.displaced().forEach(e -> dropped.add(e.id()));
        rec.released().forEach(e -> dropped.add(e.id()));
        List<Reservation> after = new ArrayList<>();
        boolean changed = false;
        for (Reservation r : entries) {
            LedgerEntry e = out.get(r.id());
            if (dropped.contains(r.id()) || e == null) {
                changed = true;
                continue;
            }
            // exact once the node confirmed these indices; an entry whose pod the report no longer lists keeps it
            boolean exact = e.confirmed() || (r.exact() && e.gpuMask() == r.gpuMask());
            Reservation n = e.gpuMask() == r.gpuMask() && exact == r.exact() ? r : r.rekeyed(e.gpuMask(), exact);
            changed |= n != r;
            after.add(n);
        }
        return new Plan(entries, after, rec, changed);
    }

    /**
     * An ACE entry as reconciliation sees it. Its pod is named only while that pod may be the one the
     * report lists: a tied entry whose pod finished, left or was deleted is not confirmed by a pod of the
     * same name (a StatefulSet's next pod); an untied one by the pod carrying it, once bound here.
     */
    private LedgerEntry entry(String node, Reservation r) {
        String uid = r.owner().podUid();
        String name;
        if (uid != null) {
            Optional<PodFacts> f = view.pods().get(uid);
            boolean other = f.map(p -> p.terminal() || (p.bound() && !node.equals(p.nodeName()))).orElse(view.pods().seenGone(uid));
            name = other ? null : r.owner().podName();
        } else {
            name = view.pods().carrying(r.id()).stream().filter(p -> !p.terminal() && p.ownedBy(r.owner()) && node.equals(p.nodeName()))
                    .map(PodFacts::name).findFirst().orElse(null);
        }
        return LedgerEntry.of(r, name);
    }

    /**
     * Pods the informers show holding GPUs on the node that no ACE entry names: ACE counts them from their
     * request, so the report confirms what is known (no drift) and puts them on their real GPUs.
     */
    private List<LedgerEntry> observed(String node, NodeReport report, List<LedgerEntry> ace) {
        Set<String> named = new HashSet<>();
        ace.stream().filter(e -> e.podName() != null).forEach(e -> named.add(e.namespace() + "/" + e.podName()));
        List<LedgerEntry> out = new ArrayList<>();
        for (PodFacts p : view.pods().onNode(node)) {
            if (!p.holdsGpus() || named.contains(p.key()) || report.pod(p.namespace(), p.name()).isEmpty()) continue;
            out.add(new LedgerEntry("observed/" + p.uid(), LedgerEntry.Source.OBSERVED, p.namespace(), p.name(), 0L, false, 1, false, false));
        }
        return out;
    }

    /** Counts and tells each new finding, the TP pods the node confirmed, and hands displaced pods to pin repair. */
    private void tell(String node, GpuBoard board, Plan p) {
        Map<String, Reservation> before = new HashMap<>();
        p.before().forEach(r -> before.put(r.id(), r));
        Set<String> old = told.getOrDefault(node, Set.of());
        Set<String> now = new HashSet<>();
        for (Drift d : p.result().drift()) {
            String k = d.kind() + "|" + d.entryId() + "|" + d.before() + "|" + d.after();
            now.add(k);
            Reservation was = before.get(d.entryId());
            // a set a previous leader confirmed was judged then
            boolean judged = d.kind() == Drift.Kind.NOT_A_CLIQUE && was != null && was.exact() && was.gpuMask() == d.after();
            if (old.contains(k) || judged) continue;
            metrics.bindingDrift(d.kind().label());
            LOG.infof("drift on %s (%s): %s/%s: %s", node, d.kind().label(), d.namespace(), d.podName(), DriftText.of(d, node, board));
            if (d.podName() != null) api.event(pod(node, d.namespace(), d.podName()), "Warning", DRIFT, DriftText.of(d, node, board));
        }
        told.put(node, now);
        Map<String, LedgerEntry> judged = new HashMap<>();
        p.result().entries().forEach(e -> judged.put(e.id(), e));
        for (Reservation r : p.after()) {
            Reservation was = before.get(r.id());
            LedgerEntry e = judged.get(r.id());
            if (!r.exact() || r.tp() < 2 || (was != null && was.exact()) || e == null || e.podName() == null) continue;
            api.event(pod(node, e.namespace(), e.podName()), "Normal", CONFIRMED, DriftText.confirmed(node, board, r.gpuMask()));
        }
        for (LedgerEntry e : p.result().displaced()) {
            pins.displaced(node, e.id());
            LOG.infof("node %s: entry %s lost its GPUs to pods the node runs and no others are free; its pod is decided again", node, e.id());
        }
        p.result().released().forEach(e -> LOG.infof("node %s: entry %s dropped, another entry stands for pod %s/%s", node, e.id(),
                e.namespace(), e.podName()));
    }

    private PodFacts pod(String node, String namespace, String name) {
        return view.pods().named(namespace, name).stream().filter(f -> node.equals(f.nodeName())).findFirst()
                .orElse(PodFacts.named(namespace, name, node));
    }

    private List<Key> aceEntries(String node) {
        return view.allocator().read(a -> a.ledger().onNode(node).stream().filter(Reservation::isAce).map(ReportKeeper::key).toList());
    }

    private static Key key(Reservation r) {
        return new Key(r.id(), r.gpuMask(), r.owner().podUid(), r.owner().podName(), r.exact(), r.pending());
    }

    private static Seen seen(NodeReport r, List<Key> entries) {
        List<Key> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(Key::id));
        return new Seen(r.generation(), r.healthy(), r.pods(), sorted);
    }
}
