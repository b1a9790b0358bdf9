package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.mig.PlannerConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntFunction;

/**
 * Protocol C: a slicing pool of H100 80GB nodes and the small pods of {@link SlicingTrace}. Pods
 * that do not fit wait and are retried, in arrival order, whenever capacity comes back (a departure,
 * a node back from a layout change). The figure is the fewest GPUs at which the 95th percentile of
 * the wait stays within a bound, pods arriving in the first {@link #WARM_UP_SECONDS} left out of it
 * (every policy alike: the planner starts from all-balanced and needs them to adapt).
 */
public final class ProtocolC {
    public static final double TICK_SECONDS = 600;
    public static final double WARM_UP_SECONDS = 6 * 3600;
    public static final List<String> POLICIES = List.of("whole", "mps", "static-hindsight", "mig-first-fit", "mig-keep-room", "ace-planner", "ace-planner-drain");
    /** mig-manager's drain, reconfigure and return, as the simulator charges it. */
    static final double RECONFIGURE_SECONDS = 900;
    static final PlannerConfig PLANNER = new PlannerConfig(0.25, 1800, 2, false);
    private final PlannerConfig planner;
    /** The planner provisions for the highest level that persisted 30 min in the last 6 h. */
    static final long PLANNER_MEMORY_SECONDS = 6 * 3600;

    private final int gpusPerNode;
    private final double waitBoundMinutes;

    public ProtocolC(int gpusPerNode, double waitBoundMinutes) { this(gpusPerNode, waitBoundMinutes, PLANNER.windowSeconds()); }

    /** @param plannerWindowSeconds how long demand must persist before the planner acts on it */
    public ProtocolC(int gpusPerNode, double waitBoundMinutes, long plannerWindowSeconds) {
        this.planner = new PlannerConfig(PLANNER.margin(), plannerWindowSeconds, PLANNER.budget(), false);
        if (gpusPerNode < 1 || !(waitBoundMinutes >= 0)) throw new IllegalArgumentException("protocol C needs GPUs per node >= 1 and a wait bound >= 0");
        this.gpusPerNode = gpusPerNode;
        this.waitBoundMinutes = waitBoundMinutes;
    }

    /** Most nodes the search tries; a policy that needs more is reported as not meeting the bound. */
    public static final int MAX_NODES = 512;

    /** One policy on one trace: GPUs needed (-1: not within {@link #MAX_NODES} nodes), and the wait p95 and layout changes there. */
    public record Result(String policy, long seed, int gpus, double p95Minutes, int layoutChanges) {}

    private record Departure(double at, String id) {}

    /** Wait p95 in minutes (pods after the warm-up) and the slicer's layout changes. */
    static double[] replay(List<SlicingTrace.Pod> pods, Slicer s) {
        PriorityQueue<Departure> deps = new PriorityQueue<>((a, b) -> Double.compare(a.at(), b.at()));
        List<SlicingTrace.Pod> waiting = new ArrayList<>();
        Map<String, Double> started = new HashMap<>();
        double tick = 0, horizon = pods.get(pods.size() - 1).arrival() + 24 * 3600;
        int next = 0;
        while (next < pods.size() || !waiting.isEmpty() && (!deps.isEmpty() || tick <= horizon)) {
            double arrival = next < pods.size() ? pods.get(next).arrival() : Double.POSITIVE_INFINITY;
            double dep = deps.isEmpty() ? Double.POSITIVE_INFINITY : deps.peek().at();
            double t = Math.min(arrival, Math.min(dep, tick));
            if (t > horizon) break;
            if (t == dep) {
                s.release(deps.poll().id());
                retry(waiting, s, t, deps, started);
            } else if (t == tick) {
                if (s.tick(t, waiting)) retry(waiting, s, t, deps, started);
                tick += TICK_SECONDS;
            } else {
                SlicingTrace.Pod p = pods.get(next++);
                if (s.place(p, t)) start(p, t, deps, started);
                else waiting.add(p);
            }
        }
        double end = Math.max(horizon, pods.get(pods.size() - 1).arrival());
        List<Double> waits = new ArrayList<>();
        for (SlicingTrace.Pod p : pods) {
            if (p.arrival() < WARM_UP_SECONDS && pods.get(pods.size() - 1).arrival() > 2 * WARM_UP_SECONDS) continue;
            waits.add((started.getOrDefault(p.id(), end) - p.arrival()) / 60);
        }
        double[] w = waits.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new double[]{ProtocolB.quantile(w, 0.95), s.layoutChanges()};
    }

    private static void start(SlicingTrace.Pod p, double t, PriorityQueue<Departure> deps, Map<String, Double> started) {
        started.put(p.id(), t);
        deps.add(new Departure(t + p.duration(), p.id()));
    }

    /** Oldest first; once a pod of a size fails, pods of that size with as large a share are not tried again. */
    private static void retry(List<SlicingTrace.Pod> waiting, Slicer s, double t, PriorityQueue<Departure> deps, Map<String, Double> started) {
        int[] failed = new int[SlicingTrace.PROFILES.length];
        Arrays.fill(failed, Integer.MAX_VALUE);
        for (Iterator<SlicingTrace.Pod> it = waiting.iterator(); it.hasNext(); ) {
            SlicingTrace.Pod p = it.next();
            int k = SlicingTrace.index(p.profile());
            if (p.milli() >= failed[k]) continue;
            if (s.place(p, t)) {
                it.remove();
                start(p, t, deps, started);
            } else {
                failed[k] = p.milli();
            }
        }
    }

    /** The fewest nodes at which {@code make} meets the wait bound, by doubling then bisection. */
    Result fewest(String policy, long seed, List<SlicingTrace.Pod> pods, IntFunction<Slicer> make) {
        int hi = 1;
        double[] at = replay(pods, make.apply(hi));
        while (at[0] > waitBoundMinutes) {
            if (hi == MAX_NODES) return new Result(policy, seed, -1, at[0], (int) at[1]);
            hi = Math.min(MAX_NODES, hi * 2);
            at = replay(pods, make.apply(hi));
        }
        int lo = hi / 2; // lo fails (or is 0)
        double[] best = at;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            double[] r = replay(pods, make.apply(mid));
            if (r[0] <= waitBoundMinutes) {
                hi = mid;
                best = r;
            } else {
                lo = mid;
            }
        }
        return new Result(policy, seed, hi * gpusPerNode, best[0], (int) best[1]);
    }

    /** Every policy on one trace. */
    public List<Result> run(List<SlicingTrace.Pod> pods, long seed, List<String> policies) {
        List<Result> out = new ArrayList<>();
        for (String p : policies) out.add(fewest(p, seed, pods, slicer(p, pods)));
        return out;
    }

    IntFunction<Slicer> slicer(String policy, List<SlicingTrace.Pod> pods) {
        int g = gpusPerNode;
        return switch (policy) {
            case "whole" -> n -> SimpleSlicers.whole(n * g);
            case "mps" -> n -> SimpleSlicers.mps(n * g);
            case "mig-first-fit" -> n -> SimpleSlicers.dynamic(n * g, false);
            case "mig-keep-room" -> n -> SimpleSlicers.dynamic(n * g, true);
            case "ace-planner" -> n -> new LayoutSlicer(java.util.Collections.nCopies(n, "all-balanced"), g, planner, RECONFIGURE_SECONDS);
            case "ace-planner-drain" -> n -> new LayoutSlicer(java.util.Collections.nCopies(n, "all-balanced"), g,
                    new PlannerConfig(planner.margin(), planner.windowSeconds(), planner.budget(), true), RECONFIGURE_SECONDS);
            case "static-hindsight" -> n -> StaticHindsight.best(pods, n, g);
            default -> throw new IllegalArgumentException("unknown protocol C policy " + policy + "; known: " + POLICIES);
        };
    }
}
