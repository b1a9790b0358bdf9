package dev.ace.binpacker.placement;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Packer plus ledger behind one lock: decide and reserve happen atomically, so two concurrent
 * admissions can never be handed the same GPU. A decision takes microseconds, so one lock per
 * process costs nothing measurable next to the HTTP round trip.
 *
 * <p>With several replicas, a {@link ReservationStore} holds the authoritative entries. A decision
 * is reserved locally under the lock (an <em>in-flight</em> entry), then committed to the store
 * outside it (an API round trip must not serialise admissions). If another replica got there
 * first, the local reservation is undone, the winner's entries are adopted and the decision is
 * made again. Committed entries of every replica come back through {@link #mirror}; entries not
 * yet seen there stay apart as in-flight, so a mirror that lags never drops them.
 *
 * <p>Besides ACE's entries the ledger counts what the cluster uses without ACE ({@link #observe}):
 * ACE never reserves what is not really free.
 */
public final class Allocator {
    /** Decisions retried after store conflicts before the request is answered with an error. */
    static final int MAX_COMMIT_ATTEMPTS = 5;

    private final Packer packer;
    private final Ledger ledger;
    private final ReservationStore store;
    private final Earmarks earmarks;
    private final Object lock = new Object();
    private final AtomicLong conflicts = new AtomicLong();
    private final StoreMirror mirror = new StoreMirror();
    private final ObservedUsage observed = new ObservedUsage();
    private final double[] scratch = new double[1];
    /** Per node: what the pods bound there request besides whole GPUs, as the cluster reports them. */
    private final java.util.Map<String, Resources> boundRequests = new java.util.HashMap<>();
    /**
     * ACE reservations whose pods are pinned but not bound yet, by node: their other requests count on the node
     * meanwhile. Kept per node so that refreshing one node's usage walks that node's entries only (issue 31: a walk of
     * every pinned entry on every committed admission cost milliseconds at 10,000 held).
     */
    private final java.util.Map<String, java.util.Map<String, Resources>> pinnedOn = new java.util.HashMap<>();

    public Allocator(ClusterState state, PackerConfig config) {
        this(state, config, ReservationStore.IN_MEMORY);
    }

    public Allocator(ClusterState state, PackerConfig config, ReservationStore store) {
        this(state, config, store, DEFAULT_EARMARKS);
    }

    /** As the webhook runs it, with another earmark rule for waiting TP replicas ({@link Earmarks}). */
    public Allocator(ClusterState state, PackerConfig config, ReservationStore store, Earmarks.Rule earmarks) {
        this(state, config, store, earmarks, Earmarks.NO_BOUND);
    }

    /**
     * As the webhook runs it: {@code starvationBoundMillis} is how long the oldest waiting TP replica waits before its
     * earmarked node takes nothing but it ({@link Earmarks#starving}; {@link Earmarks#NO_BOUND}: never).
     */
    public Allocator(ClusterState state, PackerConfig config, ReservationStore store, Earmarks.Rule earmarks, long starvationBoundMillis) {
        this.packer = new Packer(state, config);
        this.ledger = new Ledger(state);
        this.store = store;
        this.earmarks = new Earmarks(earmarks, starvationBoundMillis);
    }

    /** The earmark rule the webhook and the simulator's {@code ace} row run. */
    public static final Earmarks.Rule DEFAULT_EARMARKS = Earmarks.Rule.SOFT;

    /**
     * A TP replica that did not fit waits under {@code key} (its pod's UID): the node closest to a free
     * clique of its size is earmarked for it until it is placed through {@link #place(PlacementRequest, boolean, long, String)}
     * or leaves the queue ({@link #waitersAre}). A key already waiting keeps its place; a new one joins at the back.
     */
    public void awaiting(String key, PlacementRequest r) {
        awaiting(key, r, Earmarks.UNKNOWN_SINCE);
    }

    /** As {@link #awaiting(String, PlacementRequest)}, waiting since {@code sinceMillis} (what the starvation bound measures). */
    public void awaiting(String key, PlacementRequest r, long sinceMillis) {
        synchronized (lock) {
            earmarks.await(key, r, sinceMillis);
        }
    }

    /** The replicas waiting now, in queue order (oldest of the highest priority first): earmarks of any other key are lifted. */
    public void waitersAre(java.util.LinkedHashMap<String, PlacementRequest> queue) {
        waitersAre(queue, java.util.Map.of());
    }

    /** As {@link #waitersAre(java.util.LinkedHashMap)}, with when each began to wait (pod creation, wall-clock millis). */
    public void waitersAre(java.util.LinkedHashMap<String, PlacementRequest> queue, java.util.Map<String, Long> sinceMillis) {
        synchronized (lock) {
            earmarks.queue(queue, sinceMillis);
        }
    }

    /** The node earmarked for waiter {@code key}, if any (for explanations and tests). */
    public Optional<String> earmarkedFor(String key) {
        synchronized (lock) {
            earmarks.offLimits(null, ledger.state(), packer.index());
            int i = earmarks.nodeOf(key);
            return i < 0 ? Optional.empty() : Optional.of(ledger.state().node(i).name());
        }
    }

    /** Decisions that lost their GPUs to another replica's entry and were made again. */
    public long conflicts() { return conflicts.get(); }

    /**
     * Every GPU set this request chose went to other replicas' reservations first, {@code attempts} times in a row
     * (a burst that all replicas pack onto the same nodes). Nothing is reserved for it; the caller answers without
     * failing: a TP pod is gated for the leader to place, anything else is told to retry.
     */
    public static class Contended extends IllegalStateException {
        private final int attempts;

        public Contended(String id, int attempts) {
            this("reservation " + id + " lost " + attempts + " races for GPUs to other replicas' reservations", attempts, null);
        }

        protected Contended(String message, int attempts, Throwable cause) {
            super(message, cause);
            this.attempts = attempts;
        }

        public int attempts() { return attempts; }
    }

    /**
     * The shared ledger could not be written at all (the API server refused or dropped the call, as while it
     * restarts). Nothing is reserved here, and the caller answers it as a contended reservation: a TP pod waits at
     * the gate for the leader, anything else is told to retry. A server error instead would let failurePolicy
     * admit the pod without ACE (failing open). If the write did land, its entry has no pod and expires as any
     * pending entry whose pod never appears.
     */
    public static final class Unrecorded extends Contended {
        public Unrecorded(String id, RuntimeException cause) {
            super("the GpuLedger write for reservation " + id + " failed (" + firstLine(cause) + ")", 1, cause);
        }

        private static String firstLine(RuntimeException e) {
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            int nl = m.indexOf('\n');
            return nl < 0 ? m : m.substring(0, nl);
        }
    }

    /** What the allocator did with a request. */
    public record Outcome(PlacementResult result, Reservation reservation, boolean alreadyHeld) {
        public boolean placed() { return result instanceof PlacementResult.Placed; }
    }

    /**
     * Decides and, unless {@code dryRun}, reserves. A request whose id, or whose admission request,
     * already holds a reservation gets that reservation back (admission is retried and reinvoked; it
     * must be idempotent). A store that fails (HTTP 500, timeout) leaves nothing reserved here and
     * throws {@link Unrecorded}: an ambiguous write that did land is an untied entry the leader
     * expires.
     */
    public Outcome place(PlacementRequest r, boolean dryRun, long nowMillis) {
        return place(r, dryRun, nowMillis, (String) null);
    }

    /**
     * As {@link #place(PlacementRequest, boolean, long)} for the waiting replica {@code waiter} (its
     * key as given to {@link #awaiting}; null for any other request): it may use its own earmark and
     * those of younger waiters, and once reserved it waits no more.
     */
    public Outcome place(PlacementRequest r, boolean dryRun, long nowMillis, String waiter) {
        return place(r, dryRun, nowMillis, waiter, (al, p) -> Optional.empty()).outcome();
    }

    /** A placement a policy's check may have vetoed: {@code veto} present and {@code outcome} null, or the outcome. */
    public record Checked<V>(Optional<V> veto, Outcome outcome) {
        static <V> Checked<V> of(Outcome outcome) { return new Checked<>(Optional.empty(), outcome); }
    }

    /** A policy's check of a decision, judged before anything is reserved: an answer vetoes the placement. */
    @FunctionalInterface
    public interface Check<V> {
        Optional<V> veto(Allocator allocator, PlacementResult.Placed decided);
    }

    /** As {@link #place(PlacementRequest, boolean, long, String, Check)} for a request that waits for nothing. */
    public <V> Checked<V> place(PlacementRequest r, boolean dryRun, long nowMillis, Check<V> check) {
        return place(r, dryRun, nowMillis, null, check);
    }

    /**
     * As {@link #place(PlacementRequest, boolean, long, String)}, with {@code check} judging the packer's decision
     * under the same lock hold, before it is reserved: the policy's questions about the fleet and the decision are
     * answered on one snapshot, and the decision is made once. A veto reserves nothing and teaches the demand mix
     * nothing. A request that already holds its reservation is not checked again (it passed when it was made); after
     * a lost commit race the check judges the new decision.
     */
    public <V> Checked<V> place(PlacementRequest r, boolean dryRun, long nowMillis, String waiter, Check<V> check) {
        for (int attempt = 1; ; attempt++) {
            Checked<V> c = placeLocally(r, dryRun, nowMillis, waiter, check);
            if (c.veto().isPresent()) return c;
            Outcome o = c.outcome();
            if (dryRun || !o.placed() || o.alreadyHeld() || store == ReservationStore.IN_MEMORY) return placed(c, dryRun, waiter);
            List<Reservation> winners;
            try {
                winners = store.commit(o.reservation());
            } catch (RuntimeException e) {
                dropLocal(o.reservation().id());
                throw new Unrecorded(o.reservation().id(), e);
            }
            if (winners.isEmpty()) return placed(c, false, waiter);
            conflicts.incrementAndGet();
            synchronized (lock) {
                dropLocal(r.id());
                for (Reservation w : winners) {
                    if (w.id().equals(r.id())) {
                        throw new IllegalStateException("the ledger already holds " + r.id() + " on other GPUs: " + w);
                    }
                    adoptCommitted(w);
                }
            }
            if (attempt == MAX_COMMIT_ATTEMPTS) throw new Contended(r.id(), attempt);
        }
    }

    private <V> Checked<V> placed(Checked<V> c, boolean dryRun, String waiter) {
        if (!dryRun && c.outcome().placed() && waiter != null) {
            synchronized (lock) {
                earmarks.done(waiter);
            }
        }
        return c;
    }

    private <V> Checked<V> placeLocally(PlacementRequest r, boolean dryRun, long nowMillis, String waiter, Check<V> check) {
        synchronized (lock) {
            Optional<Reservation> held = ledger.get(r.id()).or(() -> ledger.forRequest(r.owner().requestUid()));
            if (held.isPresent()) {
                Reservation h = held.get();
                int idx = ledger.state().indexOf(h.node());
                PlacementResult.Placed p = idx < 0
                        ? new PlacementResult.Placed(h.node(), -1, h.gpuMask(), false, h.domain(), 0)
                        : packer.placed(idx, h.gpuMask(), 0);
                return Checked.of(new Outcome(p, h, true));
            }
            Earmarks.Keep keep = earmarks.keep(waiter, ledger.state(), packer.index(), nowMillis);
            PlacementResult result = packer.decide(r, keep.off(), keep.strict());
            if (result instanceof PlacementResult.Placed decided) {
                Optional<V> veto = check.veto(this, decided);
                if (veto.isPresent()) return new Checked<>(veto, null);
            }
            if (!dryRun) packer.observe(r);
            if (!(result instanceof PlacementResult.Placed p)) return Checked.of(new Outcome(result, null, false));
            Reservation res = new Reservation(r.id(), p.node(), p.gpuMask(), r.milliPerGpu(), r.cpuMilli(),
                    r.tp(), p.domain() == null ? null : p.node() + "/" + p.domain(), nowMillis, r.owner().podUid() == null, r.owner());
            if (dryRun) return Checked.of(new Outcome(result, res, false));
            Ledger.Outcome o = ledger.reserve(res);
            if (o != Ledger.Outcome.RESERVED) {
                // Cannot happen under the lock; if it does, the ledger and the index disagree: fail loudly.
                throw new IllegalStateException("ledger refused a fresh decision for " + r.id() + ": " + o);
            }
            if (store != ReservationStore.IN_MEMORY) mirror.reserved(res.id());
            if (!r.needs().isEmpty()) {
                pinnedOn.computeIfAbsent(p.node(), k -> new java.util.LinkedHashMap<>()).put(res.id(), r.needs());
                refreshUsed(p.node());
            }
            return Checked.of(new Outcome(result, res, false));
        }
    }

    private void dropLocal(String id) {
        synchronized (lock) {
            ledger.release(id).ifPresent(r -> {
                mirror.forget(r);
                recharge(r.node());
                refreshUsed(r.node());
            });
        }
    }

    /** A committed entry learnt from a lost race, before the mirror shows it. */
    private void adoptCommitted(Reservation w) {
        if (mirror.adopt(ledger, w)) recharge(w.node());
    }

    /**
     * The store's entries of one node, as its watch delivered them: replaces what was mirrored for the
     * node before. In-flight entries are kept until they show up here; an entry that moved (re-keyed
     * by the node agent, say) takes its new GPUs.
     */
    public void mirror(String node, Collection<Reservation> entries) {
        synchronized (lock) {
            mirror.apply(ledger, node, entries).forEach(this::recharge);
        }
    }

    /**
     * What the cluster uses on a node without ACE: {@code usable} whole GPUs (allocatable, capped by the
     * board) and the holdings of pods no ACE entry covers. Replaces what was observed there before.
     */
    public void observe(String node, int usable, List<Holding> holdings) {
        observe(node, usable, 0L, holdings);
    }

    /**
     * As {@link #observe(String, int, List)}, with the GPUs the node agent reports unhealthy: they leave
     * capacity (charged first, whatever allocatable says) until the node offers them again.
     */
    public void observe(String node, int usable, long unhealthy, List<Holding> holdings) {
        synchronized (lock) {
            observed.set(node, usable, unhealthy, holdings);
            recharge(node);
        }
    }

    /** Adds or replaces a node; held entries keep their GPUs when its GPU count changes. */
    public void upsertNode(NodeInfo info) {
        synchronized (lock) {
            ledger.upsertNode(info);
            recharge(info.name());
            refreshUsed(info.name());
        }
    }

    /**
     * What the pods bound to {@code node} request besides whole GPUs; {@code boundReservations} are the ACE
     * reservations whose pods are among them (their requests are in {@code bound} now, no longer counted apart).
     */
    public void requested(String node, Resources bound, java.util.Set<String> boundReservations) {
        synchronized (lock) {
            boundRequests.put(node, bound == null ? Resources.NONE : bound);
            var on = pinnedOn.get(node);
            if (on != null) on.keySet().removeAll(boundReservations);
            refreshUsed(node);
        }
    }

    /** Requests besides whole GPUs counted on a node now: its bound pods' and those of pods pinned there, not bound yet. */
    public Resources used(String node) {
        synchronized (lock) {
            int i = ledger.state().indexOf(node);
            return i < 0 ? Resources.NONE : ledger.state().used(i);
        }
    }

    private void refreshUsed(String node) {
        int i = ledger.state().indexOf(node);
        Resources u = boundRequests.getOrDefault(node, Resources.NONE);
        var on = pinnedOn.get(node);
        if (on != null) {
            for (var it = on.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                Optional<Reservation> r = ledger.get(e.getKey());
                if (r.isEmpty() || !r.get().node().equals(node)) {
                    it.remove(); // released, expired or lost to another replica: its pod will not come here
                } else {
                    u = u.plus(e.getValue());
                }
            }
            if (on.isEmpty()) pinnedOn.remove(node);
        }
        if (i >= 0) ledger.state().setUsed(i, u);
    }

    /** Forgets a node's capacity. Its entries stay recorded until the store drops them. */
    public void removeNode(String name) {
        synchronized (lock) {
            observed.forget(name);
            boundRequests.remove(name);
            for (Reservation r : ledger.onNode(name)) {
                if (!r.isAce()) ledger.release(r.id());
            }
            ledger.state().remove(name);
        }
    }

    private void recharge(String node) {
        observed.recharge(node, ledger, (i, free, k) -> {
            NodeInfo n = ledger.state().node(i);
            return packer.scorer(n).best(free, k, false, packer.config().mix(), scratch);
        });
    }

    /**
     * Records a reservation found elsewhere (a pod's annotation); refused on conflict. With a shared store
     * it is held as in-flight: kept only if the store turns out to hold it ({@link #dropInFlight}).
     */
    public Ledger.Outcome adopt(Reservation r) {
        synchronized (lock) {
            Ledger.Outcome o = ledger.reserve(r);
            if (o == Ledger.Outcome.RESERVED && store != ReservationStore.IN_MEMORY) mirror.reserved(r.id());
            return o;
        }
    }

    /** Releases a reservation here and in the store (by id and pod UID: only the entry this owner holds). */
    public Optional<Reservation> release(String id) {
        Optional<Reservation> released;
        synchronized (lock) {
            released = ledger.release(id);
            released.ifPresent(r -> {
                mirror.forget(r);
                recharge(r.node());
                refreshUsed(r.node());
            });
        }
        released.ifPresent(store::remove);
        return released;
    }

    /** Re-keys an entry to the GPUs its node reports (issue 9's node agent); false when there is none of that id. */
    public boolean rekey(String id, long mask) {
        synchronized (lock) {
            Optional<Reservation> r = ledger.get(id);
            if (r.isEmpty() || !ledger.rekey(id, mask, true)) return false;
            recharge(r.get().node());
            return true;
        }
    }

    /** Local entries not yet seen in the store's mirror. */
    public List<Reservation> inFlight() {
        synchronized (lock) {
            return mirror.inFlight(ledger);
        }
    }

    /** Forgets an in-flight entry the store does not hold (its commit failed, or it was released before the mirror saw it). */
    public boolean dropInFlight(String id) {
        synchronized (lock) {
            if (!mirror.isInFlight(id)) return false;
            dropLocal(id);
            return true;
        }
    }

    /**
     * The reservation that admission request {@code requestUid} made, on any replica once mirrored: how
     * a reinvoked or retried admission, and /validate, recognise ACE's own reservation.
     */
    public Optional<Reservation> heldForRequest(String requestUid) {
        if (requestUid == null) return Optional.empty();
        synchronized (lock) {
            return ledger.forRequest(requestUid);
        }
    }

    /** Pending (not yet tied to a pod) reservations made for pods of {@code namespace}. */
    public int pendingIn(String namespace) {
        synchronized (lock) {
            return ledger.pendingIn(namespace).size();
        }
    }

    /** Pending (not yet tied to a pod) ACE reservations made for pods of {@code namespace}, as a copy. */
    public List<Reservation> pendingOf(String namespace) {
        synchronized (lock) {
            return ledger.pendingIn(namespace);
        }
    }

    /**
     * The reservation {@code id} on {@code node}: this replica's ledger first, else the shared store
     * (read outside the lock), for an entry another replica committed that the mirror has not brought
     * yet. Nothing read this way is recorded: the mirror stays the only way entries come in.
     */
    public Optional<Reservation> reservationOn(String node, String id) {
        Optional<Reservation> local = reservation(id);
        if (local.isPresent() || store == ReservationStore.IN_MEMORY) return local;
        return store.lookup(node, id);
    }

    public Optional<Reservation> reservation(String id) {
        synchronized (lock) {
            return ledger.get(id);
        }
    }

    /** GPUs counted on a node for pods ACE did not place. */
    public int observedOn(String node) {
        synchronized (lock) {
            return observed.observedOn(node);
        }
    }

    /** Usable GPUs of a node as the cluster reports them, or -1 when not reported (standalone). */
    public int usable(String node) {
        synchronized (lock) {
            return observed.usable(node);
        }
    }

    /** Runs {@code action} with the lock held, for readers that need a consistent view (metrics, explain). */
    public <T> T read(Function<Allocator, T> action) {
        synchronized (lock) {
            return action.apply(this);
        }
    }

    public Packer packer() { return packer; }

    public Ledger ledger() { return ledger; }

    public ClusterState state() { return ledger.state(); }
}
