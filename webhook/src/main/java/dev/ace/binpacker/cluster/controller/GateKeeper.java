package dev.ace.binpacker.cluster.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.admission.PendingDemand;
import dev.ace.binpacker.admission.ReservationJson;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.keys.AceKeys;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Releases gated pods onto freed GPUs, oldest of the highest priority first; the node closest to a
 * free clique for the first of them is earmarked, so later pods are released elsewhere when they fit
 * elsewhere ({@link dev.ace.binpacker.placement.Earmarks}): reserve (committed to
 * the ledger object first), then patch the pod with a precondition (its UID and its gates). On a
 * refusal the pod is read again and what is there is adopted: released by another leader, gone, or
 * still gated. A pod leaves the queue only once its release is written; every path that does not
 * release the pod releases exactly the entry it reserved. One walk of the queue is one reconcile of
 * {@link GateQueue}'s key: a pod that does not fit waits for the next event that may free GPUs.
 */
final class GateKeeper {
    private static final Logger LOG = Logger.getLogger(GateKeeper.class);

    /** What became of one release attempt. */
    enum Release { RELEASED, GONE, TAKEN, RETRY, UNKNOWN }

    private final LocalView view;
    private final PodApi api;
    private final ObjectMapper json;

    GateKeeper(LocalView view, PodApi api, ObjectMapper json) {
        this.view = view;
        this.api = api;
        this.json = json;
    }

    /**
     * Tells this replica's allocator the gated queue as it is, in its order, and since when each waiter waits: the
     * first one's earmark (and, past ace.queue.starvation-bound, its strictness) then applies to every placement here,
     * the webhook's direct admissions included. The leader does it on each walk; a replica that does not lead does it
     * on each pass ({@link Reconciler#reconcile}), else its admissions would ignore the earmark. Returns the queue.
     */
    java.util.List<PendingDemand.Waiting> earmarkWaiters() {
        java.util.List<PendingDemand.Waiting> waiting = view.pending().waiting();
        // the queue in its order: the oldest waiter of the highest priority gets the earmark (placement.Earmarks)
        // and how long each has waited: past ace.queue.starvation-bound the first one's earmark takes no other pod
        java.util.LinkedHashMap<String, PlacementRequest> waiters = new java.util.LinkedHashMap<>();
        java.util.Map<String, Long> since = new java.util.HashMap<>();
        for (PendingDemand.Waiting w : waiting) {
            if (view.groups().isGatedRank(w.id())) continue;
            waiters.put(w.id(), w.request());
            since.put(w.id(), w.sinceMillis());
        }
        view.allocator().waitersAre(waiters, since);
        return waiting;
    }

    /** One walk of the queue: {@link Result#DONE}, or a retry when a release failed and must be tried again without an event. */
    Result pass(long wallNow, BooleanSupplier leading) {
        Result next = Result.DONE;
        PendingDemand queue = view.pending();
        java.util.List<PendingDemand.Waiting> waiting = earmarkWaiters();
        for (PendingDemand.Waiting w : waiting) {
            if (!leading.getAsBoolean()) return Result.DONE; // a new term walks the queue again
            if (view.groups().isGatedRank(w.id())) continue; // a rank of a group is released with its whole group (GroupKeeper)
            Optional<PodFacts> f = view.pods().get(w.id());
            if (f.isEmpty() || !f.get().gated() || f.get().terminal()) {
                queue.remove(w.id());
                continue;
            }
            PodFacts p = f.get();
            PlacementRequest t = w.request();
            PlacementRequest req = new PlacementRequest(Reservation.newId(), t.workloadClass(), t.gpus(), t.milliPerGpu(), t.tp(),
                    t.pools(), t.constraints(), t.cpuMilli(), t.gpuModel(), new Reservation.Owner(null, p.namespace(), p.name(), p.uid()), t.needs());
            Allocator.Outcome o;
            try {
                // A trial first: a waiting pod tried on every pass must not count again in the demand mix.
                // Under its queue key: it may use its own earmark, and other waiters' younger than it
                if (!view.allocator().place(req, true, wallNow, w.id()).placed()) continue;
                o = view.allocator().place(req, false, wallNow, w.id());
            } catch (RuntimeException e) {
                LOG.warnf("could not reserve for gated pod %s: %s", p.key(), e.getMessage());
                next = new Result.Retry("reserving for " + p.key() + ": " + e.getMessage());
                continue; // nothing is reserved after a failed commit
            }
            if (!o.placed()) continue; // a big request that cannot fit does not block smaller ones behind it
            Release r;
            try {
                r = release(p, o.reservation());
            } catch (RuntimeException e) { // releasing our own entry failed: the mirror and the leader's next pass settle it
                LOG.warnf("gate release of %s failed: %s", p.key(), e.getMessage());
                next = new Result.Retry("releasing " + p.key() + ": " + e.getMessage());
                continue;
            }
            if (r != Release.RETRY && r != Release.UNKNOWN) queue.remove(w.id());
            else next = new Result.Retry("the release of " + p.key() + " is not settled (" + r + ")");
            if (r == Release.RELEASED) {
                LOG.infof("released %s onto %s GPUs %s", p.key(), o.reservation().node(), java.util.Arrays.toString(o.reservation().gpus()));
            }
        }
        return next;
    }

    Release release(PodFacts p, Reservation r) {
        Optional<Pod> cur;
        try {
            cur = api.get(p.namespace(), p.name());
        } catch (RuntimeException e) {
            return drop(r, Release.RETRY); // nothing written yet
        }
        Release seen = classify(p, cur, r);
        if (seen != null) return seen == Release.RELEASED ? seen : drop(r, seen);
        try {
            api.patch(p.namespace(), p.name(), GateRelease.releasePatch(cur.get(), r, json));
            return Release.RELEASED;
        } catch (PodApi.Refused e) {
            LOG.debugf("gate release of %s refused (%d): %s", p.key(), e.code(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warnf("gate release of %s failed: %s; reading it again", p.key(), e.getMessage());
        }
        try {
            Release after = classify(p, api.get(p.namespace(), p.name()), r);
            if (after == null) return drop(r, Release.RETRY);
            return after == Release.RELEASED ? after : drop(r, after);
        } catch (RuntimeException e) {
            // The write may have landed: the entry stays tied to the pod; if the pod does not carry it, the
            // leader releases it after the grace period.
            return Release.UNKNOWN;
        }
    }

    /** What the pod as read says: null when it is still ours to release. */
    private Release classify(PodFacts p, Optional<Pod> cur, Reservation r) {
        if (cur.isEmpty() || !p.uid().equals(cur.get().getMetadata().getUid())) return Release.GONE;
        if (r.id().equals(carried(cur.get()))) return Release.RELEASED;
        if (!GateRelease.isGated(cur.get())) return Release.TAKEN;
        return null;
    }

    private String carried(Pod pod) {
        var a = pod.getMetadata().getAnnotations();
        return a == null ? null : ReservationJson.read(json, a.get(AceKeys.RESERVATION), 0).map(Reservation::id).orElse(null);
    }

    private Release drop(Reservation r, Release result) {
        view.allocator().release(r.id());
        return result;
    }
}
