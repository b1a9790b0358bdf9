package dev.ace.binpacker.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * FGD's target workload and fragmentation measure (Weng et al., ATC'23): the most popular pod
 * shapes (CPU, milli-GPU, GPU count, model constraint) covering 95 % of the trace's pods, CPU-only
 * pods included, with their probabilities. For a node and a shape, the free GPU milli that shape
 * cannot use is fragmented: all of it when the shape needs no GPU, may not use the node's model or
 * does not fit; otherwise the GPUs with less free than the shape's per-GPU milli.
 */
public final class TargetWorkload {
    final long[] cpu;
    final int[] milli;
    final int[] gpus;
    final int[] models;
    final double[] p;

    public TargetWorkload(long[] cpu, int[] milli, int[] gpus, int[] models, double[] p) {
        this.cpu = cpu;
        this.milli = milli;
        this.gpus = gpus;
        this.models = models;
        this.p = p;
    }

    private record Shape(long cpu, int milli, int gpus, int models) {}

    /** The shapes covering {@code percent} % of {@code pods}, renormalised to probability 1. */
    public static TargetWorkload of(List<SimPod> pods, double percent) {
        Map<Shape, Integer> counts = new LinkedHashMap<>();
        for (SimPod pod : pods) counts.merge(new Shape(pod.cpuMilli(), pod.milli(), pod.numGpu(), pod.models()), 1, Integer::sum);
        List<Map.Entry<Shape, Integer>> sorted = new ArrayList<>(counts.entrySet());
        // Count first; among equal counts a fixed order (the authors' Go map order is random).
        sorted.sort(Comparator.<Map.Entry<Shape, Integer>>comparingInt(Map.Entry::getValue).reversed()
                .thenComparingInt(e -> e.getKey().gpus()).thenComparingInt(e -> e.getKey().milli())
                .thenComparingLong(e -> e.getKey().cpu()).thenComparingInt(e -> e.getKey().models()));
        double need = percent * pods.size() / 100.0;
        int k = 0;
        double cum = 0;
        while (cum < need && k < sorted.size()) cum += sorted.get(k++).getValue();
        long[] cpu = new long[k];
        int[] milli = new int[k], gpus = new int[k], models = new int[k];
        double[] p = new double[k];
        for (int i = 0; i < k; i++) {
            Shape s = sorted.get(i).getKey();
            cpu[i] = s.cpu(); milli[i] = s.milli(); gpus[i] = s.gpus(); models[i] = s.models();
            p[i] = sorted.get(i).getValue() / cum;
        }
        return new TargetWorkload(cpu, milli, gpus, models, p);
    }

    public int size() { return p.length; }

    /** One line per shape: probability, GPUs x milli, CPU. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (int s = 0; s < p.length; s++) {
            b.append(String.format(java.util.Locale.ROOT, "%.4f %dx%d cpu=%d%n", p[s], gpus[s], milli[s], cpu[s]));
        }
        return b.toString();
    }

    /**
     * Fragmented milli-GPU of one node: free milli per GPU in {@code free[0..n)}, free CPU, and the
     * node's model index.
     */
    public double nodeFrag(int[] free, int n, long cpuLeft, int model) {
        int total = 0;
        for (int g = 0; g < n; g++) total += free[g];
        if (total == 0) return 0;
        int modelBit = 1 << model;
        double f = 0;
        for (int s = 0; s < p.length; s++) {
            int m = milli[s];
            if (gpus[s] == 0 || m == 0 || (models[s] & modelBit) == 0 || cpuLeft < cpu[s]) {
                f += p[s] * total;
                continue;
            }
            int fit = 0, below = 0;
            for (int g = 0; g < n; g++) {
                int r = free[g];
                if (r >= m) fit++;
                else below += r;
            }
            f += p[s] * (fit >= gpus[s] ? below : total);
        }
        return f;
    }
}
