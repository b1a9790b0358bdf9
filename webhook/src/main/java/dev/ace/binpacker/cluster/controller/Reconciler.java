package dev.ace.binpacker.cluster.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.pod.PodApi;
import dev.ace.binpacker.cluster.view.LocalView;
import dev.ace.binpacker.observability.Metrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's controllers, as controller-runtime's manager runs them: each a {@link KeyReconciler} over one
 * node's keys with its own {@link WorkQueue}, started when this replica leads (every key enqueued) and
 * stopped and drained when it stops, fed by the view's events (nodes and pods touched) and by a slow
 * resync of every key. One pass, in order: a node's entries (tie, expire, release); its report (re-key to
 * the GPUs pods really hold) before any release, so releases are decided on the GPUs really free; whole
 * groups, then single gated pods, over the ordered gated queue (one key: the oldest of the highest
 * priority first, one earmark); the groups' published state; a node's pinned pods that cannot bind; its
 * published counts. Leadership is checked before every write, so a leader that lost its Lease stops
 * within one API call. {@link #checkInFlight} runs on every replica.
 */
public final class Reconciler {
    private static final Logger LOG = Logger.getLogger(Reconciler.class);
    /** A failed key is tried again after this, doubling per failure, up to {@link #MAX_BACKOFF_MILLIS}. */
    static final long BASE_BACKOFF_MILLIS = 1_000;
    static final long MAX_BACKOFF_MILLIS = 30_000;

    private final LocalView view;
    private final LongSupplier monotonicMillis;
    private final LongSupplier wallMillis;
    private final ReconcilerConfig config;
    private final EntryKeeper entries;
    private final GateKeeper gates;
    private final GroupKeeper groups;
    private final GroupStatusWriter groupStatus;
    private final InFlightCheck inFlight;
    private final Controller<String> entryQueue;
    private final Controller<String> reportQueue;
    private final Controller<String> pinQueue;
    private final Controller<String> publishQueue;
    private final List<Controller<String>> byNode;
    private boolean started;
    private long resyncAt;
    private long passes;

    public Reconciler(LocalView view, SharedLedger ledger, PodApi api, Metrics metrics, ObjectMapper json,
                      ReconcilerConfig config, LongSupplier monotonicMillis, LongSupplier wallMillis) {
        this(view, ledger, api, GroupStatusStore.NONE, metrics, json, config, monotonicMillis, wallMillis);
    }

    /** @param groupStatus where each group's state is published for users (the AceGroup objects) */
    public Reconciler(LocalView view, SharedLedger ledger, PodApi api, GroupStatusStore groupStatus, Metrics metrics, ObjectMapper json,
                      ReconcilerConfig config, LongSupplier monotonicMillis, LongSupplier wallMillis) {
        this.view = view;
        this.monotonicMillis = monotonicMillis;
        this.wallMillis = wallMillis;
        this.config = config;
        this.entries = new EntryKeeper(view, ledger, api, metrics, config);
        this.gates = new GateKeeper(view, api, json);
        // A group may hold GPUs it cannot use yet as long as an untied reservation may wait for its pod.
        this.groups = new GroupKeeper(view, gates, metrics,
                new GroupKeeper.Config(config.pendingTtlMillis(), 6 * config.pendingTtlMillis(), 3));
        this.groupStatus = new GroupStatusWriter(groupStatus);
        this.inFlight = new InFlightCheck(view, ledger, monotonicMillis, config.absentGraceMillis());
        PinRepair pins = new PinRepair(view, api, metrics, config);
        this.entryQueue = controller("entries", entries);
        this.reportQueue = controller("reports", new ReportKeeper(view, ledger, api, metrics, pins));
        this.pinQueue = controller("pins", pins);
        this.publishQueue = controller("counts", new CapacityPublisher(view, ledger));
        pins.onDisplaced(pinQueue::enqueue);
        this.byNode = List.of(entryQueue, reportQueue, pinQueue, publishQueue);
    }

    private Controller<String> controller(String name, KeyReconciler<String> r) {
        return new Controller<>(name, r, monotonicMillis, BASE_BACKOFF_MILLIS, MAX_BACKOFF_MILLIS);
    }

    /** Leadership was gained or lost: every controller stops and drains; the next pass as leader starts them afresh. */
    public synchronized void leadershipChanged() {
        stop();
        groups.reset();
        groupStatus.reset();
    }

    /** One pass of the leader's work; a replica that does not lead stops its controllers and keeps no work. */
    public synchronized void reconcile(BooleanSupplier leading) {
        if (!leading.getAsBoolean()) {
            if (started) stop();
            view.drainTouched();
            view.drainTouchedPods();
            return;
        }
        long now = monotonicMillis.getAsLong();
        passes++;
        if (!started) {
            started = true;
            resyncAt = now + config.resyncMillis();
            byNode.forEach(Controller::start);
            LOG.debugf("controllers started: %s", work());
        } else if (now >= resyncAt) {
            resyncAt = now + config.resyncMillis();
            byNode.forEach(Controller::resync);
        }
        route();
        entryQueue.pass(now, leading);
        route();
        reportQueue.pass(now, leading); // before gate releases, so they are decided on the GPUs really free
        groups.pass(now, wallMillis.getAsLong(), leading); // whole groups first: a freed clique goes to a waiting group before single pods
        gates.pass(wallMillis.getAsLong(), leading);
        publishGroups(now, leading);
        route();
        pinQueue.pass(now, leading);
        route();
        publishQueue.pass(now, leading);
    }

    private void stop() {
        started = false;
        byNode.forEach(Controller::stop);
    }

    /** The view's events since the last route, as keys: a touched node to every controller, a pod to the node of its entry. */
    private void route() {
        for (String node : view.drainTouched()) for (Controller<String> c : byNode) c.enqueue(node);
        for (String uid : view.drainTouchedPods()) entries.nodeOf(uid).ifPresent(entryQueue::enqueue);
    }

    /** After the releases, so a group released in this pass reads "Placed" at once; a failed write waits for the next pass. */
    private void publishGroups(long now, BooleanSupplier leading) {
        try {
            groupStatus.pass(view.groups().groups(), groups.reasons(), now, leading);
        } catch (RuntimeException e) {
            LOG.debugf("could not publish the groups' state: %s", e.getMessage());
        }
    }

    /** Millis until a key waits to be reconciled (0: one is ready now); empty when none waits. The loop wakes then. */
    public synchronized OptionalLong untilNextDue() {
        OptionalLong min = OptionalLong.empty();
        for (Controller<String> c : byNode) {
            OptionalLong d = c.untilNextDue();
            if (d.isPresent() && (min.isEmpty() || d.getAsLong() < min.getAsLong())) min = d;
        }
        return min;
    }

    /** Reconciles per controller and passes run so far: the work counted, not timed (a test and the docs' figures). */
    public synchronized Map<String, Long> work() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("passes", passes);
        for (Controller<String> c : byNode) out.put(c.name(), c.reconciles());
        return out;
    }

    /** Every replica: see {@link InFlightCheck}. */
    public void checkInFlight() { inFlight.run(); }
}
