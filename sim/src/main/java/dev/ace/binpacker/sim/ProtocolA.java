package dev.ace.binpacker.sim;

import java.util.List;

/**
 * Protocol A (BENCHMARK.md): pods arrive one by one in the seeded order, never depart, and a pod
 * that does not fit fails for good. After each arrival the allocation ratio and the fragmentation
 * rate are recorded against the arrived workload (cumulative requested GPU / capacity); events in
 * the same integer percent (k-1, k] are averaged, and empty percents carry the last value.
 */
public final class ProtocolA {
    public static final int MAX_PERCENT = 130;

    private final SimCluster cluster;
    private final List<SimPod> trace;
    private final TargetWorkload target;

    public ProtocolA(SimCluster cluster, List<SimPod> trace) {
        this.cluster = cluster;
        this.trace = trace;
        this.target = TargetWorkload.of(trace, 95);
    }

    public TargetWorkload target() { return target; }

    /** The seed of a run's node order for ties (see {@link SimContext#forRun}), apart from its arrival order's. */
    static long nodeOrderSeed(long seed) { return seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L; }

    public SimCluster cluster() { return cluster; }

    public List<SimPod> trace() { return trace; }

    public RunResult run(String policy, long seed, double arrivalPercent) {
        List<SimPod> pods = Arrivals.sequence(trace, seed, arrivalPercent / 100.0, cluster.totalMilli());
        SimContext ctx = SimContext.forRun(cluster, target, seed * 7919L + policy.hashCode(), nodeOrderSeed(seed));
        Policy p = Policies.create(policy, ctx);
        int buckets = MAX_PERCENT + 1;
        double[] allocSum = new double[buckets], fragSum = new double[buckets];
        int[] count = new int[buckets];
        long[] nanos = new long[pods.size()];
        double cap = cluster.totalMilli();
        long arrived = 0, allocated = 0;
        int placed = 0, failed = 0;
        for (int k = 0; k < pods.size(); k++) {
            SimPod pod = pods.get(k);
            long t0 = System.nanoTime();
            boolean ok = p.place(pod, "pod-" + k);
            nanos[k] = System.nanoTime() - t0;
            arrived += pod.gpuMilli();
            if (ok) { allocated += pod.gpuMilli(); placed++; } else failed++;
            int b = (int) Math.ceil(100.0 * arrived / cap - 1e-9);
            if (b < 0 || b >= buckets) continue;
            allocSum[b] += 100.0 * allocated / cap;
            fragSum[b] += ctx.frag().fragRate();
            count[b]++;
        }
        double[] alloc = new double[buckets], frag = new double[buckets];
        for (int b = 0; b < buckets; b++) {
            if (count[b] > 0) {
                alloc[b] = allocSum[b] / count[b];
                frag[b] = fragSum[b] / count[b];
            } else if (b > 0) {
                alloc[b] = alloc[b - 1];
                frag[b] = frag[b - 1];
            }
        }
        return new RunResult(policy, seed, alloc, frag, nanos, placed, failed, allocated);
    }
}
