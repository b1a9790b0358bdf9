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
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The leader's controllers, as controller-runtime's manager runs them: each a {@link KeyReconciler} with its
 * own {@link WorkQueue}, started when this replica leads (every key enqueued) and stopped and drained when it
 * stops, fed by the view's events (nodes, pods and groups touched) and by a slow resync of every key. One
 * pass, in order: a node's entries (tie, expire, release); its report (re-key to the GPUs pods really hold)
 * before any release, so releases are decided on the GPUs really free; the gated queue, one key
 * ({@link GateQueue}: whole groups, then single pods, the oldest of the highest priority first, one earmark),
 * walked only when something that can change its outcome happened; each group's published state (key: the
 * group), after the queue so a reason it changed is written in the same pass; a node's pinned pods that cannot
 * bind; its published counts. Leadership is checked before every write, so a leader that lost its Lease stops
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
    private final InFlightCheck inFlight;
    private final Controller<String> entryQueue;
    private final Controller<String> reportQueue;
    private final Controller<String> pinQueue;
    private final Controller<String> publishQueue;
    private final List<Controller<String>> byNode;
    private final Controller<String> gatedQueue;
    private final Controller<String> groupStatusQueue;
    private final List<Controller<String>> all;
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
        GroupKeeper groups = new GroupKeeper(view, gates, metrics,
                new GroupKeeper.Config(config.pendingTtlMillis(), 6 * config.pendingTtlMillis(), 3));
        GroupStatusWriter status = new GroupStatusWriter(groupStatus, view.groups()::group, view.groups()::keys, groups::reason);
        this.inFlight = new InFlightCheck(view, ledger, monotonicMillis, config.absentGraceMillis());
        PinRepair pins = new PinRepair(view, api, metrics, config);
        this.entryQueue = controller("entries", entries);
        this.reportQueue = controller("reports", new ReportKeeper(view, ledger, api, metrics, pins));
        this.pinQueue = controller("pins", pins);
        this.publishQueue = controller("counts", new CapacityPublisher(view, ledger));
        pins.onDisplaced(pinQueue::enqueue);
        this.byNode = List.of(entryQueue, reportQueue, pinQueue, publishQueue);
        this.gatedQueue = controller("queue", new GateQueue(groups, gates, wallMillis));
        this.groupStatusQueue = controller("group-status", status);
        status.onKeys(groupStatusQueue::enqueue);
        groups.onReasonChanged(groupStatusQueue::enqueue);
        this.all = List.of(entryQueue, reportQueue, gatedQueue, groupStatusQueue, pinQueue, publishQueue);
    }

    private Controller<String> controller(String name, KeyReconciler<String> r) {
        return new Controller<>(name, r, monotonicMillis, BASE_BACKOFF_MILLIS, MAX_BACKOFF_MILLIS);
    }

    /** Leadership was gained or lost: every controller stops and drains; the next pass as leader starts them afresh. */
    public synchronized void leadershipChanged() { stop(); }

    /** One pass of the leader's work; a replica that does not lead stops its controllers and keeps no work. */
    public synchronized void reconcile(BooleanSupplier leading) {
        if (!leading.getAsBoolean()) {
            if (started) stop();
            view.drainTouched();
            view.drainTouchedPods();
            view.drainTouchedGroups();
            gates.earmarkWaiters(); // this replica's admissions keep off the oldest waiter's earmark too
            return;
        }
        long now = monotonicMillis.getAsLong();
        passes++;
        if (!started) {
            started = true;
            resyncAt = now + config.resyncMillis();
            all.forEach(Controller::start);
            LOG.debugf("controllers started: %s", work());
        } else if (now >= resyncAt) {
            resyncAt = now + config.resyncMillis();
            all.forEach(Controller::resync);
        }
        route();
        int settled = entryQueue.pass(now, leading);
        route();
        settled += reportQueue.pass(now, leading); // before gate releases, so they are decided on the GPUs really free
        // A node's entries or report reconciled in this pass may have freed GPUs before any event says so.
        if (settled > 0) gatedQueue.enqueue(GateQueue.KEY);
        route();
        gatedQueue.pass(now, leading);
        groupStatusQueue.pass(now, leading); // after the queue: a reason its walk changed is written in this pass
        route();
        pinQueue.pass(now, leading);
        route();
        publishQueue.pass(now, leading);
    }

    private void stop() {
        started = false;
        all.forEach(Controller::stop);
    }

    /**
     * The view's events since the last route, as keys: a touched node to every node controller, a pod to the
     * node of its entry, a group to its published state; and any of them to the gated queue, whose outcome
     * they may change (GPUs freed, a waiter or a rank arrived, changed or left).
     */
    private void route() {
        Set<String> nodes = view.drainTouched();
        Set<String> pods = view.drainTouchedPods();
        Set<String> groups = view.drainTouchedGroups();
        for (String node : nodes) for (Controller<String> c : byNode) c.enqueue(node);
        for (String uid : pods) entries.nodeOf(uid).ifPresent(entryQueue::enqueue);
        groups.forEach(groupStatusQueue::enqueue);
        if (!nodes.isEmpty() || !pods.isEmpty() || !groups.isEmpty()) gatedQueue.enqueue(GateQueue.KEY);
    }

    /** Millis until a key waits to be reconciled (0: one is ready now); empty when none waits. The loop wakes then. */
    public synchronized OptionalLong untilNextDue() {
        OptionalLong min = OptionalLong.empty();
        for (Controller<String> c : all) {
            OptionalLong d = c.untilNextDue();
            if (d.isPresent() && (min.isEmpty() || d.getAsLong() < min.getAsLong())) min = d;
        }
        return min;
    }

    /** Reconciles per controller and passes run so far: the work counted, not timed (a test and the docs' figures). */
    public synchronized Map<String, Long> work() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("passes", passes);
        for (Controller<String> c : all) out.put(c.name(), c.reconciles());
        return out;
    }

    /** Every replica: see {@link InFlightCheck}. */
    public void checkInFlight() { inFlight.run(); }
}
