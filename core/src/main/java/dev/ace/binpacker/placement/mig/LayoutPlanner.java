package dev.ace.binpacker.placement.mig;

import dev.ace.binpacker.topology.MigConfig;
import dev.ace.binpacker.topology.MigGeometry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Chooses a mig-parted config for each idle slicing node from the demand that persisted. The
 * configs the operator allows are checked once against each model's geometry (a config a GPU cannot
 * hold is an error, not a recommendation). Then: the nodes it may not touch (running pods, or
 * already in change) supply what their config gives; what persisted demand they leave is the need.
 * Idle nodes, those whose current config serves most of the need first, each keep their config
 * unless another allowed one serves more than {@code 1 + margin} times its compute slices of the
 * need, within the budget of nodes in change. The pick serves the most compute slices of need per
 * node (so the fewest GPUs serve it), then leaves the longest free run on each GPU, then cuts the
 * fewest instances nobody asked for. When demand is still unserved, a node with running pods may be
 * named too, to be cordoned and changed once its pods have finished ({@link Recommendation#drainFirst}):
 * the planner never changes a node that runs pods. It only recommends: acting on a node is the caller's.
 */
public final class LayoutPlanner {
    /** What the planner decided: the changes and the persisted demand no node serves afterwards. */
    public record Plan(List<Recommendation> changes, Map<String, Integer> unserved) {}

    private final PlannerConfig config;
    private final Map<String, List<MigConfig>> allowed = new HashMap<>();
    private final Map<String, MigConfig> byName = new LinkedHashMap<>();
    private final Map<String, Integer> freeRuns = new HashMap<>();

    /** @param allowed the configs the operator names; each must fit every model it is used on */
    public LayoutPlanner(PlannerConfig config, List<MigConfig> allowed) {
        this.config = config;
        for (MigConfig c : allowed) {
            if (byName.put(c.name(), c) != null) throw new IllegalArgumentException("mig-parted config " + c.name() + " is named twice");
        }
        if (byName.isEmpty()) throw new IllegalArgumentException("the planner needs at least one allowed mig-parted config");
    }

    /** The allowed configs a GPU of this model can hold. */
    public List<MigConfig> allowedFor(MigGeometry g) {
        return allowed.computeIfAbsent(g.model(), m -> byName.values().stream().filter(c -> c.tryLayout(g).isPresent()).toList());
    }

    /** Demand is per profile; nodes of another model than the profile's are never asked to serve it. */
    public Plan plan(List<PoolNode> nodes, DemandWindow demand) {
        Map<String, Integer> need = new TreeMap<>(demand.persisted().orElse(Map.of()));
        List<PoolNode> idle = new ArrayList<>();
        Map<PoolNode, Map<String, Integer>> busy = new LinkedHashMap<>();
        int inChange = 0;
        for (PoolNode n : nodes) {
            if (n.changing()) inChange++;
            if (n.changing() || n.runningPods() > 0) {
                Map<String, Integer> served = served(configOf(n), need, n.gpus());
                served.forEach((k, v) -> need.merge(k, -v, Integer::sum));
                if (!n.changing()) busy.put(n, served);
            } else {
                idle.add(n);
            }
        }
        Map<String, Integer> atStart = Map.copyOf(need);
        idle.sort(Comparator.comparingInt((PoolNode n) -> -value(configOf(n), atStart, n.gpus(), n.geometry())).thenComparing(PoolNode::name));
        List<Recommendation> changes = new ArrayList<>();
        // First every idle node whose config serves some of the need keeps it, and what it serves is
        // taken off. Then each of them may change, judged on what is left plus what it served itself
        // (its own share, not one another node already serves: that swap is how a steady mix flaps).
        // Last, the nodes that served nothing, for what is left.
        List<PoolNode> deferred = new ArrayList<>();
        Map<PoolNode, Map<String, Integer>> kept = new LinkedHashMap<>();
        for (PoolNode n : idle) {
            Map<String, Integer> served = served(configOf(n), need, n.gpus());
            if (served.isEmpty()) deferred.add(n);
            else {
                kept.put(n, served);
                served.forEach((k, v) -> need.merge(k, -v, Integer::sum));
            }
        }
        int[] budget = {inChange};
        kept.forEach((n, served) -> {
            served.forEach((k, v) -> need.merge(k, v, Integer::sum));
            decide(n, need, changes, budget);
        });
        for (PoolNode n : deferred) decide(n, need, changes, budget);
        // Demand still unserved and budget left: a busy node, fewest pods first, may be cordoned to
        // change once its pods have finished (never evicted). It is judged on its own share, as above.
        if (config.drain() && need.values().stream().anyMatch(v -> v > 0)) {
            List<PoolNode> order = new ArrayList<>(busy.keySet());
            order.sort(Comparator.comparingInt(PoolNode::runningPods).thenComparing(PoolNode::name));
            for (PoolNode n : order) {
                if (budget[0] >= config.budget()) break;
                busy.get(n).forEach((k, v) -> need.merge(k, v, Integer::sum));
                decide(n, need, changes, budget);
            }
        }
        need.values().removeIf(v -> v <= 0);
        return new Plan(List.copyOf(changes), Map.copyOf(need));
    }

    private void decide(PoolNode n, Map<String, Integer> need, List<Recommendation> changes, int[] inChange) {
        MigConfig cur = configOf(n);
        int curValue = value(cur, need, n.gpus(), n.geometry());
        MigConfig best = cur;
        int bestValue = curValue;
        for (MigConfig c : allowedFor(n.geometry())) {
            int v = value(c, need, n.gpus(), n.geometry());
            if (v > bestValue || v == bestValue && v > 0 && better(c, best, n.geometry(), need, n.gpus())) {
                best = c;
                bestValue = v;
            }
        }
        boolean change = best != cur && bestValue > (1 + config.margin()) * curValue && inChange[0] < config.budget();
        if (change) {
            inChange[0]++;
            changes.add(new Recommendation(n.name(), n.config() == null ? "" : n.config(), best.name(), n.runningPods() > 0,
                    reason(n, cur, curValue, best, bestValue, need)));
        }
        subtract(need, change ? best : cur, n.gpus());
    }

    /** The node's config, or null when it is none the operator allows or its GPUs cannot hold it. */
    private MigConfig configOf(PoolNode n) {
        MigConfig c = n.config() == null ? null : byName.get(n.config());
        return c != null && allowedFor(n.geometry()).contains(c) ? c : null;
    }

    /** Compute slices of {@code need} that {@code gpus} GPUs with config {@code c} serve. */
    static int value(MigConfig c, Map<String, Integer> need, int gpus, MigGeometry g) {
        if (c == null) return 0;
        int v = 0;
        for (var e : c.devices().entrySet()) {
            if (g.shape(e.getKey()).isEmpty()) return 0;
            v += Math.min(Math.max(0, need.getOrDefault(e.getKey(), 0)), e.getValue() * gpus) * g.require(e.getKey()).profile().computeSlices();
        }
        return v;
    }

    private boolean better(MigConfig a, MigConfig b, MigGeometry g, Map<String, Integer> need, int gpus) {
        if (b == null) return true;
        int ra = freeRun(a, g), rb = freeRun(b, g);
        if (ra != rb) return ra > rb;
        int wa = unasked(a, need, gpus), wb = unasked(b, need, gpus);
        if (wa != wb) return wa < wb;
        return a.name().compareTo(b.name()) < 0;
    }

    private int freeRun(MigConfig c, MigGeometry g) {
        return freeRuns.computeIfAbsent(g.model() + "/" + c.name(), k -> c.layout(g).largestFreeRun());
    }

    private static int unasked(MigConfig c, Map<String, Integer> need, int gpus) {
        int w = 0;
        for (var e : c.devices().entrySet()) w += Math.max(0, e.getValue() * gpus - Math.max(0, need.getOrDefault(e.getKey(), 0)));
        return w;
    }

    private static void subtract(Map<String, Integer> need, MigConfig c, int gpus) {
        served(c, need, gpus).forEach((k, v) -> need.merge(k, -v, Integer::sum));
    }

    /** Instances of {@code need} that {@code gpus} GPUs with config {@code c} serve, by profile (none zero). */
    private static Map<String, Integer> served(MigConfig c, Map<String, Integer> need, int gpus) {
        Map<String, Integer> out = new TreeMap<>();
        if (c == null) return out;
        for (var e : c.devices().entrySet()) {
            int v = Math.min(Math.max(0, need.getOrDefault(e.getKey(), 0)), e.getValue() * gpus);
            if (v > 0) out.put(e.getKey(), v);
        }
        return out;
    }

    private static String reason(PoolNode n, MigConfig cur, int curValue, MigConfig best, int bestValue, Map<String, Integer> need) {
        Map<String, Integer> wanted = new TreeMap<>();
        need.forEach((k, v) -> { if (v > 0) wanted.put(k, v); });
        return String.format(Locale.ROOT, (n.runningPods() > 0 ? "drain first (" + n.runningPods() + " pods running, none evicted)" : "idle node")
                + "; persisted unmet demand %s: %s serves %d compute slices of it on %d GPUs, %s serves %d",
                wanted, best.name(), bestValue, n.gpus(), cur == null ? "its current config (" + n.config() + ", not allowed or not holdable)" : cur.name(), curValue);
    }
}
