package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Earmarks for TP replicas that wait (issue 20): while a replica of {@code k} GPUs waits for a free
 * NVLink clique, the node closest to having one (fewest used GPUs inside its best {@code k}-clique;
 * ties keep the node already earmarked, then the lower index) is earmarked for it, oldest waiter
 * first, one node per waiter. Other placements keep off earmarked nodes, so the node drains as its
 * pods leave instead of being refilled by whatever arrives next; the waiter itself may use any node,
 * and a waiter may use the earmarks of younger waiters, not of older ones.
 *
 * <p>Under {@link Rule#SOFT} a request that fits nowhere else may still use an earmarked node
 * (no arrival waits because of an earmark); under {@link Rule#STRICT} it does not fit. Only the oldest
 * waiter is earmarked ({@link #LIMIT}).
 *
 * <p>The starvation bound (issue 34): once the oldest waiter has waited {@code starvationBoundMillis} or longer
 * ({@link #starving}), its earmark is strict whatever the rule: no other request (a direct admission, a group's rank,
 * a younger waiter released from the gate) may fall back onto its node, so the node only drains until the waiter
 * fits; later requests are backfilled only where they cannot delay it, on every other node. A bound of 0 or less
 * turns it off (today's soft earmark for ever). Waiters
 * are registered by whoever queues them (the webhook's gate keeper, the simulator's queue) and leave
 * when placed or gone. Not thread-safe: {@link Allocator} calls it under its lock.
 */
public final class Earmarks {
    /** How hard an earmark keeps other placements off its node. */
    public enum Rule { OFF, SOFT, STRICT }

    /**
     * Waiters earmarked at once: the oldest only. Measured in protocol B (docs/benchmarks.md): one
     * earmark cut the wait p95; an earmark for every waiter (up to 16) kept more GPUs idle and made more
     * replicas wait than none.
     */
    static final int LIMIT = 1;

    /** The starvation bound turned off. */
    public static final long NO_BOUND = 0;

    /** A waiter registered without the time it began to wait: it never counts as starving. */
    static final long UNKNOWN_SINCE = Long.MAX_VALUE;

    private final Rule rule;
    private final long boundMillis;
    private final Map<String, PlacementRequest> waiters = new LinkedHashMap<>();
    private final Map<String, Long> since = new HashMap<>();
    private final Map<String, Integer> nodeOf = new LinkedHashMap<>();

    public Earmarks(Rule rule) { this(rule, NO_BOUND); }

    /** {@code starvationBoundMillis}: how long the oldest waiter waits before its earmark is strict; {@link #NO_BOUND} (0) or less: never. */
    public Earmarks(Rule rule, long starvationBoundMillis) {
        this.rule = rule;
        this.boundMillis = starvationBoundMillis;
    }

    /**
     * The starvation rule: a waiter that began to wait at {@code sinceMillis} has waited past {@code boundMillis} at
     * {@code nowMillis}. A bound of 0 or less is off; an unknown start ({@link #UNKNOWN_SINCE}) never starves, nor does
     * a start after now (a clock behind the pod's creation time).
     */
    static boolean starving(long sinceMillis, long nowMillis, long boundMillis) {
        if (boundMillis <= 0 || sinceMillis == UNKNOWN_SINCE || nowMillis < sinceMillis) return false;
        return nowMillis - sinceMillis >= boundMillis;
    }

    /**
     * The nodes a request must keep off ({@code off}, null: none) and those it may not fall back onto even when it fits
     * nowhere else ({@code strict}, a subset of {@code off}; null: none).
     */
    record Keep(BitSet off, BitSet strict) {
        static final Keep NONE = new Keep(null, null);
    }

    public Rule rule() { return rule; }

    /** Registers a waiting replica under its stable key (the pod's UID); a key already waiting keeps its place. */
    void await(String key, PlacementRequest r) { await(key, r, UNKNOWN_SINCE); }

    /** As {@link #await(String, PlacementRequest)}, waiting since {@code sinceMillis} (the first time given stays). */
    void await(String key, PlacementRequest r, long sinceMillis) {
        if (rule == Rule.OFF || key == null || !r.wantsClique()) return;
        if (waiters.putIfAbsent(key, r) == null || since.getOrDefault(key, UNKNOWN_SINCE) == UNKNOWN_SINCE) since.put(key, sinceMillis);
    }

    /** The waiter was placed or is gone: its earmark is lifted. */
    void done(String key) {
        if (key == null) return;
        waiters.remove(key);
        since.remove(key);
        nodeOf.remove(key);
    }

    /** The queue as it is now, in its order (priority, then age): other waiters leave, earmarks of those that stay are kept. */
    void queue(Map<String, PlacementRequest> queue) { queue(queue, Map.of()); }

    /** As {@link #queue(Map)}, with when each waiter began to wait ({@code sinceMillis}; a key not there keeps what it had, else unknown). */
    void queue(Map<String, PlacementRequest> queue, Map<String, Long> sinceMillis) {
        Set<String> keep = new HashSet<>(queue.keySet());
        waiters.clear();
        nodeOf.keySet().retainAll(keep);
        since.keySet().retainAll(keep);
        queue.forEach((k, r) -> await(k, r, sinceMillis.getOrDefault(k, since.getOrDefault(k, UNKNOWN_SINCE))));
    }

    boolean isWaiting(String key) { return key != null && waiters.containsKey(key); }

    /** The node earmarked for {@code key} now, or -1. */
    int nodeOf(String key) { return nodeOf.getOrDefault(key, -1); }

    /**
     * Moves every earmark to the node now closest to a free clique for its waiter, oldest first, and
     * returns the nodes a request for {@code holder} (a waiter's key, or null for any other request)
     * must keep off: every earmark but those of {@code holder} and of younger waiters. Null when none.
     */
    BitSet offLimits(String holder, ClusterState state, NodeIndex index) {
        return keep(holder, state, index, Long.MIN_VALUE).off();
    }

    /**
     * As {@link #offLimits}, at {@code nowMillis}: the nodes {@code holder} keeps off, and among them the earmark of
     * a starving oldest waiter ({@link #starving}), which it may not fall back onto. Under {@link Rule#STRICT}
     * every earmark it keeps off is strict.
     */
    Keep keep(String holder, ClusterState state, NodeIndex index, long nowMillis) {
        if (rule == Rule.OFF || waiters.isEmpty()) return Keep.NONE;
        BitSet taken = new BitSet();
        BitSet off = null;
        BitSet strict = null;
        boolean older = true;
        int n = 0;
        for (Iterator<Map.Entry<String, PlacementRequest>> it = waiters.entrySet().iterator(); it.hasNext(); n++) {
            Map.Entry<String, PlacementRequest> e = it.next();
            if (n >= LIMIT) {
                nodeOf.remove(e.getKey()); // moved back in the queue: no earmark
                continue;
            }
            if (e.getKey().equals(holder)) older = false;
            int node = choose(state, index, e.getValue(), nodeOf.getOrDefault(e.getKey(), -1), taken);
            if (node < 0) {
                nodeOf.remove(e.getKey());
                continue;
            }
            nodeOf.put(e.getKey(), node);
            taken.set(node);
            if (older && !e.getKey().equals(holder)) {
                if (off == null) off = new BitSet();
                off.set(node);
                if (rule == Rule.STRICT || (n == 0 && starving(since.getOrDefault(e.getKey(), UNKNOWN_SINCE), nowMillis, boundMillis))) {
                    if (strict == null) strict = new BitSet();
                    strict.set(node);
                }
            }
        }
        return new Keep(off, strict);
    }

    /**
     * The node with the fewest GPUs to drain for {@code r}, keeping {@code current} on a tie, else the lowest index.
     * Every decision asks while a replica waits, so it reads the index's distinct (board, free mask) states, not every
     * node: on a packed 12,500-node fleet that is a few hundred states. Within a state the candidate is {@code current}
     * if it is there, else the first member the replica's constraints allow and no older waiter took.
     */
    private static int choose(ClusterState state, NodeIndex index, PlacementRequest r, int current, BitSet taken) {
        int best = -1;
        int bestDrain = Integer.MAX_VALUE;
        for (IndexGroup g : index.groups()) {
            GpuBoard b = g.board();
            if (b == null || !r.pools().contains(g.pool) || b.largestClique() < r.gpus()) continue;
            for (int s = 0; s < g.slots; s++) {
                int drain = drain(b, g.masks[s], r.gpus());
                if (drain < 0 || drain > bestDrain) continue;
                int node = candidate(state, g.nodes[s], r, current, taken);
                if (node < 0) continue;
                if (drain < bestDrain || node == current || (best != current && node < best)) {
                    best = node;
                    bestDrain = drain;
                }
            }
        }
        return best;
    }

    private static int candidate(ClusterState state, BitSet members, PlacementRequest r, int current, BitSet taken) {
        if (current >= 0 && members.get(current) && !taken.get(current) && Packer.staticallyAllowed(state.node(current), r)) return current;
        for (int i = members.nextSetBit(0); i >= 0; i = members.nextSetBit(i + 1)) {
            if (!taken.get(i) && Packer.staticallyAllowed(state.node(i), r)) return i;
        }
        return -1;
    }

    /** Used GPUs inside the board's emptiest {@code k}-clique (0: a clique is free now), or -1 if the board has none. */
    static int drain(GpuBoard b, long free, int k) {
        if (b.largestClique() < k) return -1;
        if (b.isAllToAll()) return Math.max(0, k - Long.bitCount(free));
        int best = Integer.MAX_VALUE;
        for (long q : b.cliques(k)) best = Math.min(best, Long.bitCount(q & ~free));
        return best;
    }
}
