package dev.ace.binpacker.sim;

import com.google.ortools.Loader;
import com.google.ortools.sat.CpModel;
import com.google.ortools.sat.CpSolver;
import com.google.ortools.sat.CpSolverStatus;
import com.google.ortools.sat.BoolVar;
import com.google.ortools.sat.LinearExpr;
import com.google.ortools.sat.LinearExprBuilder;
import com.google.ortools.sat.Literal;
import java.util.ArrayList;
import java.util.List;

/**
 * The offline optimum of protocol A on a small instance, from OR-Tools CP-SAT: every pod known in
 * advance, maximise the allocated milli-GPU subject to per-GPU milli, per-node CPU, GPU count and
 * model constraints. No online policy can beat it, so {@code online / optimum} bounds the gap.
 */
public final class OptimalBound {
    /** @param optimumMilli best solution found; {@code boundMilli} CP-SAT's proven upper bound */
    public record Result(long optimumMilli, long boundMilli, String status, double seconds) {}

    private OptimalBound() {}

    public static Result solve(SimCluster cluster, List<SimPod> pods, double timeLimitSeconds) {
        return solve(cluster, pods, timeLimitSeconds, null);
    }

    /**
     * As {@link #solve(SimCluster, List, double)}, CP-SAT started from {@code hint} (a feasible
     * assignment, e.g. {@link OfflineRepair}'s), so its best solution is never worse than the hint.
     */
    public static Result solve(SimCluster cluster, List<SimPod> pods, double timeLimitSeconds, OfflineRepair.Assignment hint) {
        Loader.loadNativeLibraries();
        CpModel m = new CpModel();
        LinearExprBuilder objective = LinearExpr.newBuilder();
        int nodes = cluster.size();
        List<List<Literal>> onNode = new ArrayList<>();
        List<List<Long>> cpuOnNode = new ArrayList<>();
        List<List<List<Literal>>> onGpu = new ArrayList<>();
        List<List<List<Long>>> milliOnGpu = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            onNode.add(new ArrayList<>());
            cpuOnNode.add(new ArrayList<>());
            List<List<Literal>> g = new ArrayList<>();
            List<List<Long>> gm = new ArrayList<>();
            for (int k = 0; k < cluster.gpus(n); k++) { g.add(new ArrayList<>()); gm.add(new ArrayList<>()); }
            onGpu.add(g);
            milliOnGpu.add(gm);
        }
        // Whole-GPU pods only count GPUs per node (which GPUs is symmetric); shares pick a GPU that
        // no whole-GPU pod took. GPUs taken whole come first on each node, to cut symmetry.
        List<List<Literal>> wholeOnNode = new ArrayList<>();
        List<List<Long>> wholeCount = new ArrayList<>();
        for (int n = 0; n < nodes; n++) { wholeOnNode.add(new ArrayList<>()); wholeCount.add(new ArrayList<>()); }
        for (int p = 0; p < pods.size(); p++) {
            SimPod pod = pods.get(p);
            List<Literal> choices = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                if (pod.models() != -1 && (pod.models() & (1 << cluster.modelOf(n))) == 0) continue;
                if (pod.cpuMilli() > cluster.cpuCap(n) || pod.numGpu() > cluster.gpus(n)) continue;
                BoolVar x = m.newBoolVar("x" + p + "_" + n);
                if (hint != null) m.addHint(x, hint.node()[p] == n ? 1 : 0);
                choices.add(x);
                onNode.get(n).add(x);
                cpuOnNode.get(n).add(pod.cpuMilli());
                objective.addTerm(x, pod.gpuMilli());
                if (pod.cpuOnly()) continue;
                if (!pod.isShare()) {
                    wholeOnNode.get(n).add(x);
                    wholeCount.get(n).add((long) pod.numGpu());
                    continue;
                }
                Literal[] use = new Literal[cluster.gpus(n)];
                int hinted = hint == null || hint.node()[p] != n ? -1 : remap(cluster, pods, hint, n)[Long.numberOfTrailingZeros(hint.gpus()[p])];
                for (int g = 0; g < use.length; g++) {
                    use[g] = m.newBoolVar("u" + p + "_" + n + "_" + g);
                    if (hint != null) m.addHint((BoolVar) use[g], g == hinted ? 1 : 0);
                    onGpu.get(n).get(g).add(use[g]);
                    milliOnGpu.get(n).get(g).add((long) pod.milli());
                }
                m.addEquality(LinearExpr.sum(use), x);
            }
            if (!choices.isEmpty()) m.addAtMostOne(choices);
        }
        for (int n = 0; n < nodes; n++) {
            m.addLessOrEqual(weighted(onNode.get(n), cpuOnNode.get(n)), cluster.cpuCap(n));
            BoolVar[] whole = new BoolVar[cluster.gpus(n)];
            for (int g = 0; g < whole.length; g++) {
                whole[g] = m.newBoolVar("w" + n + "_" + g);
                if (hint != null) m.addHint(whole[g], g < wholeGpus(pods, hint, n) ? 1 : 0);
                if (g > 0) m.addImplication(whole[g], whole[g - 1]);
                LinearExprBuilder load = LinearExpr.newBuilder();
                List<Literal> v = onGpu.get(n).get(g);
                for (int i = 0; i < v.size(); i++) load.addTerm(v.get(i), milliOnGpu.get(n).get(g).get(i));
                load.addTerm(whole[g], 1000);
                m.addLessOrEqual(load, 1000);
            }
            m.addEquality(weighted(wholeOnNode.get(n), wholeCount.get(n)), LinearExpr.sum(whole));
        }
        m.maximize(objective);
        CpSolver solver = new CpSolver();
        solver.getParameters().setMaxTimeInSeconds(timeLimitSeconds);
        solver.getParameters().setNumWorkers(1); // the machine is shared; one worker keeps runs comparable
        CpSolverStatus status = solver.solve(m);
        return new Result(Math.round(solver.objectiveValue()), Math.round(solver.bestObjectiveBound()), status.name(), solver.wallTime());
    }

    /** GPUs of node {@code n} that the hint's whole-GPU pods take. */
    private static int wholeGpus(List<SimPod> pods, OfflineRepair.Assignment hint, int n) {
        int w = 0;
        for (int p = 0; p < pods.size(); p++) {
            if (hint.node()[p] == n && !pods.get(p).cpuOnly() && !pods.get(p).isShare()) w += pods.get(p).numGpu();
        }
        return w;
    }

    /**
     * The model puts GPUs taken whole first on each node: the hint's GPU indices of node {@code n}
     * renumbered so, whole-GPU GPUs first, then the others in index order.
     */
    private static int[] remap(SimCluster cluster, List<SimPod> pods, OfflineRepair.Assignment hint, int n) {
        long whole = 0;
        for (int p = 0; p < pods.size(); p++) {
            if (hint.node()[p] == n && !pods.get(p).cpuOnly() && !pods.get(p).isShare()) whole |= hint.gpus()[p];
        }
        int[] to = new int[cluster.gpus(n)];
        int next = 0;
        for (int g = 0; g < to.length; g++) if ((whole & (1L << g)) != 0) to[g] = next++;
        for (int g = 0; g < to.length; g++) if ((whole & (1L << g)) == 0) to[g] = next++;
        return to;
    }

    private static LinearExpr weighted(List<Literal> vars, List<Long> weights) {
        LinearExprBuilder b = LinearExpr.newBuilder();
        for (int i = 0; i < vars.size(); i++) b.addTerm(vars.get(i), weights.get(i));
        return b.build();
    }
}
