package dev.ace.binpacker.sim;

/**
 * One pod of a trace, as the simulator needs it.
 *
 * @param numGpu  GPUs wanted (0 for a CPU-only pod)
 * @param milli   milli-GPU per GPU (1000 = whole GPUs; less only when numGpu == 1)
 * @param spec    allowed GPU models as written in the trace ({@code V100M16|V100M32}), empty for any
 * @param models  the same as a bitmask over {@link SimCluster#modelIndex}, -1 for any
 */
public record SimPod(String name, long cpuMilli, long memMib, int numGpu, int milli, String spec, int models) {
    /** Requested GPU in milli-GPU (the unit of the allocation ratio). */
    public long gpuMilli() { return (long) numGpu * milli; }

    public boolean isShare() { return numGpu == 1 && milli < 1000; }

    public boolean cpuOnly() { return numGpu == 0 || milli == 0; }
}
