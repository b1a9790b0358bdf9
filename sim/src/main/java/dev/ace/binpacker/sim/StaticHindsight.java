package dev.ace.binpacker.sim;

import dev.ace.binpacker.topology.MigConfig;
import dev.ace.binpacker.topology.MigGeometry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The best static layout, chosen offline with the whole trace known: nodes given {@code all-<size>}
 * configs in proportion to the GPUs each size's concurrent demand needs. The demand of a size is a
 * statistic of its concurrent pods over the trace (with unlimited GPUs): the mean, or the 50th, 75th,
 * 90th, 95th percentile or the peak; each gives an allocation, and the one with the lowest wait p95
 * at this pool size is the baseline's. Layouts never change during the run.
 */
final class StaticHindsight {
    private static final double[] QUANTILES = {-1, 0.5, 0.75, 0.9, 0.95, 1.0};
    private static final Map<List<SlicingTrace.Pod>, double[][]> CONCURRENCY = new IdentityHashMap<>();

    private StaticHindsight() {}

    static Slicer best(List<SlicingTrace.Pod> pods, int nodes, int gpusPerNode) {
        Slicer best = null;
        List<String> bestAlloc = null;
        double bestP95 = Double.POSITIVE_INFINITY;
        for (double[] demand : concurrency(pods)) {
            List<String> alloc = allocate(demand, nodes);
            double p95 = ProtocolC.replay(pods, new LayoutSlicer(alloc, gpusPerNode, null, 0))[0];
            if (p95 < bestP95 || bestAlloc == null) {
                bestP95 = p95;
                bestAlloc = alloc;
            }
        }
        best = new LayoutSlicer(bestAlloc, gpusPerNode, null, 0);
        return best;
    }

    /** Nodes per {@code all-<size>} config, in proportion to the GPUs each size's demand fills (largest remainder). */
    static List<String> allocate(double[] demand, int nodes) {
        MigGeometry g = MigGeometry.H100_80GB;
        int k = SlicingTrace.PROFILES.length;
        double[] gpus = new double[k];
        double total = 0;
        for (int i = 0; i < k; i++) {
            gpus[i] = demand[i] / g.require(SlicingTrace.PROFILES[i]).profile().maxCount();
            total += gpus[i];
        }
        int[] n = new int[k];
        int given = 0;
        double[] rest = new double[k];
        for (int i = 0; i < k; i++) {
            double share = total == 0 ? 0 : nodes * gpus[i] / total;
            n[i] = (int) Math.floor(share);
            rest[i] = share - n[i];
            given += n[i];
        }
        while (given < nodes) {
            int best = 0;
            for (int i = 1; i < k; i++) if (rest[i] > rest[best]) best = i;
            n[best]++;
            rest[best] = -1;
            given++;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < k; i++) for (int j = 0; j < n[i]; j++) out.add(MigConfig.all(g.require(SlicingTrace.PROFILES[i]).profile()).name());
        return out;
    }

    /** Per statistic, concurrent pods of each size with unlimited GPUs. */
    static synchronized List<double[]> concurrency(List<SlicingTrace.Pod> pods) {
        double[][] per = CONCURRENCY.computeIfAbsent(pods, StaticHindsight::series);
        List<double[]> out = new ArrayList<>();
        for (double q : QUANTILES) {
            double[] d = new double[SlicingTrace.PROFILES.length];
            for (int i = 0; i < d.length; i++) {
                double[] s = per[i];
                d[i] = q < 0 ? Arrays.stream(s).average().orElse(0) : ProtocolB.quantile(s, q);
            }
            out.add(d);
        }
        return out;
    }

    /** Concurrent pods of each size, sampled at every arrival; each row sorted. */
    private static double[][] series(List<SlicingTrace.Pod> pods) {
        int k = SlicingTrace.PROFILES.length;
        double[][] out = new double[k][pods.size()];
        java.util.PriorityQueue<double[]> ends = new java.util.PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
        int[] now = new int[k];
        for (int j = 0; j < pods.size(); j++) {
            SlicingTrace.Pod p = pods.get(j);
            while (!ends.isEmpty() && ends.peek()[0] <= p.arrival()) now[(int) ends.poll()[1]]--;
            int i = SlicingTrace.index(p.profile());
            now[i]++;
            ends.add(new double[]{p.arrival() + p.duration(), i});
            for (int x = 0; x < k; x++) out[x][j] = now[x];
        }
        for (double[] row : out) Arrays.sort(row);
        return out;
    }
}
