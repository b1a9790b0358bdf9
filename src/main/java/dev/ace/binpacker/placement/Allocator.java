package dev.ace.binpacker.placement;

import java.util.Optional;

/**
 * Packer plus ledger behind one lock: decide and reserve happen atomically, so two concurrent
 * admissions can never be handed the same GPU. A decision takes microseconds, so one lock per
 * process costs nothing measurable next to the HTTP round trip.
 */
public final class Allocator {
    private final Packer packer;
    private final Ledger ledger;
    private final Object lock = new Object();

    public Allocator(ClusterState state, PackerConfig config) {
        this.packer = new Packer(state, config);
        this.ledger = new Ledger(state);
    }

    /** What the allocator did with a request. */
    public record Outcome(PlacementResult result, Reservation reservation, boolean alreadyHeld) {
        public boolean placed() { return result instanceof PlacementResult.Placed; }
    }

    /**
     * Decides and, unless {@code dryRun}, reserves. A request whose id already holds a reservation
     * gets that reservation back (admission is retried and reinvoked; it must be idempotent).
     */
    public Outcome place(PlacementRequest r, boolean dryRun, long nowMillis) {
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
                    r.tp(), p.domain() == null ? null : p.node() + "/" + p.domain(), nowMillis, true);
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
    public java.util.List<Reservation> expirePending(long nowMillis, long ttlMillis) {
        synchronized (lock) {
            java.util.List<Reservation> stale = ledger.all().stream()
                    .filter(r -> r.pending() && nowMillis - r.createdAtMillis() > ttlMillis)
                    .toList();
            for (Reservation r : stale) ledger.release(r.id());
            return stale;
        }
    }

    public Optional<Reservation> release(String id) {
        synchronized (lock) {
            return ledger.release(id);
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
