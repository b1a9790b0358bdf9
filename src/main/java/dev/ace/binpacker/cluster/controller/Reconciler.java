package dev.ace.binpacker.cluster.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import dev.ace.binpacker.placement.Reservation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's loop body, as controller-runtime and Kueue structure a reconciler: read the local
 * view, decide, write with a precondition, and leave what lost a race to the next pass. One pass:
 * tie, expire and release entries; apply the node agents' reports (re-key to the GPUs pods really
 * hold); release gated pods; repair pins that cannot bind; publish each node's counts. Leadership is checked before every write, so a leader that lost its Lease stops
 * within one API call. {@link #checkInFlight} runs on every replica.
 */
public final class Reconciler {
    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    private final LocalView view;
    private final SharedLedger ledger;
    private final LongSupplier monotonicMillis;
    private final LongSupplier wallMillis;
    private final ReconcilerConfig config;
    private final EntryKeeper entries;
    private final GateKeeper gates;
    private final GroupKeeper groups;
    private final GroupStatusWriter groupStatus;
    private final PinRepair pins;
    private final ReportKeeper reports;
    private final Map<String, LedgerDoc.Capacity> published = new HashMap<>();
    private final Map<String, Long> inFlightSince = new HashMap<>();

    public Reconciler(LocalView view, SharedLedger ledger, PodApi api, Metrics metrics, ObjectMapper json,
                      ReconcilerConfig config, LongSupplier monotonicMillis, LongSupplier wallMillis) {
        this(view, ledger, api, GroupStatusStore.NONE, metrics, json, config, monotonicMillis, wallMillis);
    }

    /** @param groupStatus where each group's state is published for users (the AceGroup objects) */
    public Reconciler(LocalView view, SharedLedger ledger, PodApi api, GroupStatusStore groupStatus, Metrics metrics, ObjectMapper json,
                      ReconcilerConfig config, LongSupplier monotonicMillis, LongSupplier wallMillis) {
        this.view = view;
        this.ledger = ledger;
        this.monotonicMillis = monotonicMillis;
        this.wallMillis = wallMillis;
        this.config = config;
        this.entries = new EntryKeeper(view, ledger, api, metrics, config);
        this.gates = new GateKeeper(view, api, json);
        // A group may hold GPUs it cannot use yet as long as an untied reservation may wait for its pod.
        this.groups = new GroupKeeper(view, gates, metrics,
                new GroupKeeper.Config(config.pendingTtlMillis(), 6 * config.pendingTtlMillis(), 3));
        this.groupStatus = new GroupStatusWriter(groupStatus);
        this.pins = new PinRepair(view, api, metrics, config);
        this.reports = new ReportKeeper(view, ledger, api, metrics, pins);
    }

    /** Forget every age measured so far: a new leader measures from its own first sight. */
    public synchronized void leadershipChanged() {
        entries.reset();
        groups.reset();
        groupStatus.reset();
        pins.reset();
        reports.reset();
        published.clear();
    }

    /** One pass of the leader's work; a no-op for a replica that does not lead. */
    public synchronized void reconcile(BooleanSupplier leading) {
        if (!leading.getAsBoolean()) return;
        long now = monotonicMillis.getAsLong();
        entries.pass(now, leading);
        reports.pass(leading); // before gate releases, so they are decided on the GPUs really free
        groups.pass(now, wallMillis.getAsLong(), leading); // whole groups first: a freed clique goes to a waiting group before single pods
        gates.pass(wallMillis.getAsLong(), leading);
        publishGroups(now, leading);
        pins.pass(now, leading);
        publish(leading);
    }

    /** After the releases, so a group released in this pass reads "Placed" at once; a failed write waits for the next pass. */
    private void publishGroups(long now, BooleanSupplier leading) {
        try {
            groupStatus.pass(view.groups().groups(), groups.reasons(), now, leading);
        } catch (RuntimeException e) {
            LOG.debugf("could not publish the groups' state: %s", e.getMessage());
        }
    }

    /**
     * Objects written per pass, at most: a new leader of 1,000 nodes creates 1,000 objects, and in one pass they
     * would queue in front of a burst's admissions on the API server (issue 15); the rest follow in later passes.
     */
    static final int PUBLISH_PER_PASS = 50;

    private void publish(BooleanSupplier leading) {
        Set<String> nodes = view.nodeNames();
        int writes = 0;
        for (String node : nodes) {
            LedgerDoc.Capacity c = view.capacity(node);
            if (c.gpus() == 0 || c.equals(published.get(node))) continue;
            if (!leading.getAsBoolean() || writes >= PUBLISH_PER_PASS) return;
            try {
                if (ledger.publish(node, c)) writes++;
                published.put(node, c);
            } catch (RuntimeException e) {
                LOG.debugf("could not publish the counts of %s: %s", node, e.getMessage());
            }
        }
        for (String gone : new HashSet<>(published.keySet())) {
            if (nodes.contains(gone) || !leading.getAsBoolean()) continue;
            try {
                ledger.dropIfEmpty(gone);
                published.remove(gone);
            } catch (RuntimeException e) {
                LOG.debugf("could not drop the ledger object of %s: %s", gone, e.getMessage());
            }
        }
    }

    /**
     * Every replica: node reports offering no GPU whose grace ran out are believed now; and a local
     * entry whose commit returned but that the mirror has not shown for the
     * grace period is checked against the store; one the store does not hold is forgotten (its watch
     * event was lost in a relist, or it was released before this replica saw it).
     */
    public void checkInFlight() {
        view.expireReports();
        long now = monotonicMillis.getAsLong();
        Set<String> live = new HashSet<>();
        for (Reservation r : view.allocator().inFlight()) {
            live.add(r.id());
            long since;
            synchronized (inFlightSince) {
                since = inFlightSince.computeIfAbsent(r.id(), k -> now);
            }
            if (now - since <= config.absentGraceMillis()) continue;
            try {
                var doc = ledger.read(r.node());
                if (doc.isPresent() && doc.get().entry(r.id()).isPresent()) view.ledgerChanged(doc.get());
                else view.allocator().dropInFlight(r.id());
            } catch (RuntimeException e) {
                LOG.debugf("could not check in-flight entry %s: %s", r.id(), e.getMessage());
            }
        }
        synchronized (inFlightSince) {
            inFlightSince.keySet().retainAll(live);
        }
    }
}
