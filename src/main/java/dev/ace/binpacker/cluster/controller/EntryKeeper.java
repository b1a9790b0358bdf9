package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's bookkeeping of ACE's entries: ties an untied entry to its pod's UID when the pod shows
 * up, expires an untied entry whose pod never came, and releases a tied entry when that UID's pod is
 * gone, finished, bound elsewhere or does not carry it. Release is by id and pod UID, never by a name
 * another pod can carry. Ages are this leader's monotonic time since it first saw the entry, never a
 * timestamp another replica wrote.
 */
final class EntryKeeper {
    private static final Logger LOG = Logger.getLogger(EntryKeeper.class);

    private final LocalView view;
    private final SharedLedger ledger;
    private final PodApi api;
    private final Metrics metrics;
    private final ReconcilerConfig config;
    private final Map<String, Long> untiedSince = new HashMap<>();
    private final Map<String, Long> unclaimedSince = new HashMap<>();

    EntryKeeper(LocalView view, SharedLedger ledger, PodApi api, Metrics metrics, ReconcilerConfig config) {
        this.view = view;
        this.ledger = ledger;
        this.api = api;
        this.metrics = metrics;
        this.config = config;
    }

    /** A new leader measures from its own first sight. */
    void reset() {
        untiedSince.clear();
        unclaimedSince.clear();
    }

    void pass(long now, BooleanSupplier leading) {
        var a = view.allocator();
        Set<String> inFlight = new HashSet<>();
        a.inFlight().forEach(r -> inFlight.add(r.id()));
        List<Reservation> entries = a.read(al -> al.ledger().all().stream().filter(Reservation::isAce).toList());
        Set<String> live = new HashSet<>();
        entries.forEach(e -> live.add(e.id()));
        untiedSince.keySet().retainAll(live);
        unclaimedSince.keySet().retainAll(live);
        Map<String, List<SharedLedger.Tie>> ties = new HashMap<>();
        for (Reservation e : entries) {
            if (!leading.getAsBoolean()) return;
            if (inFlight.contains(e.id())) continue; // still being committed by this replica: judged once the store shows it
            try {
                if (e.owner().podUid() == null) untied(e, now, ties);
                else tied(e, now);
            } catch (RuntimeException ex) { // one entry's failed write must not stop the others: it is judged again next pass
                LOG.warnf("could not settle entry %s on %s: %s", e.id(), e.node(), ex.getMessage());
            }
        }
        for (var node : ties.entrySet()) {
            if (!leading.getAsBoolean()) return;
            try {
                for (String id : ledger.tieAll(node.getKey(), node.getValue())) {
                    untiedSince.remove(id);
                    LOG.debugf("tied %s on %s to its pod", id, node.getKey());
                }
            } catch (RuntimeException ex) { // tied again next pass
                LOG.warnf("could not tie %d entries on %s: %s", node.getValue().size(), node.getKey(), ex.getMessage());
            }
        }
    }

    /** An untied entry: tied (in one write per node, once it is old enough) when its pod is seen, expired when it never came. */
    private void untied(Reservation e, long now, Map<String, List<SharedLedger.Tie>> ties) {
        Optional<PodFacts> pod = view.pods().carrying(e.id()).stream()
                .filter(p -> !p.terminal() && p.ownedBy(e.owner())).findFirst();
        long since = untiedSince.computeIfAbsent(e.id(), k -> now);
        if (pod.isPresent()) {
            if (now - since >= config.tieDelayMillis()) {
                ties.computeIfAbsent(e.node(), k -> new ArrayList<>()).add(new SharedLedger.Tie(e, pod.get().uid(), pod.get().name()));
            }
            return;
        }
        if (now - since > config.pendingTtlMillis()) {
            release(e, "its pod never appeared within " + config.pendingTtlMillis() / 1000 + " s");
            metrics.reservationExpired();
        }
    }

    private void tied(Reservation e, long now) {
        String uid = e.owner().podUid();
        Optional<PodFacts> pod = view.pods().get(uid);
        String why = null;
        // Deleted, finished and bound are final: acting on them is safe even on a lagging cache.
        if (pod.isEmpty() && view.pods().seenGone(uid)) {
            why = "its pod was deleted";
        } else if (pod.isPresent() && pod.get().terminal()) {
            why = "its pod finished";
        } else if (pod.isPresent() && pod.get().bound() && !pod.get().nodeName().equals(e.node())) {
            why = "its pod is bound to " + pod.get().nodeName();
        } else if (view.groups().isGatedRank(uid) && view.pending().contains(uid)) {
            unclaimedSince.remove(e.id()); // held for a gated group rank: the group keeper completes it or frees it on its timeout
        } else if (pod.isEmpty() || !e.id().equals(pod.get().reservationId())) {
            // Not seen, or not carrying it: maybe the cache lags (or a gate release is in flight). After the
            // grace period the pod itself is read before anything is released.
            if (graceOver(e, now)) why = confirmUnclaimed(e);
        } else {
            unclaimedSince.remove(e.id());
        }
        if (why != null) release(e, why);
    }

    /** Reads the entry's pod: a reason to release when it is gone or does not carry the entry, else null. */
    private String confirmUnclaimed(Reservation e) {
        if (e.owner().namespace() == null || e.owner().podName() == null) return "its pod is unknown";
        try {
            Optional<io.fabric8.kubernetes.api.model.Pod> live = api.get(e.owner().namespace(), e.owner().podName());
            if (live.isEmpty() || !e.owner().podUid().equals(live.get().getMetadata().getUid())) return "its pod is gone";
            PodFacts f = PodFacts.of(live.get(), view.json());
            if (!e.id().equals(f.reservationId())) return "its pod does not carry it";
            if (f.terminal()) return "its pod finished";
            view.podChanged(live.get()); // the cache lagged: catch up
            unclaimedSince.remove(e.id());
            return null;
        } catch (RuntimeException ex) {
            LOG.debugf("could not read the pod of %s: %s", e.id(), ex.getMessage());
            return null;
        }
    }

    private boolean graceOver(Reservation e, long now) {
        return now - unclaimedSince.computeIfAbsent(e.id(), k -> now) > config.absentGraceMillis();
    }

    private void release(Reservation e, String why) {
        view.allocator().release(e.id());
        untiedSince.remove(e.id());
        unclaimedSince.remove(e.id());
        LOG.infof("released %s (GPUs %s on %s, %s/%s): %s", e.id(), java.util.Arrays.toString(e.gpus()), e.node(),
                e.owner().namespace(), e.owner().podName(), why);
    }
}
