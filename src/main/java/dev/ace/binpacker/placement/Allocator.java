package dev.ace.binpacker.placement;

import java.util.List;
import java.util.Optional;

/**
 * Packer plus ledger behind one lock: decide and reserve happen atomically, so two concurrent
 * admissions can never be handed the same GPU. A decision takes microseconds, so one lock per
 * process costs nothing measurable next to the HTTP round trip.
 *
 * <p>With several replicas, a {@link ReservationStore} shares the reservations: a reservation is
 * taken locally under the lock, then committed to the store outside it (an API round trip must
 * not serialise admissions). If another replica got there first, the local reservation is undone,
 * the winner's reservations are adopted, and the decision is made again on the corrected state.
 */
public final class Allocator {
    /** Decisions retried after store conflicts before the request is answered with what is known. */
    static final int MAX_COMMIT_ATTEMPTS = 5;

    private final Packer packer;
    private final Ledger ledger;
    private final ReservationStore store;
    private final Object lock = new Object();
    private final java.util.concurrent.atomic.AtomicLong conflicts = new java.util.concurrent.atomic.AtomicLong();

    public Allocator(ClusterState state, PackerConfig config) {
        this(state, config, ReservationStore.IN_MEMORY);
    }

    public Allocator(ClusterState state, PackerConfig config, ReservationStore store) {
        this.packer = new Packer(state, config);
        this.ledger = new Ledger(state);
        this.store = store;
    }

    /** Store conflicts seen so far (another replica reserved the same GPUs first): {@code ace_ledger_conflicts_total}. */
    public long conflicts() { return conflicts.get(); }

    /** What the allocator did with a request. */
    public record Outcome(PlacementResult result, Reservation reservation, boolean alreadyHeld) {
        public boolean placed() { return result instanceof PlacementResult.Placed; }
    }

    /**
     * Decides and, unless {@code dryRun}, reserves. A request whose id already holds a reservation
     * gets that reservation back (admission is retried and reinvoked; it must be idempotent).
     */
    public Outcome place(PlacementRequest r, boolean dryRun, long nowMillis) {
        for (int attempt = 1; ; attempt++) {
            Outcome o = placeLocally(r, dryRun, nowMillis);
            if (dryRun || !o.placed() || o.alreadyHeld() || store == ReservationStore.IN_MEMORY) return o;
            List<Reservation> winners = store.commit(o.reservation());
            if (winners.isEmpty()) return o;
            conflicts.incrementAndGet();
            synchronized (lock) {
                ledger.release(r.id());
                for (Reservation w : winners) {
                    if (!w.id().equals(r.id())) ledger.reserve(w);
                }
            }
            if (attempt == MAX_COMMIT_ATTEMPTS) {
                throw new IllegalStateException("reservation " + r.id() + " lost " + attempt
                        + " races for GPUs to other replicas; the API server is the judge, try again");
            }
        }
    }

    private Outcome placeLocally(PlacementRequest r, boolean dryRun, long nowMillis) {
        synchronized (lock) {
            Optional<Reservation> held = ledger.get(r.id());
            if (held.isPresent()) {
                Reservation h = held.get();
                int idx = ledger.state().indexOf(h.node());
                PlacementResult.Placed p = idx < 0
                        ? new PlacementResult.Placed(h.node(), -1, h.gpuMask(), false, h.domain(), 0)
                        : packer.placed(idx, h.gpuMask(), 0);
                return new Outcome(p, h, true);
            }
            PlacementResult result = packer.decide(r);
            if (!dryRun) packer.observe(r);
            if (!(result instanceof PlacementResult.Placed p)) return new Outcome(result, null, false);
            Reservation res = new Reservation(r.id(), p.node(), p.gpuMask(), r.milliPerGpu(), r.cpuMilli(),
                    r.tp(), p.domain() == null ? null : p.node() + "/" + p.domain(), nowMillis, true, r.owner());
            if (dryRun) return new Outcome(result, res, false);
            Ledger.Outcome o = ledger.reserve(res);
            if (o != Ledger.Outcome.RESERVED) {
                // Cannot happen under the lock; if it does, the ledger and the index disagree: fail loudly.
                throw new IllegalStateException("ledger refused a fresh decision for " + r.id() + ": " + o);
            }
            return new Outcome(result, res, false);
        }
    }

    /** Records a reservation found elsewhere (a pod annotation at restart); false on conflict. */
    public Ledger.Outcome adopt(Reservation r) {
        synchronized (lock) {
            return ledger.reserve(r);
        }
    }

    /** Marks a pending reservation as confirmed (its pod was seen); false if there is none of that id. */
    public boolean confirm(String id) {
        synchronized (lock) {
            return ledger.get(id).map(r -> ledger.update(r.confirmed())).orElse(false);
        }
    }

    /**
     * Releases pending reservations older than {@code ttlMillis}: their pod never appeared (another
     * webhook denied it, or the client gave up). Returns what was released, for metrics and logs.
     */
    public List<Reservation> expirePending(long nowMillis, long ttlMillis) {
        List<Reservation> stale;
        synchronized (lock) {
            stale = ledger.all().stream()
                    .filter(r -> r.pending() && nowMillis - r.createdAtMillis() > ttlMillis)
                    .toList();
            for (Reservation r : stale) ledger.release(r.id());
        }
        stale.forEach(store::remove); // outside the lock: an API round trip must not block admissions
        return stale;
    }

    public Optional<Reservation> release(String id) {
        Optional<Reservation> released;
        synchronized (lock) {
            released = ledger.release(id);
        }
        released.ifPresent(store::remove);
        return released;
    }

    /**
     * The reservation that admission request {@code requestUid} made, if this replica holds it: how a
     * reinvoked or retried admission, and /validate, recognise ACE's own reservation.
     */
    public Optional<Reservation> heldForRequest(String requestUid) {
        if (requestUid == null) return Optional.empty();
        synchronized (lock) {
            return ledger.all().stream().filter(r -> requestUid.equals(r.owner().requestUid())).findFirst();
        }
    }

    /** Pending (not yet confirmed) reservations made for pods of {@code namespace}. */
    public int pendingIn(String namespace) {
        synchronized (lock) {
            return (int) ledger.all().stream().filter(r -> r.pending() && namespace.equals(r.owner().namespace())).count();
        }
    }

    public Optional<Reservation> reservation(String id) {
        synchronized (lock) {
            return ledger.get(id);
        }
    }

    /** Runs {@code action} with the lock held, for readers that need a consistent view (metrics, explain). */
    public <T> T read(java.util.function.Function<Allocator, T> action) {
        synchronized (lock) {
            return action.apply(this);
        }
    }

    public Packer packer() { return packer; }

    public Ledger ledger() { return ledger; }

    public ClusterState state() { return ledger.state(); }
}
