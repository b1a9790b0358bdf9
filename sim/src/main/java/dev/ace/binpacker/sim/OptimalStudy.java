package dev.ace.binpacker.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Online policies against the CP-SAT optimum on small openb instances: {@code nodes} GPU nodes
 * drawn at random (seeded) from the openb node list, pods arriving as in protocol A up to 130 %
 * of that subset's GPU capacity.
 */
public final class OptimalStudy {
    private OptimalStudy() {}

    public static void run(List<OpenbNode> all, List<SimPod> trace, int nodes, List<Long> seeds, List<String> policies,
                           double timeLimit, PrintStream out, PrintStream err) {
        out.printf("instance: %d openb nodes, pods to 130 %% of their GPU capacity, CP-SAT time limit %.0f s, 1 worker,"
                + " started from the best repaired online placement%n", nodes, timeLimit);
        out.printf("%-6s %6s %6s %9s %9s %-10s", "seed", "GPUs", "pods", "best%", "bound%", "status");
        for (String p : policies) out.printf(" %10s %7s %9s", p + "%", "gap", "repaired%");
        out.println();
        for (long seed : seeds) {
            List<OpenbNode> pick = new ArrayList<>(all);
            Collections.shuffle(pick, new Random(seed));
            SimCluster c = new SimCluster(pick.subList(0, nodes), new OpenbBoards());
            List<SimPod> pods = resolve(trace, c);
            ProtocolA a = new ProtocolA(c, pods);
            List<SimPod> arrivals = Arrivals.sequence(pods, seed, 1.3, c.totalMilli());
            List<OfflineRepair.Assignment> online = new ArrayList<>(), repaired = new ArrayList<>();
            OfflineRepair.Assignment hint = null;
            for (String p : policies) {
                OfflineRepair.Assignment o = OfflineRepair.online(c, arrivals, a.target(), p, seed);
                OfflineRepair.Assignment r = OfflineRepair.improve(c, arrivals, o, 10);
                online.add(o);
                repaired.add(r);
                if (hint == null || r.allocatedMilli() > hint.allocatedMilli()) hint = r;
            }
            err.printf("seed %d: solving %d pods on %d GPUs...%n", seed, arrivals.size(), c.totalMilli() / 1000);
            OptimalBound.Result opt = OptimalBound.solve(c, arrivals, timeLimit, hint);
            long best = Math.max(opt.optimumMilli(), hint.allocatedMilli());
            double cap = c.totalMilli();
            out.printf(Locale.ROOT, "%-6d %6d %6d %9.2f %9.2f %-10s", seed, c.totalMilli() / 1000, arrivals.size(),
                    100 * best / cap, 100 * opt.boundMilli() / cap, opt.status());
            for (int i = 0; i < policies.size(); i++) {
                long got = online.get(i).allocatedMilli();
                out.printf(Locale.ROOT, " %10.2f %6.2f%% %9.2f", 100 * got / cap, 100.0 * (best - got) / Math.max(1, best),
                        100 * repaired.get(i).allocatedMilli() / cap);
            }
            out.println();
        }
        out.println("best = CP-SAT's best solution, started from the best repaired placement (OfflineRepair: refused pods");
        out.println("inserted offline by moving or dropping one placed pod); gap = (best - online policy) / best. The best is");
        out.println("proven optimal when status is OPTIMAL, otherwise the optimum lies between it and the bound (100 % = every GPU)");
    }

    /** The pod list's model constraints re-resolved against the subset's model index. */
    private static List<SimPod> resolve(List<SimPod> trace, SimCluster c) {
        List<SimPod> out = new ArrayList<>(trace.size());
        for (SimPod p : trace) {
            out.add(new SimPod(p.name(), p.cpuMilli(), p.memMib(), p.numGpu(), p.milli(), p.spec(), OpenbLoader.models(p.spec(), c.modelIndex())));
        }
        return out;
    }
}
