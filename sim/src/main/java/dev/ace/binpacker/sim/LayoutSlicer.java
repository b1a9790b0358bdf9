package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.mig.DemandWindow;
import dev.ace.binpacker.placement.mig.LayoutPlanner;
import dev.ace.binpacker.placement.mig.PlannerConfig;
import dev.ace.binpacker.placement.mig.PoolNode;
import dev.ace.binpacker.placement.mig.Recommendation;
import dev.ace.binpacker.placement.mig.StaticSlices;
import dev.ace.binpacker.topology.MigConfig;
import dev.ace.binpacker.topology.MigGeometry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * MIG nodes cut by mig-parted configs (every GPU of a node alike), pods taking existing instances of
 * their profile ({@link StaticSlices}: the busiest GPU first). Without a planner the layouts never
 * change (the static baseline); with one, {@link LayoutPlanner} runs every tick on the demand seen
 * (running plus waiting by profile); a node it names takes no new pods, and once its pods have
 * finished it is out of service for {@code reconfigureSeconds}, then comes back with its new config.
 */
final class LayoutSlicer implements Slicer {
    private static final MigGeometry H100 = MigGeometry.H100_80GB;

    private final int gpusPerNode;
    private final MigConfig[] config;
    private final String[] pending;
    private final double[] until;
    private final int[][][] free; // node, gpu, size index
    private final int[][] busy;   // node, gpu: compute slices in use
    private final int[] runningOn;
    private final Map<String, int[]> running = new HashMap<>();
    private final Map<String, MigConfig> allowed = new TreeMap<>();
    private final LayoutPlanner planner;
    private final DemandWindow demand;
    private final double reconfigureSeconds;
    private int changes;

    /** @param initial each node's config name; {@code planner} null for static layouts */
    LayoutSlicer(List<String> initial, int gpusPerNode, PlannerConfig planner, double reconfigureSeconds) {
        for (MigConfig c : MigConfig.defaults(H100)) allowed.put(c.name(), c);
        int n = initial.size();
        this.gpusPerNode = gpusPerNode;
        config = new MigConfig[n];
        pending = new String[n];
        until = new double[n];
        free = new int[n][gpusPerNode][SlicingTrace.PROFILES.length];
        busy = new int[n][gpusPerNode];
        runningOn = new int[n];
        for (int i = 0; i < n; i++) setConfig(i, initial.get(i));
        this.planner = planner == null ? null : new LayoutPlanner(planner, List.copyOf(allowed.values()));
        this.demand = planner == null ? null : new DemandWindow(planner.windowSeconds(), ProtocolC.PLANNER_MEMORY_SECONDS);
        this.reconfigureSeconds = reconfigureSeconds;
    }

    static List<String> configNames() { return MigConfig.defaults(H100).stream().map(MigConfig::name).toList(); }

    private void setConfig(int node, String name) {
        MigConfig c = allowed.get(name);
        if (c == null) throw new IllegalArgumentException("no mig-parted config " + name + "; known: " + allowed.keySet());
        config[node] = c;
        for (int g = 0; g < gpusPerNode; g++) {
            for (int k = 0; k < SlicingTrace.PROFILES.length; k++) free[node][g][k] = c.count(SlicingTrace.PROFILES[k]);
        }
    }

    @Override
    public boolean place(SlicingTrace.Pod p, double now) {
        int k = SlicingTrace.index(p.profile());
        List<StaticSlices.Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < config.length; i++) {
            if (pending[i] != null) continue;
            for (int g = 0; g < gpusPerNode; g++) {
                if (free[i][g][k] > 0) gpus.add(new StaticSlices.Gpu(name(i), i * gpusPerNode + g, free[i][g][k], busy[i][g], runningOn[i] > 0));
            }
        }
        Optional<StaticSlices.Gpu> c = StaticSlices.choose(gpus);
        if (c.isEmpty()) return false;
        int node = c.get().gpu() / gpusPerNode, g = c.get().gpu() % gpusPerNode;
        free[node][g][k]--;
        busy[node][g] += p.slices();
        runningOn[node]++;
        running.put(p.id(), new int[]{node, g, k, p.slices()});
        return true;
    }

    @Override
    public void release(String id) {
        int[] r = running.remove(id);
        if (r == null) return;
        free[r[0]][r[1]][r[2]]++;
        busy[r[0]][r[1]] -= r[3];
        runningOn[r[0]]--;
    }

    @Override
    public boolean tick(double now, List<SlicingTrace.Pod> waiting) {
        if (planner == null) return false;
        boolean back = false;
        for (int i = 0; i < config.length; i++) {
            if (pending[i] != null && until[i] == Double.POSITIVE_INFINITY && runningOn[i] == 0) until[i] = now + reconfigureSeconds;
            if (pending[i] != null && until[i] <= now) {
                setConfig(i, pending[i]);
                pending[i] = null;
                back = true;
            }
        }
        Map<String, Integer> wanted = new TreeMap<>();
        for (int[] r : running.values()) wanted.merge(SlicingTrace.PROFILES[r[2]], 1, Integer::sum);
        for (SlicingTrace.Pod p : waiting) wanted.merge(p.profile(), 1, Integer::sum);
        demand.record((long) now, wanted);
        List<PoolNode> nodes = new ArrayList<>();
        for (int i = 0; i < config.length; i++) {
            nodes.add(new PoolNode(name(i), H100, gpusPerNode, pending[i] != null ? pending[i] : config[i].name(), runningOn[i], pending[i] != null));
        }
        for (Recommendation r : planner.plan(nodes, demand).changes()) {
            int i = Integer.parseInt(r.node().substring(1));
            pending[i] = r.to();
            until[i] = r.drainFirst() ? Double.POSITIVE_INFINITY : now + reconfigureSeconds; // cordoned until its pods finish
            changes++;
        }
        return back;
    }

    @Override
    public int layoutChanges() { return changes; }

    private static String name(int i) { return "n" + i; }
}
