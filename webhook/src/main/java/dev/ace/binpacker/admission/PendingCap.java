package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.Reservation;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The per-namespace bound on GPU reservations held for pods that do not exist: a reservation made at
 * admission holds GPUs before its pod is stored, so a flood of AdmissionReviews posted straight to the
 * webhook (or pods another webhook denies) could otherwise hold the fleet until the pending TTL.
 *
 * <p>A reservation whose pod this replica's informer has seen is not waiting, whether or not the leader
 * has tied it in the ledger yet (issue 15: tying only in the leader's pass made the cap refuse 92-167 of
 * 200 pods of a burst, all of which were being created). Of the rest, those younger than the grace are
 * <em>arriving</em> (their pod is normally stored within milliseconds) and bounded by a larger limit, so a
 * flood faster than the grace is still stopped; those older are <em>waiting</em> and bounded by the cap.
 *
 * @param maxWaiting  reservations of one namespace whose pods have not appeared within the grace
 * @param maxArriving reservations of one namespace made within the grace whose pods have not appeared yet
 * @param graceMillis how long a reservation's pod may take to appear; 0 counts every unseen one as waiting
 */
public record PendingCap(int maxWaiting, int maxArriving, long graceMillis, Supplier<Sightings> sightings) {
    /** Whether this replica has seen the pod of a reservation (in-cluster: its Pod informer). */
    @FunctionalInterface
    public interface Sightings {
        boolean podSeen(Reservation r);

        /** Standalone: no Pod informer, nothing is ever seen. */
        Sightings NONE = r -> false;
    }

    /** Every pending reservation counts, from its first millisecond (tests, and the cap as it was before issue 15). */
    public static PendingCap strict(int max) { return new PendingCap(max, max, 0, () -> Sightings.NONE); }

    /** The namespace's unseen reservations, split by age. */
    public record Count(int waiting, int arriving) {}

    public Count count(List<Reservation> pending, long nowMillis) {
        Sightings s = sightings.get();
        int waiting = 0;
        int arriving = 0;
        for (Reservation r : pending) {
            if (s.podSeen(r)) continue;
            // createdAtMillis is the admitting replica's wall clock: ACE's own, never a tenant's
            if (graceMillis <= 0 || nowMillis - r.createdAtMillis() >= graceMillis) waiting++;
            else arriving++;
        }
        return new Count(waiting, arriving);
    }

    /**
     * Why a reservation just made (and counted in {@code pending}) is given back, or empty when the namespace
     * is within its bounds.
     */
    public Optional<String> refusal(String namespace, List<Reservation> pending, long nowMillis) {
        return refusal(namespace, count(pending, nowMillis));
    }

    /**
     * Why a reservation about to be made (not in {@code pending}) must not be, or empty when the namespace has room
     * for it: judged before anything is reserved or written, so a refusal costs no ledger write and no release.
     */
    public Optional<String> refusalOfNew(String namespace, List<Reservation> pending, long nowMillis) {
        Count c = count(pending, nowMillis);
        return refusal(namespace, new Count(c.waiting(), c.arriving() + 1)); // made now: arriving, as its pod is
    }

    private Optional<String> refusal(String namespace, Count c) {
        if (graceMillis <= 0) {
            int unseen = c.waiting() + c.arriving();
            return unseen <= maxWaiting ? Optional.empty() : Optional.of(waiting(namespace, unseen - 1));
        }
        if (c.waiting() >= maxWaiting) return Optional.of(waiting(namespace, c.waiting())); // the new one is arriving, not waiting
        if (c.arriving() > maxArriving) {
            return Optional.of("namespace " + namespace + " made " + (c.arriving() - 1) + " GPU reservations in the last "
                    + seconds() + " whose pods have not appeared yet, the most ACE allows per namespace (" + maxArriving
                    + "); retry in a few seconds");
        }
        return Optional.empty();
    }

    private String waiting(String namespace, int n) {
        return "namespace " + namespace + " already has " + n + " GPU reservations waiting for their pods to appear"
                + (graceMillis > 0 ? " (for over " + seconds() + ")" : "") + ", the most ACE allows per namespace ("
                + maxWaiting + "); retry once those pods are running";
    }

    private String seconds() { return graceMillis % 1000 == 0 ? graceMillis / 1000 + " s" : graceMillis + " ms"; }
}
