package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.placement.Reservation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * Every replica, leader or not: node reports offering no GPU whose grace ran out are believed now; and a
 * local entry whose commit returned but that the mirror has not shown for the grace period is checked
 * against the store; one the store does not hold is forgotten (its watch event was lost in a relist, or
 * it was released before this replica saw it). Few entries are ever in flight, so this walks them all.
 */
final class InFlightCheck {
    private static final Logger LOG = Logger.getLogger(InFlightCheck.class);

    private final LocalView view;
    private final SharedLedger ledger;
    private final LongSupplier monotonicMillis;
    private final long graceMillis;
    private final Map<String, Long> inFlightSince = new HashMap<>();

    InFlightCheck(LocalView view, SharedLedger ledger, LongSupplier monotonicMillis, long graceMillis) {
        this.view = view;
        this.ledger = ledger;
        this.monotonicMillis = monotonicMillis;
        this.graceMillis = graceMillis;
    }

    synchronized void run() {
        view.expireReports();
        long now = monotonicMillis.getAsLong();
        Set<String> live = new HashSet<>();
        for (Reservation r : view.allocator().inFlight()) {
            live.add(r.id());
            long since = inFlightSince.computeIfAbsent(r.id(), k -> now);
            if (now - since <= graceMillis) continue;
            try {
                var doc = ledger.read(r.node());
                if (doc.isPresent() && doc.get().entry(r.id()).isPresent()) view.ledgerChanged(doc.get());
                else view.allocator().dropInFlight(r.id());
            } catch (RuntimeException e) {
                LOG.debugf("could not check in-flight entry %s: %s", r.id(), e.getMessage());
            }
        }
        inFlightSince.keySet().retainAll(live);
    }
}
