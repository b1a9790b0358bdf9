package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.report.NodeReportJson;
import dev.ace.binpacker.truth.NodeReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The node agents' reports ({@code ace.dev/gpu-allocation}) as one replica trusts them. Kept per node:
 * <ul>
 *   <li>the annotation text last read, so a Node update that leaves it alone costs a string compare;</li>
 *   <li>the highest generation seen: a report of a lower generation (an agent that lost its place, an old
 *       agent pod still running during a rollout) is stale and ignored;</li>
 *   <li>a report whose healthy list is empty while the node has GPUs (the device plugin restarting: the
 *       kubelet offers nothing until it registers again) is not believed for the grace period: its pods
 *       are, with the health of the last report that had any. After the grace the node's word stands and
 *       every GPU leaves capacity.</li>
 * </ul>
 * Thread-safe; time is this replica's monotonic clock.
 */
public final class NodeReports {
    private static final Logger LOG = Logger.getLogger(NodeReports.class);

    private final long emptyGraceMillis;
    private final LongSupplier monotonicMillis;
    private final Map<String, Seen> byNode = new HashMap<>();

    /** @param trusted the report as believed now; {@code emptySince} is -1 unless the last report offered no GPU */
    private record Seen(String raw, NodeReport latest, NodeReport trusted, long emptySince) {}

    public NodeReports(long emptyGraceMillis, LongSupplier monotonicMillis) {
        this.emptyGraceMillis = emptyGraceMillis;
        this.monotonicMillis = monotonicMillis;
    }

    /**
     * The node's annotation as a Node event delivered it (null when absent). True when the report this
     * replica believes changed: the caller counts the node again.
     */
    public synchronized boolean update(String node, String raw) {
        Seen old = byNode.get(node);
        if (old != null && java.util.Objects.equals(old.raw(), raw)) return false;
        if (raw == null || raw.isBlank()) {
            // The agent was removed (or never ran): ACE counts by its rules again.
            byNode.remove(node);
            return old != null && old.trusted() != null;
        }
        Optional<NodeReport> parsed = NodeReportJson.read(raw);
        if (parsed.isEmpty()) {
            LOG.warnf("node %s: %s does not read as a node report; the last one stays", node, dev.ace.binpacker.keys.AceKeys.GPU_ALLOCATION);
            byNode.put(node, old == null ? new Seen(raw, null, null, -1) : new Seen(raw, old.latest(), old.trusted(), old.emptySince()));
            return false;
        }
        NodeReport r = parsed.get();
        if (old != null && old.latest() != null && r.generation() < old.latest().generation()) {
            LOG.infof("node %s: report generation %d is older than %d, ignored", node, r.generation(), old.latest().generation());
            byNode.put(node, new Seen(raw, old.latest(), old.trusted(), old.emptySince()));
            return false;
        }
        NodeReport before = old == null ? null : effective(old, monotonicMillis.getAsLong());
        Seen next;
        long now = monotonicMillis.getAsLong();
        if (r.healthy() == 0 && r.gpuCount() > 0) {
            long since = old != null && old.emptySince() >= 0 ? old.emptySince() : now;
            long health = old == null || old.trusted() == null ? allOf(r.gpuCount()) : old.trusted().healthy();
            NodeReport held = now - since >= emptyGraceMillis ? r
                    : new NodeReport(r.generation(), r.observedAt(), r.policy(), r.gpuCount(), health, r.pods(), r.unmapped());
            next = new Seen(raw, r, held, since);
        } else {
            next = new Seen(raw, r, r, -1);
        }
        byNode.put(node, next);
        NodeReport after = effective(next, now);
        return before == null ? after != null : !before.sameContent(after);
    }

    /** The report this replica believes for the node now, if any. */
    public synchronized Optional<NodeReport> effective(String node) {
        Seen s = byNode.get(node);
        return s == null ? Optional.empty() : Optional.ofNullable(effective(s, monotonicMillis.getAsLong()));
    }

    private NodeReport effective(Seen s, long now) {
        if (s.emptySince() >= 0 && now - s.emptySince() >= emptyGraceMillis) return s.latest();
        return s.trusted();
    }

    /** Nodes whose empty report outlived the grace since the last call: the node's word now stands there. */
    public synchronized List<String> graceEnded() {
        long now = monotonicMillis.getAsLong();
        List<String> out = new ArrayList<>();
        for (var e : byNode.entrySet()) {
            Seen s = e.getValue();
            if (s.emptySince() < 0 || now - s.emptySince() < emptyGraceMillis || s.trusted() == s.latest()) continue;
            LOG.warnf("node %s: the kubelet has offered no GPU for %d s; every GPU of it leaves capacity", e.getKey(), (now - s.emptySince()) / 1000);
            byNode.put(e.getKey(), new Seen(s.raw(), s.latest(), s.latest(), s.emptySince()));
            out.add(e.getKey());
        }
        return out;
    }

    public synchronized void forget(String node) { byNode.remove(node); }

    private static long allOf(int gpus) { return gpus >= 64 ? -1L : (1L << gpus) - 1; }
}
