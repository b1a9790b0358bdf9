package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;

/**
 * GPUs held for one pod: the durable record ACE writes to the pod annotation {@code ace.dev/reservation}.
 *
 * @param id          stable id (the admission request UID, or the pod's namespace/name)
 * @param milliPerGpu 1000 for whole GPUs; less for a shared GPU (trace replay only)
 * @param domain      a human name for the NVLink domain ({@code node/nvl0}), or null when not NVLinked
 * @param pending     true until the pod is seen by the informer; pending reservations expire after a TTL
 */
public record Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                          int tp, String domain, long createdAtMillis, boolean pending) {
    public int[] gpus() { return GpuBoard.indices(gpuMask); }

    public int gpuCount() { return Long.bitCount(gpuMask); }

    public Reservation confirmed() {
        return new Reservation(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, false);
    }
}
