package dev.ace.binpacker.sim;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPConstraint;
import com.google.ortools.linearsolver.MPObjective;
import com.google.ortools.linearsolver.MPSolver;
import com.google.ortools.linearsolver.MPVariable;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A proven floor under protocol B's waiting, for any policy that starts every TP replica on an
 * NVLink clique (issue 20): the fewest TP replicas that must wait, on the same arrivals and
 * lifetimes, with the whole trace known in advance, and, with a tail limit of {@code T} minutes,
 * the fewest that must wait if the p95 of the waits is to stay at or under {@code T}.
 *
 * <p>It is a relaxation, so every schedule a real policy makes is feasible in it and its optimum
 * (or the solver's proven bound on it) is at or below what any such policy can reach:
 * <ul>
 *   <li>no boards: the nodes whose largest NVLink clique has {@code c >= 2} GPUs form one pool of
 *       fungible GPUs per {@code c}, and a TP {@code k} replica takes {@code k} of them from a pool
 *       with {@code c >= k} (on a real board it takes {@code k} GPUs of one node of that pool);</li>
 *   <li>no other pods: shares, single-GPU and batch pods take nothing (in a run they only take
 *       GPUs from the TP replicas);</li>
 *   <li>a replica either starts on arrival (it holds its GPUs {@code [a, a + d)}), or waits at most
 *       {@code T} (it is counted as waiting and holds {@code [a + T, a + d)}, a part of what it holds
 *       however short the wait is), or waits longer (counted, and it holds nothing);</li>
 *   <li>GPUs are counted only at the moments a replica can start, up to the trace's last arrival
 *       (the simulator's figures end there too; a replica still waiting then counts as waiting).</li>
 * </ul>
 * A wait is what {@link ProtocolB} counts as one: a replica that does not start on arrival (still waiting at the
 * end included). Waits are pooled over the traces, as the simulator's figures are. p95 follows
 * {@link ProtocolB#quantile}: it is at or under {@code T} only if at most 5 % of the waits are longer,
 * which the model asks as {@code 20 * long <= waits}.
 */
public final class WaitBound {
    /**
     * @param floor  the fewest waits any policy needs (the MIP solver's proven bound); {@code -1} when no schedule at all meets
     *               the tail limit (status INFEASIBLE)
     * @param best   the fewest waits of a schedule the solver found ({@code -1} when none)
     * @param status the solver's status (OPTIMAL: floor == best)
     */
    public record Result(int replicas, int floor, int best, String status, double seconds) {
        public boolean infeasible() { return status.equals("INFEASIBLE"); }

        public double floorPct() { return 100.0 * floor / replicas; }
    }

    /** One way a replica can run in the relaxation: in a pool, holding its GPUs from {@code start} to {@code end}. */
    private record Option(int pool, double start, double end, int gpus, MPVariable x) {}

    private final int[] cliqueSize;
    private final long[] capacity;

    /** The cluster's clique pools: GPUs of the nodes whose largest NVLink clique has {@code c} GPUs, for each {@code c >= 2}. */
    public WaitBound(SimCluster cluster) {
        ClusterState s = cluster.freshState();
        TreeMap<Integer, Long> gpus = new TreeMap<>();
        for (int i = 0; i < cluster.size(); i++) {
            GpuBoard b = s.node(i).board();
            if (b.largestClique() >= 2) gpus.merge(b.largestClique(), (long) b.gpuCount(), Long::sum);
        }
        cliqueSize = gpus.keySet().stream().mapToInt(Integer::intValue).toArray();
        capacity = gpus.values().stream().mapToLong(Long::longValue).toArray();
    }

    /** Clique size to pooled GPUs, as the relaxation sees the cluster. */
    public Map<Integer, Long> pools() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int p = 0; p < cliqueSize.length; p++) m.put(cliqueSize[p], capacity[p]);
        return m;
    }

    /** The fewest TP replicas that must wait, whatever their waits. */
    public Result minWaits(List<List<FleetPod>> traces, double timeLimitSeconds) {
        return solve(traces, Double.NaN, timeLimitSeconds);
    }

    /** The fewest TP replicas that must wait if the p95 of the waits is to be at most {@code tailMinutes}. */
    public Result minWaitsWithTail(List<List<FleetPod>> traces, double tailMinutes, double timeLimitSeconds) {
        if (!(tailMinutes > 0)) throw new IllegalArgumentException("the tail limit must be positive, not " + tailMinutes);
        return solve(traces, tailMinutes * 60, timeLimitSeconds);
    }

    private Result solve(List<List<FleetPod>> traces, double tail, double timeLimitSeconds) {
        Loader.loadNativeLibraries();
        MPSolver m = MPSolver.createSolver("SCIP");
        if (m == null) throw new IllegalStateException("OR-Tools has no SCIP solver on this machine");
        m.suppressOutput();
        List<MPVariable> waitedShort = new ArrayList<>(), waitedLong = new ArrayList<>();
        int replicas = 0;
        for (List<FleetPod> trace : traces) {
            if (trace.isEmpty()) continue;
            double end = trace.get(trace.size() - 1).arrival();
            List<Option> options = new ArrayList<>();
            for (FleetPod pod : trace) {
                if (!pod.isTp()) continue;
                replicas++;
                List<MPVariable> ways = new ArrayList<>();
                for (int p = 0; p < cliqueSize.length; p++) {
                    if (cliqueSize[p] < pod.tp()) continue;
                    MPVariable now = m.makeBoolVar(pod.id() + "@" + p);
                    options.add(new Option(p, pod.arrival(), pod.arrival() + pod.duration(), pod.gpus(), now));
                    ways.add(now);
                    if (!Double.isNaN(tail) && pod.duration() > tail) {
                        MPVariable shortWait = m.makeBoolVar(pod.id() + "@" + p + "+T");
                        options.add(new Option(p, pod.arrival() + tail, pod.arrival() + pod.duration(), pod.gpus(), shortWait));
                        ways.add(shortWait);
                        waitedShort.add(shortWait);
                    }
                }
                if (!Double.isNaN(tail) && pod.duration() <= tail) {
                    // it waits at most T and lives at most T: nothing it holds is sure to overlap anything
                    MPVariable shortWait = m.makeBoolVar(pod.id() + "+T");
                    ways.add(shortWait);
                    waitedShort.add(shortWait);
                }
                MPVariable late = m.makeBoolVar(pod.id() + "-late");
                ways.add(late);
                waitedLong.add(late);
                MPConstraint one = m.makeConstraint(1, 1);
                for (MPVariable w : ways) one.setCoefficient(w, 1);
            }
            addCapacity(m, options, end);
        }
        MPObjective waits = m.objective();
        for (MPVariable w : waitedShort) waits.setCoefficient(w, 1);
        for (MPVariable w : waitedLong) waits.setCoefficient(w, 1);
        waits.setMinimization();
        if (!Double.isNaN(tail)) {
            // p95 <= T: at most 5 % of the waits are longer than T, 20 long <= short + long, i.e. 19 long - short <= 0
            MPConstraint tailRule = m.makeConstraint(Double.NEGATIVE_INFINITY, 0);
            for (MPVariable w : waitedShort) tailRule.setCoefficient(w, -1);
            for (MPVariable w : waitedLong) tailRule.setCoefficient(w, 19);
        }
        m.setTimeLimit((long) (timeLimitSeconds * 1000));
        long t0 = System.nanoTime();
        MPSolver.ResultStatus status = m.solve();
        double seconds = (System.nanoTime() - t0) / 1e9;
        boolean found = status == MPSolver.ResultStatus.OPTIMAL || status == MPSolver.ResultStatus.FEASIBLE;
        int floor = !found ? -1 : Math.max(0, (int) Math.ceil(waits.bestBound() - 1e-6));
        Result r = new Result(replicas, floor, found ? (int) Math.round(waits.value()) : -1, status.name(), seconds);
        m.delete();
        return r;
    }

    /** In each pool, at each moment a replica can start (up to {@code end}), the GPUs held are at most the pool's. */
    private void addCapacity(MPSolver m, List<Option> options, double end) {
        for (int p = 0; p < cliqueSize.length; p++) {
            TreeMap<Double, MPConstraint> held = new TreeMap<>();
            for (Option o : options) {
                if (o.pool() == p && o.start() <= end) held.computeIfAbsent(o.start(), t -> m.makeConstraint(Double.NEGATIVE_INFINITY, capacity[o.pool()]));
            }
            for (Option o : options) {
                if (o.pool() != p) continue;
                for (MPConstraint c : held.subMap(o.start(), true, o.end(), false).values()) c.setCoefficient(o.x(), o.gpus());
            }
        }
    }
}
