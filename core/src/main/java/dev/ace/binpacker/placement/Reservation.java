package dev.ace.binpacker.placement;

import dev.ace.binpacker.topology.GpuBoard;
import java.util.UUID;

/**
 * GPUs held on one node: what ACE reserved for a pod, or what the cluster uses without ACE
 * (DESIGN "Truth and trust": the ledger counts every GPU in use).
 *
 * @param id          random per admission or gate release ({@link #newId()}); for observed holdings a key derived from the pod
 * @param milliPerGpu 1000 for whole GPUs; less for a shared GPU (trace replay only)
 * @param domain      a human name for the NVLink domain ({@code node/nvl0}), or null when not NVLinked
 * @param pending     true until the reservation is tied to its pod's UID; untied reservations expire after a TTL
 * @param owner       who the GPUs are for: the admission request that made the reservation and its pod
 * @param kind        whose GPUs these are: ACE's reservation, a pod ACE did not place, or GPUs the node does not offer
 * @param exact       true once the node confirmed these GPU indices (node agent); charged indices are a rule's guess
 */
public record Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                          int tp, String domain, long createdAtMillis, boolean pending, Owner owner, Kind kind, boolean exact) {
    /** Whose GPUs an entry counts. */
    public enum Kind {
        /** Reserved by ACE at admission or gate release. */
        ACE,
        /** Requested by a pod bound to the node that no ACE reservation covers (exempt, warn/audit, failed open, older). */
        OBSERVED,
        /** Board GPUs beyond the node's allocatable: present, not usable. */
        SHORTFALL
    }

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

        /** The same owner tied to a pod: its UID and its real name (a generateName prefix becomes the name). */
        public Owner tiedTo(String uid, String name) { return new Owner(requestUid, namespace, name, uid); }
    }

    public Reservation {
        owner = owner == null ? Owner.NONE : owner;
        kind = kind == null ? Kind.ACE : kind;
    }

    /** An ACE reservation whose indices are ACE's choice. */
    public Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                       int tp, String domain, long createdAtMillis, boolean pending, Owner owner) {
        this(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, pending, owner, Kind.ACE, false);
    }

    /** A reservation with no recorded owner (trace replay, tests). */
    public Reservation(String id, String node, long gpuMask, int milliPerGpu, long cpuMilli,
                       int tp, String domain, long createdAtMillis, boolean pending) {
        this(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, pending, Owner.NONE);
    }

    /** GPUs counted on a node for something ACE did not reserve; indices charged by rule, not exact. */
    public static Reservation counted(String id, String node, long gpuMask, Kind kind) {
        return new Reservation(id, node, gpuMask, 1000, 0, 1, null, 0, false, Owner.NONE, kind, false);
    }

    /**
     * A fresh reservation id: random, so no tenant can guess or copy one (a copied annotation names an
     * id tied to another pod's UID), and a pod re-created under the same name never inherits one.
     */
    public static String newId() { return UUID.randomUUID().toString(); }

    public int[] gpus() { return GpuBoard.indices(gpuMask); }

    public int gpuCount() { return Long.bitCount(gpuMask); }

    public boolean isAce() { return kind == Kind.ACE; }

    public Reservation confirmed() {
        return new Reservation(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, false, owner, kind, exact);
    }

    /** The same entry tied to its pod: only events of that UID confirm or release it from now on. */
    public Reservation tiedTo(String podUid, String podName) {
        return new Reservation(id, node, gpuMask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, false,
                owner.tiedTo(podUid, podName), kind, exact);
    }

    /** The same entry on other GPUs of its node (the node reported which ones the pod really holds). */
    public Reservation rekeyed(long mask, boolean exactNow) {
        return new Reservation(id, node, mask, milliPerGpu, cpuMilli, tp, domain, createdAtMillis, pending, owner, kind, exactNow);
    }
}
