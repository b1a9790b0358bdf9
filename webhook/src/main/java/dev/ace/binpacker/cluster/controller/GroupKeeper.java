package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.GroupBook;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.group.GroupOutcome;
import dev.ace.binpacker.placement.group.GroupPlacer;
import dev.ace.binpacker.placement.group.GroupRequest;
import dev.ace.binpacker.keys.GroupKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's release of gated groups (issue 19), before single pods: once every rank of a group exists,
 * all its ranks' GPUs are reserved in one step ({@link GroupPlacer}: every entry committed, or none), then
 * the ranks are released leader first, each with the gate keeper's preconditioned patch. The entries are
 * tied to the ranks' pods from the start, so the ledger itself is the group's record: a leader that dies
 * between the commits and the patches leaves entries held for gated ranks, which the next pass completes
 * (all ranks held: release them) or, if the rest does not fit, keeps no longer than the hold timeout.
 *
 * <p>No deadlock, no starvation: a group holds GPUs without being released only as the one earmark at a
 * time (the first group in line: degraded groups, then priority, then age), for at most the hold timeout,
 * after which it frees them and waits with doubling backoff while the next group may earmark. A group
 * with ranks running and ranks gated (a lost rank was re-created) is first in line and its ranks go into
 * the group's topology domain. ACE never deletes a pod.
 *
 * <p>A walk happens as part of {@link GateQueue}'s reconcile, on an event or when a group's time comes: the
 * walk's {@link Result} asks to come back when the first group's hold times out, its backoff ends or it has
 * waited long enough to earmark. The ages (whole since, holding since, backoff) are this leader's, measured
 * from its own first sight and forgotten when its term ends ({@link #forget}), like {@link EntryKeeper}'s.
 */
final class GroupKeeper {
    private static final Logger LOG = Logger.getLogger(GroupKeeper.class);

    /**
     * @param holdTimeoutMillis   how long a group may hold GPUs it cannot use yet (an earmark, a crashed leader's commits)
     * @param earmarkAfterMillis  how long a whole group waits holding nothing before it may earmark (starvation, not impatience)
     * @param maxBackoffDoublings the cap on the doubling of its backoff after a hold timed out
     */
    record Config(long holdTimeoutMillis, long earmarkAfterMillis, int maxBackoffDoublings) {}

    private final LocalView view;
    private final GateKeeper gates;
    private final Metrics metrics;
    private final Config config;
    private final Map<String, Long> holdingSince = new HashMap<>();
    private final Map<String, Long> wholeSince = new HashMap<>();
    private final Map<String, Long> backoffUntil = new HashMap<>();
    private final Map<String, Integer> timeouts = new HashMap<>();
    /** The last pass's word on why each group that did not get its GPUs waits, for its published status. */
    private final Map<String, String> reasons = new HashMap<>();
    /** Told the key of each group whose reason changed in a walk: its published state is written again. */
    private java.util.function.Consumer<String> reasonChanged = k -> { };
    /** The earliest monotonic time at which a group's state changes by time alone, found by the current walk. */
    private long nextDue;

    GroupKeeper(LocalView view, GateKeeper gates, Metrics metrics, Config config) {
        this.view = view;
        this.gates = gates;
        this.metrics = metrics;
        this.config = config;
    }

    void onReasonChanged(java.util.function.Consumer<String> c) { this.reasonChanged = c; }

    /** A term begins or ends: every age is measured afresh. */
    void forget() {
        holdingSince.clear();
        wholeSince.clear();
        backoffUntil.clear();
        timeouts.clear();
        reasons.clear();
    }

    /** Why the group waited at the last walk (null when released, idle or not seen): the reason users read. */
    String reason(String groupKey) { return reasons.get(groupKey); }

    /**
     * One walk over the groups, first in line first; {@code now}: monotonic millis. Asks to come back when the
     * first group's state changes by time alone ({@link Result#at}), after a backoff when a group's write failed.
     */
    Result pass(long now, long wallNow, BooleanSupplier leading) {
        Map<String, String> before = new HashMap<>(reasons);
        try {
            return walk(now, wallNow, leading);
        } finally {
            java.util.Set<String> keys = new java.util.HashSet<>(before.keySet());
            keys.addAll(reasons.keySet());
            for (String k : keys) if (!java.util.Objects.equals(before.get(k), reasons.get(k))) reasonChanged.accept(k);
        }
    }

    private Result walk(long now, long wallNow, BooleanSupplier leading) {
        Map<String, PendingDemand.Waiting> queued = new HashMap<>();
        for (PendingDemand.Waiting w : view.pending().waiting()) queued.put(w.id(), w);
        Map<String, List<GroupBook.Rank>> groups = view.groups().groups();
        List<String> order = new ArrayList<>(groups.keySet());
        order.sort(Comparator.comparing((String k) -> !degraded(groups.get(k)))
                .thenComparing(k -> -groups.get(k).stream().mapToInt(GroupBook.Rank::priority).max().orElse(0))
                .thenComparingLong(k -> groups.get(k).stream().mapToLong(GroupBook.Rank::createdMillis).min().orElse(0))
                .thenComparing(k -> k));
        boolean earmarked = false;
        Map<Integer, Integer> waitingBySize = new TreeMap<>();
        // A group that is gone takes its ages with it: a new group of the same name starts afresh.
        holdingSince.keySet().retainAll(groups.keySet());
        wholeSince.keySet().retainAll(groups.keySet());
        backoffUntil.keySet().retainAll(groups.keySet());
        timeouts.keySet().retainAll(groups.keySet());
        reasons.clear();
        nextDue = Long.MAX_VALUE;
        Result failed = Result.DONE;
        for (String key : order) {
            if (!leading.getAsBoolean()) return Result.DONE; // a new term walks again
            List<GroupBook.Rank> ranks = groups.get(key);
            try {
                State s = settle(key, ranks, queued, now, wallNow, !earmarked);
                if (s == State.HOLDING) earmarked = true;
                if (s != State.RELEASED && s != State.IDLE) waitingBySize.merge(ranks.get(0).group().size(), 1, Integer::sum);
            } catch (RuntimeException e) { // one group's failed write must not stop the others
                LOG.warnf("could not settle group %s: %s", key, e.getMessage());
                failed = new Result.Retry("settling group " + key + ": " + e.getMessage());
            }
        }
        metrics.groupsWaiting(waitingBySize);
        return Result.sooner(failed, nextDue == Long.MAX_VALUE ? Result.DONE : Result.at(nextDue, now));
    }

    /** The group's state changes by time alone at {@code at} (monotonic millis): the walk comes back then. */
    private void dueAt(long at, long now) {
        if (at > now && at < nextDue) nextDue = at;
    }

    private enum State { IDLE, ASSEMBLING, WAITING, HOLDING, RELEASED }

    private State settle(String key, List<GroupBook.Rank> ranks, Map<String, PendingDemand.Waiting> queued,
                         long now, long wallNow, boolean mayEarmark) {
        List<GroupBook.Rank> gatedRanks = ranks.stream().filter(GroupBook.Rank::gated).toList();
        List<GroupBook.Rank> gated = gatedRanks.stream().filter(r -> queued.containsKey(r.uid())).toList();
        if (gated.isEmpty()) {
            holdingSince.remove(key);
            wholeSince.remove(key);
            return State.IDLE;
        }
        int size = ranks.get(0).group().size();
        boolean someReleased = ranks.stream().anyMatch(r -> !r.gated());
        Allocator a = view.allocator();
        Map<String, Reservation> held = heldFor(a, gated);
        // Not whole to ACE yet: nothing may be held. Either a pod of the group does not exist yet (entries found then
        // are a crashed leader's half-written group), or every pod exists but a gated rank is not queued (the informer
        // records a pod's group before it queues the pod, and a walk may fall between the two; or ACE could not read
        // what the rank asks for): reserving for the queued ranks alone would release part of the group.
        String notWhole = ranks.size() < size && !someReleased
                ? ranks.size() + " of " + size + " pods exist; the group holds nothing until all do"
                : gated.size() < gatedRanks.size()
                ? (gatedRanks.size() - gated.size()) + " of its " + gatedRanks.size() + " gated ranks are not queued yet; the group holds nothing until all are"
                : null;
        if (notWhole != null) {
            if (!held.isEmpty()) free(key, held, notWhole);
            wholeSince.remove(key);
            reasons.put(key, notWhole);
            return State.ASSEMBLING;
        }
        GroupRequest g = request(a, key, ranks, gated, held, queued);
        GroupOutcome o = GroupPlacer.reserve(a, g, wallNow);
        if (o instanceof GroupOutcome.Reserved r) {
            holdingSince.remove(key);
            wholeSince.remove(key);
            timeouts.remove(key);
            backoffUntil.remove(key);
            release(key, g, r);
            return State.RELEASED;
        }
        if (o instanceof GroupOutcome.Never n) { // waiting would last for ever: nothing is earmarked for it
            String never = "can never be placed: " + n.why();
            if (!held.isEmpty()) free(key, held, never);
            holdingSince.remove(key);
            reasons.put(key, never);
            return State.WAITING;
        }
        String why = ((GroupOutcome.Waiting) o).why();
        reasons.put(key, why);
        long whole = wholeSince.computeIfAbsent(key, k -> now);
        long mayEarmarkAt = Math.max(whole + config.earmarkAfterMillis(), backoffUntil.getOrDefault(key, Long.MIN_VALUE));
        boolean starving = now >= mayEarmarkAt;
        dueAt(mayEarmarkAt, now);
        if (!held.isEmpty() || (mayEarmark && starving)) {
            if (!mayEarmark && !someReleased) { // another group is first in line: only one earmark at a time
                free(key, held, "another group holds the earmark");
                reasons.put(key, why + "; another group holds the earmark");
                return State.WAITING;
            }
            long since = holdingSince.computeIfAbsent(key, k -> now);
            if (now - since > config.holdTimeoutMillis()) {
                int n = timeouts.merge(key, 1, Integer::sum);
                long backoff = config.holdTimeoutMillis() << Math.min(n, config.maxBackoffDoublings());
                backoffUntil.put(key, now + backoff);
                dueAt(now + backoff, now);
                holdingSince.remove(key);
                String timedOut = "it could not assemble within " + config.holdTimeoutMillis() / 1000 + " s; waits again for "
                        + backoff / 1000 + " s before holding GPUs";
                free(key, held, timedOut);
                reasons.put(key, why + "; " + timedOut);
                metrics.reservationExpired();
                return State.WAITING;
            }
            dueAt(since + config.holdTimeoutMillis() + 1, now); // times out once held longer than the timeout
            if (held.isEmpty()) {
                List<Reservation> got = GroupPlacer.earmark(a, g, wallNow);
                if (!got.isEmpty()) LOG.infof("group %s holds %d of its %d ranks' GPUs while it waits: %s", key, got.size(), gated.size(), why);
                reasons.put(key, why + "; earmarks the GPUs of " + got.size() + " of its " + gated.size() + " ranks meanwhile");
            } else {
                reasons.put(key, why + "; earmarks the GPUs of " + held.size() + " of its " + gated.size() + " ranks meanwhile");
            }
            return State.HOLDING;
        }
        LOG.debugf("group %s waits: %s", key, why);
        return State.WAITING;
    }

    /** Entries of ACE tied to a gated rank's pod: held for the group (an earmark, or a crashed leader's commits). */
    private static Map<String, Reservation> heldFor(Allocator a, List<GroupBook.Rank> gated) {
        Map<String, Reservation> out = new HashMap<>();
        java.util.Set<String> uids = new java.util.HashSet<>();
        gated.forEach(r -> uids.add(r.uid()));
        a.read(al -> {
            for (Reservation e : al.ledger().all()) {
                if (e.isAce() && e.owner().podUid() != null && uids.contains(e.owner().podUid())) out.putIfAbsent(e.owner().podUid(), e);
            }
            return null;
        });
        return out;
    }

    private GroupRequest request(Allocator a, String key, List<GroupBook.Rank> ranks, List<GroupBook.Rank> gated,
                                 Map<String, Reservation> held, Map<String, PendingDemand.Waiting> queued) {
        List<GroupRequest.Rank> out = new ArrayList<>();
        for (GroupBook.Rank r : gated) { // leader first: ranks are sorted by rank index
            PlacementRequest t = queued.get(r.uid()).request();
            PlacementRequest req = new PlacementRequest(Reservation.newId(), t.workloadClass(), t.gpus(), t.milliPerGpu(), t.tp(),
                    t.pools(), t.constraints(), t.cpuMilli(), t.gpuModel(),
                    new Reservation.Owner(null, r.group().namespace(), r.podName(), r.uid()));
            out.add(new GroupRequest.Rank(req, Optional.ofNullable(held.get(r.uid()))));
        }
        String asked = ranks.get(0).group().topologyKey();
        GroupRequest shape = GroupPlacer.shaped(a, key, out, asked, GroupKeys.GPU_CLIQUE, null);
        return shape.topologyKey() == null ? shape
                : new GroupRequest(key, out, shape.topologyKey(), shape.wholeNodes(), domainOf(a, ranks, shape.topologyKey()));
    }

    /** The topology value of the nodes the group's released ranks are on, so a replacement rank joins them. */
    private String domainOf(Allocator a, List<GroupBook.Rank> ranks, String topology) {
        if (topology == null) return null;
        for (GroupBook.Rank r : ranks) {
            if (r.gated()) continue;
            String node = r.node() != null ? r.node() : view.pods().get(r.uid()).map(PodFacts::reservationNode).orElse(null);
            if (node == null) continue;
            String v = a.read(al -> {
                int i = al.state().indexOf(node);
                return i < 0 ? null : al.state().node(i).labels().get(topology);
            });
            if (v != null) return v;
        }
        return null;
    }

    private static boolean degraded(List<GroupBook.Rank> ranks) {
        return ranks.stream().anyMatch(r -> !r.gated()) && ranks.stream().anyMatch(GroupBook.Rank::gated);
    }

    /** Releases every rank, leader first; a rank that is gone or taken drops its own entry (the gate keeper's rule). */
    private void release(String key, GroupRequest g, GroupOutcome.Reserved r) {
        int done = 0;
        for (int i = 0; i < g.ranks().size(); i++) {
            String uid = g.ranks().get(i).request().owner().podUid();
            Optional<PodFacts> p = view.pods().get(uid);
            Reservation res = r.reservations().get(i);
            if (p.isEmpty()) {
                view.allocator().release(res.id());
                continue;
            }
            GateKeeper.Release result = gates.release(p.get(), res);
            if (result == GateKeeper.Release.RELEASED) {
                done++;
                view.pending().remove(uid);
            }
        }
        LOG.infof("released group %s: %d of %d ranks%s", key, done, g.ranks().size(), r.domain() == null ? "" : " in " + r.domain());
    }

    private void free(String key, Map<String, Reservation> held, String why) {
        for (Reservation e : held.values()) view.allocator().release(e.id());
        if (!held.isEmpty()) LOG.infof("group %s freed %d held entries: %s", key, held.size(), why);
    }
}
