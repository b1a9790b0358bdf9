package dev.ace.binpacker.sim;

import java.util.Arrays;
import java.util.List;

/** Mean curves over seeds and the pooled decision-time distribution of one policy. */
public record PolicySummary(String policy, double[] allocation, double[] fragRate, double p50Micros,
                            double p99Micros, double maxMicros, int placed, int failed, double[] allocation130BySeed) {
    public static final int[] ALLOCATION_POINTS = {80, 90, 95, 100, 130};
    public static final int[] FRAG_POINTS = {50, 70, 80, 90};

    public static PolicySummary of(String policy, List<RunResult> runs) {
        int n = ProtocolA.MAX_PERCENT + 1;
        double[] alloc = new double[n], frag = new double[n];
        int total = 0, placed = 0, failed = 0;
        for (RunResult r : runs) {
            for (int b = 0; b < n; b++) {
                alloc[b] += r.allocation()[b] / runs.size();
                frag[b] += r.fragRate()[b] / runs.size();
            }
            total += r.decisionNanos().length;
            placed += r.placed();
            failed += r.failed();
        }
        long[] all = new long[total];
        int k = 0;
        for (RunResult r : runs) {
            System.arraycopy(r.decisionNanos(), 0, all, k, r.decisionNanos().length);
            k += r.decisionNanos().length;
        }
        Arrays.sort(all);
        double[] bySeed = runs.stream().mapToDouble(r -> r.allocation()[ProtocolA.MAX_PERCENT]).toArray();
        return new PolicySummary(policy, alloc, frag, micros(all, 0.50), micros(all, 0.99),
                all.length == 0 ? 0 : all[all.length - 1] / 1000.0, placed, failed, bySeed);
    }

    private static double micros(long[] sorted, double q) {
        if (sorted.length == 0) return 0;
        int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1000.0;
    }

    public double allocationAt(int percent) { return allocation[percent]; }

    /** Standard deviation of the allocation at 130 % over the seeds (population, as the published figures). */
    public double seedSpread130() {
        double mean = Arrays.stream(allocation130BySeed).average().orElse(0);
        return Math.sqrt(Arrays.stream(allocation130BySeed).map(x -> (x - mean) * (x - mean)).average().orElse(0));
    }

    public double fragRateAt(int percent) { return fragRate[percent]; }
}
