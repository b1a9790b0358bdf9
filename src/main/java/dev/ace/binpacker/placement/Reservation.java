package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;

/**
 * GPUs held for one pod: the durable record ACE writes to the pod annotation {@code ace.dev/reservation}.
 *
 * @param id          stable id (the admission request UID, or the pod's namespace/name)
 * @param milliPerGpu 1000 for whole GPUs; less for a shared GPU (trace replay only)
 * @param domain      a human name for the NVLink domain ({@code node/nvl0}), or null when not NVLinked
 * @param pending     true until the pod is seen by the informer; pending reservations expire after a TTL
 * @param owner       who the GPUs are for: the admission request that made the reservation and its pod
 */
public record Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                          int tp, String domain, long createdAtMillis, boolean pending, Owner owner) {
    /**
     * Whose reservation this is (DESIGN "Truth and trust": ids are unique per admission and tied to
     * the pod's UID once the pod exists; nothing is released by a name another pod can carry).
     *
     * @param requestUid the AdmissionReview request UID that made it, null when not made at admission
     * @param namespace  the pod's namespace, null when unknown
     * @param podName    the pod's name, or its {@code generateName} prefix while the name is not known; null when unknown
     * @param podUid     the pod's UID once the pod has been seen, else null
     */
    public record Owner(String requestUid, String namespace, String podName, String podUid) {
        public static final Owner NONE = new Owner(null, null, null, null);

        public Owner withPodUid(String uid) { return new Owner(requestUid, namespace, podName, uid); }
    }

    public Reservation {
        owner = owner == null ? Owner.NONE : owner;
    }

    /** A reservation with no recorded owner (trace replay, tests). */
    public Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                       int tp, String domain, long createdAtMillis, boolean pending) {
        this(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, pending, Owner.NONE);
    }

    public int[] gpus() { return GpuBoard.indices(gpuMask); }

    public int gpuCount() { return Long.bitCount(gpuMask); }

    public Reservation confirmed() {
        return new Reservation(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, false, owner);
    }
}
