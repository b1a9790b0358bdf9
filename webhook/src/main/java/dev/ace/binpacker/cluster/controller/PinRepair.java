package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Pods ACE pinned that cannot bind, one node's pinned pods per key: their node is over-committed (a pod ACE did not place was bound
 * there first, or the node's allocatable shrank). Seen from kube-scheduler's side, a pinned pod fits
 * when the node's allocatable minus the requests of the pods bound to it covers its request. One that
 * does not, for longer than the grace period, is repaired and never hidden: a controller-owned pod is
 * deleted so its controller re-creates it and ACE decides afresh; any other pod gets an Event. Both
 * are counted ({@code ace_pins_repaired_total{action}}). A pod whose entry the node's report displaced
 * ({@link #displaced}: its GPUs went to pods the node runs and no others are free there) is repaired the
 * same way, whatever the counts say. So is a pinned pod kube-scheduler itself reports it cannot place
 * ({@code PodScheduled=False}, reason {@code Unschedulable}) whatever the reason: memory, CPU,
 * {@code rdma/roce_gdr}, a taint or a volume ACE does not see.
 */
public final class PinRepair implements KeyReconciler<String> {
    private static final Logger LOG = Logger.getLogger(PinRepair.class);
    public static final String REASON = "AceNodeOvercommitted";
    /** Event reason when kube-scheduler reports the pinned pod Unschedulable for a reason besides GPUs. */
    static final String UNSCHEDULABLE = "AcePinUnschedulable";

    private final LocalView view;
    private final PodApi api;
    private final Metrics metrics;
    private final ReconcilerConfig config;
    /** Per node, since when this leader has seen each of its pinned pods unable to bind. */
    private final Map<String, Map<String, Long>> stuckSince = new HashMap<>();
    private Consumer<String> onDisplaced = n -> { };
    private final Set<String> reported = bounded();
    private final Set<String> displaced = bounded();

    private static Set<String> bounded() {
        return Collections.newSetFromMap(new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) { return size() > PodCache.TOMBSTONES; }
        });
    }

    /** The node's report left the entry of this id without GPUs: its pod, pinned there, is to be repaired. */
    void displaced(String node, String reservationId) {
        displaced.add(reservationId);
        onDisplaced.accept(node);
    }

    PinRepair(LocalView view, PodApi api, Metrics metrics, ReconcilerConfig config) {
        this.view = view;
        this.api = api;
        this.metrics = metrics;
        this.config = config;
    }

    /** Told the node of each displaced entry (its key is reconciled again). */
    void onDisplaced(Consumer<String> c) { this.onDisplaced = c; }

    @Override
    public void forget() { stuckSince.clear(); }

    /** Nodes pods are pinned to. */
    @Override
    public Collection<String> keys() { return view.pods().reservationNodes(); }

    /** The pods pinned to {@code node} and not bound yet; a stuck one is repaired once its grace, kept per pod, ran out. */
    @Override
    public Result reconcile(String node, long now, BooleanSupplier leading) {
        Map<String, Long> since = stuckSince.computeIfAbsent(node, k -> new HashMap<>());
        Set<String> stuck = new HashSet<>();
        int usable = -1;
        int taken = 0;
        Result next = Result.DONE;
        try {
            for (PodFacts p : view.pods().reservedOn(node)) {
                if (p.bound() || p.gated() || p.terminal() || p.gpus() == 0 || !node.equals(p.reservationNode())) continue;
                if (usable < 0) {
                    usable = view.capacity(node).usable();
                    taken = view.pods().onNode(node).stream().filter(PodFacts::holdsGpus).mapToInt(PodFacts::gpus).sum();
                }
                boolean lost = displaced.contains(p.reservationId());
                boolean refused = p.unschedulable() != null;
                if (usable - taken >= p.gpus() && !lost && !refused) continue;
                stuck.add(p.uid());
                long first = since.computeIfAbsent(p.uid(), k -> now);
                if (reported.contains(p.uid())) continue;
                if (now - first < config.stuckGraceMillis()) {
                    next = Result.sooner(next, Result.at(first + config.stuckGraceMillis(), now));
                    continue;
                }
                if (!leading.getAsBoolean()) return Result.DONE;
                boolean other = refused && usable - taken >= p.gpus() && !lost;
                try {
                    repair(p, other ? UNSCHEDULABLE : REASON, other
                            ? "pinned by ACE to " + node + ", where kube-scheduler cannot place it: " + p.unschedulable()
                            : lost ? "pinned by ACE to " + node + ", whose node agent reports the GPUs ACE reserved for it held"
                            + " by pods running there and no others free; it needs " + p.gpus()
                            : "pinned by ACE to " + node + ", which has " + Math.max(0, usable - taken) + " of " + usable
                            + " GPUs free for it (pods ACE did not place hold the rest); it needs " + p.gpus());
                } catch (RuntimeException e) {
                    LOG.warnf("could not repair %s: %s; trying again after its backoff", p.key(), e.getMessage());
                    next = new Result.Retry(e.getMessage());
                }
            }
        } finally {
            since.keySet().retainAll(stuck);
            if (since.isEmpty()) stuckSince.remove(node);
        }
        return next;
    }

    private void repair(PodFacts p, String reason, String why) {
        if (p.controllerOwned()) {
            try {
                api.event(p, "Warning", reason, why + "; deleted so its controller re-creates it and ACE decides again");
                api.delete(p.namespace(), p.name(), p.resourceVersion());
                metrics.pinRepaired("deleted");
                reported.add(p.uid());
                LOG.warnf("deleted %s: %s", p.key(), why);
            } catch (PodApi.Refused e) {
                LOG.debugf("pod %s changed before it could be deleted; judged again on its event", p.key());
            }
            return;
        }
        api.event(p, "Warning", reason, why + (reason.equals(REASON) ? "; it waits until they finish (delete it to have ACE decide again)"
                : "; it waits (delete it to have ACE decide again)"));
        metrics.pinRepaired("reported");
        reported.add(p.uid());
        LOG.warnf("pod %s cannot bind: %s", p.key(), why);
    }
}
