package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.cluster.view.PodCache;
import dev.ace.binpacker.observability.Metrics;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Pods ACE pinned that cannot bind: their node is over-committed (a pod ACE did not place was bound
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
public final class PinRepair {
    private static final Logger LOG = Logger.getLogger(PinRepair.class);
    public static final String REASON = "AceNodeOvercommitted";
    /** Event reason when kube-scheduler reports the pinned pod Unschedulable for a reason besides GPUs. */
    static final String UNSCHEDULABLE = "AcePinUnschedulable";

    private final LocalView view;
    private final PodApi api;
    private final Metrics metrics;
    private final ReconcilerConfig config;
    private final Map<String, Long> stuckSince = new HashMap<>();
    private final Set<String> reported = bounded();
    private final Set<String> displaced = bounded();

    private static Set<String> bounded() {
        return Collections.newSetFromMap(new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) { return size() > PodCache.TOMBSTONES; }
        });
    }

    /** The node's report left the entry of this id without GPUs: its pod, pinned there, is to be repaired. */
    void displaced(String reservationId) { displaced.add(reservationId); }

    PinRepair(LocalView view, PodApi api, Metrics metrics, ReconcilerConfig config) {
        this.view = view;
        this.api = api;
        this.metrics = metrics;
        this.config = config;
    }

    void reset() { stuckSince.clear(); }

    void pass(long now, BooleanSupplier leading) {
        Map<String, Integer> used = new HashMap<>();
        Set<String> stuck = new HashSet<>();
        for (PodFacts p : view.pods().all()) {
            if (p.bound() || p.gated() || p.terminal() || p.reservationNode() == null || p.gpus() == 0) continue;
            String node = p.reservationNode();
            int usable = view.capacity(node).usable();
            int taken = used.computeIfAbsent(node, n -> view.pods().onNode(n).stream().filter(PodFacts::holdsGpus).mapToInt(PodFacts::gpus).sum());
            boolean lost = displaced.contains(p.reservationId());
            boolean refused = p.unschedulable() != null;
            if (usable - taken >= p.gpus() && !lost && !refused) continue;
            stuck.add(p.uid());
            long since = stuckSince.computeIfAbsent(p.uid(), k -> now);
            if (now - since < config.stuckGraceMillis() || reported.contains(p.uid())) continue;
            if (!leading.getAsBoolean()) return;
            boolean other = refused && usable - taken >= p.gpus() && !lost;
            try {
                repair(p, other ? UNSCHEDULABLE : REASON, other
                        ? "pinned by ACE to " + node + ", where kube-scheduler cannot place it: " + p.unschedulable()
                        : lost ? "pinned by ACE to " + node + ", whose node agent reports the GPUs ACE reserved for it held"
                        + " by pods running there and no others free; it needs " + p.gpus()
                        : "pinned by ACE to " + node + ", which has " + Math.max(0, usable - taken) + " of " + usable
                        + " GPUs free for it (pods ACE did not place hold the rest); it needs " + p.gpus());
            } catch (RuntimeException e) {
                LOG.warnf("could not repair %s: %s; trying again on the next pass", p.key(), e.getMessage());
            }
        }
        stuckSince.keySet().retainAll(stuck);
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
                LOG.debugf("pod %s changed before it could be deleted; judged again on the next pass", p.key());
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
