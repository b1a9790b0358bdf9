package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's bookkeeping of ACE's entries, one node's entries per key: ties an untied entry to its pod's
 * UID when the pod shows up (one write for the node), expires an untied entry whose pod never came, and
 * releases a tied entry when that UID's pod is gone, finished, bound elsewhere or does not carry it.
 * Release is by id and pod UID, never by a name another pod can carry. Ages are this leader's monotonic
 * time since it first saw the entry, kept per node and never a timestamp another replica wrote; the
 * node's key comes back when the first of them runs out (requeue-after), not on every pass.
 */
final class EntryKeeper implements KeyReconciler<String> {
    private static final Logger LOG = Logger.getLogger(EntryKeeper.class);

    private final LocalView view;
    private final SharedLedger ledger;
    private final PodApi api;
    private final Metrics metrics;
    private final ReconcilerConfig config;
    /** Per node, since when this leader has seen each entry untied, and each tied entry unclaimed by its pod. */
    private final Map<String, Ages> ages = new HashMap<>();
    /** The node of each entry tied to a pod UID, as last reconciled: an event about that pod brings the node's key. */
    private final Map<String, String> nodeOfPod = new HashMap<>();
    private final Map<String, Set<String>> podsOfNode = new HashMap<>();

    /** The pod of an entry could not be read: the node is tried again after its backoff. */
    private static final class Unread extends RuntimeException {
        Unread(String message) { super(message, null, false, false); }
    }

    private static final class Ages {
        final Map<String, Long> untiedSince = new HashMap<>();
        final Map<String, Long> unclaimedSince = new HashMap<>();
    }

    EntryKeeper(LocalView view, SharedLedger ledger, PodApi api, Metrics metrics, ReconcilerConfig config) {
        this.view = view;
        this.ledger = ledger;
        this.api = api;
        this.metrics = metrics;
        this.config = config;
    }

    @Override
    public void forget() {
        ages.clear();
        nodeOfPod.clear();
        podsOfNode.clear();
    }

    /** Nodes whose ledger holds an ACE entry. */
    @Override
    public Collection<String> keys() {
        return view.allocator().read(a -> {
            Set<String> out = new LinkedHashSet<>();
            for (Reservation r : a.ledger().all()) if (r.isAce()) out.add(r.node());
            return out;
        });
    }

    /** The node holding the entry tied to this pod, if this leader has reconciled one. */
    Optional<String> nodeOf(String podUid) { return Optional.ofNullable(nodeOfPod.get(podUid)); }

    @Override
    public Result reconcile(String node, long now, BooleanSupplier leading) {
        var a = view.allocator();
        Set<String> inFlight = new HashSet<>();
        a.inFlight().forEach(r -> inFlight.add(r.id()));
        List<Reservation> entries = a.read(al -> al.ledger().onNode(node).stream().filter(Reservation::isAce).toList());
        Ages age = ages.computeIfAbsent(node, k -> new Ages());
        Set<String> live = new HashSet<>();
        entries.forEach(e -> live.add(e.id()));
        age.untiedSince.keySet().retainAll(live);
        age.unclaimedSince.keySet().retainAll(live);
        for (String uid : podsOfNode.getOrDefault(node, Set.of())) nodeOfPod.remove(uid, node);
        podsOfNode.remove(node);
        List<SharedLedger.Tie> ties = new ArrayList<>();
        Result next = Result.DONE;
        for (Reservation e : entries) {
            if (!leading.getAsBoolean()) return Result.DONE; // a new term starts every key again
            if (inFlight.contains(e.id())) continue; // still being committed by this replica: its ledger event brings the node back
            if (e.owner().podUid() != null) {
                nodeOfPod.put(e.owner().podUid(), node);
                podsOfNode.computeIfAbsent(node, k -> new HashSet<>()).add(e.owner().podUid());
            }
            try {
                next = Result.sooner(next, e.owner().podUid() == null ? untied(e, age, now, ties) : tied(e, age, now));
            } catch (Unread ex) {
                LOG.debugf("could not read the pod of %s: %s", e.id(), ex.getMessage());
                next = new Result.Retry(ex.getMessage());
            } catch (RuntimeException ex) { // one entry's failed write must not stop the others
                LOG.warnf("could not settle entry %s on %s: %s", e.id(), e.node(), ex.getMessage());
                next = new Result.Retry(ex.getMessage());
            }
        }
        if (ties.isEmpty()) {
            if (age.untiedSince.isEmpty() && age.unclaimedSince.isEmpty()) ages.remove(node);
            return next;
        }
        if (!leading.getAsBoolean()) return Result.DONE;
        try {
            Set<String> tied = ledger.tieAll(node, ties);
            for (String id : tied) {
                age.untiedSince.remove(id);
                LOG.debugf("tied %s on %s to its pod", id, node);
            }
            return tied.size() < ties.size() ? new Result.Retry((ties.size() - tied.size()) + " entries not tied") : next;
        } catch (RuntimeException ex) {
            LOG.warnf("could not tie %d entries on %s: %s", ties.size(), node, ex.getMessage());
            return new Result.Retry(ex.getMessage());
        }
    }

    /** An untied entry: tied (in one write per node, once it is old enough) when its pod is seen, expired when it never came. */
    private Result untied(Reservation e, Ages age, long now, List<SharedLedger.Tie> ties) {
        Optional<PodFacts> pod = view.pods().carrying(e.id()).stream()
                .filter(p -> !p.terminal() && p.ownedBy(e.owner())).findFirst();
        long since = age.untiedSince.computeIfAbsent(e.id(), k -> now);
        if (pod.isPresent()) {
            if (now - since >= config.tieDelayMillis()) {
                ties.add(new SharedLedger.Tie(e, pod.get().uid(), pod.get().name()));
                return Result.DONE;
            }
            return Result.at(since + config.tieDelayMillis(), now);
        }
        if (now - since > config.pendingTtlMillis()) {
            release(e, age, "its pod never appeared within " + config.pendingTtlMillis() / 1000 + " s");
            metrics.reservationExpired();
            return Result.DONE;
        }
        return Result.at(since + config.pendingTtlMillis() + 1, now);
    }

    private Result tied(Reservation e, Ages age, long now) {
        String uid = e.owner().podUid();
        Optional<PodFacts> pod = view.pods().get(uid);
        String why = null;
        Result next = Result.DONE;
        // Deleted, finished and bound are final: acting on them is safe even on a lagging cache.
        if (pod.isEmpty() && view.pods().seenGone(uid)) {
            why = "its pod was deleted";
        } else if (pod.isPresent() && pod.get().terminal()) {
            why = "its pod finished";
        } else if (pod.isPresent() && pod.get().bound() && !pod.get().nodeName().equals(e.node())) {
            why = "its pod is bound to " + pod.get().nodeName();
        } else if (view.groups().isGatedRank(uid) && view.pending().contains(uid)) {
            age.unclaimedSince.remove(e.id()); // held for a gated group rank: the group keeper completes it or frees it on its timeout
        } else if (pod.isEmpty() || !e.id().equals(pod.get().reservationId())) {
            // Not seen, or not carrying it: maybe the cache lags (or a gate release is in flight). After the
            // grace period the pod itself is read before anything is released.
            long since = age.unclaimedSince.computeIfAbsent(e.id(), k -> now);
            if (now - since > config.absentGraceMillis()) {
                why = confirmUnclaimed(e, age).orElse(null);
            } else {
                next = Result.at(since + config.absentGraceMillis() + 1, now);
            }
        } else {
            age.unclaimedSince.remove(e.id());
        }
        if (why != null) release(e, age, why);
        return next;
    }

    /** Reads the entry's pod: a reason to release when it is gone or does not carry the entry; empty when it does ({@link Unread}: not read). */
    private Optional<String> confirmUnclaimed(Reservation e, Ages age) {
        if (e.owner().namespace() == null || e.owner().podName() == null) return Optional.of("its pod is unknown");
        try {
            Optional<io.fabric8.kubernetes.api.model.Pod> live = api.get(e.owner().namespace(), e.owner().podName());
            if (live.isEmpty() || !e.owner().podUid().equals(live.get().getMetadata().getUid())) return Optional.of("its pod is gone");
            PodFacts f = PodFacts.of(live.get(), view.json());
            if (!e.id().equals(f.reservationId())) return Optional.of("its pod does not carry it");
            if (f.terminal()) return Optional.of("its pod finished");
            view.podChanged(live.get()); // the cache lagged: catch up
            age.unclaimedSince.remove(e.id());
            return Optional.empty();
        } catch (RuntimeException ex) {
            throw new Unread(ex.getMessage());
        }
    }

    private void release(Reservation e, Ages age, String why) {
        view.allocator().release(e.id());
        age.untiedSince.remove(e.id());
        age.unclaimedSince.remove(e.id());
        LOG.infof("released %s (GPUs %s on %s, %s/%s): %s", e.id(), java.util.Arrays.toString(e.gpus()), e.node(),
                e.owner().namespace(), e.owner().podName(), why);
    }
}
