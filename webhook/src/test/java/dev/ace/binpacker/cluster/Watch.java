package dev.ace.binpacker.cluster;

import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.cluster.view.LocalView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * One replica's watches on {@link FakeCluster}: events wait in order until the test delivers them. A
 * dropped watch loses what was queued and relists, as a fabric8 informer does after 410 Gone: every
 * object is delivered again, and what the replica knew that is gone is delivered as deleted.
 */
final class Watch {
    sealed interface Event permits PodUp, PodDown, DocUp, DocDown, NodeUp, ReportUp {}

    record PodUp(Pod pod) implements Event {}

    record PodDown(String uid) implements Event {}

    record DocUp(LedgerDoc doc) implements Event {}

    record DocDown(String node) implements Event {}

    record NodeUp(Node node) implements Event {}

    /** A node agent's GpuNodeReport, as the spec's JSON text. */
    record ReportUp(String node, String text) implements Event {}

    final Deque<Event> queue = new ArrayDeque<>();
    private final FakeCluster cluster;
    private final LocalView view;
    private final Set<String> docsSeen = new HashSet<>();

    Watch(FakeCluster cluster, LocalView view) {
        this.cluster = cluster;
        this.view = view;
        cluster.watches.add(this);
    }

    /** Delivers up to {@code n} queued events; returns how many were delivered. */
    int deliver(int n) {
        int done = 0;
        while (done < n && !queue.isEmpty()) {
            apply(queue.poll());
            done++;
        }
        return done;
    }

    int deliverAll() { return deliver(Integer.MAX_VALUE); }

    private void apply(Event e) {
        if (e instanceof PodUp p) {
            view.podChanged(p.pod());
        } else if (e instanceof PodDown p) {
            view.podGone(p.uid());
        } else if (e instanceof DocUp d) {
            docsSeen.add(d.doc().node());
            view.ledgerChanged(d.doc());
        } else if (e instanceof DocDown d) {
            docsSeen.remove(d.node());
            view.ledgerGone(d.node());
        } else if (e instanceof NodeUp n) {
            view.nodeChanged(n.node());
        } else if (e instanceof ReportUp r) {
            view.reportChanged(r.node(), r.text());
        }
    }

    /** The watch broke and the informer listed everything again. */
    void relist() {
        queue.clear();
        cluster.nodes.values().forEach(n -> view.nodeChanged(cluster.copy(n, Node.class)));
        cluster.reports.forEach(view::reportChanged);
        for (String node : new HashSet<>(docsSeen)) {
            if (!cluster.docs.containsKey(node)) {
                docsSeen.remove(node);
                view.ledgerGone(node);
            }
        }
        cluster.docs.values().forEach(d -> {
            docsSeen.add(d.node());
            view.ledgerChanged(d);
        });
        for (PodFacts f : view.pods().all()) {
            if (!cluster.pods.containsKey(f.uid())) view.podGone(f.uid());
        }
        cluster.pods.values().forEach(p -> view.podChanged(cluster.copy(p, Pod.class)));
    }
}
