package dev.ace.binpacker.cluster.controller;

import dev.ace.binpacker.cluster.ledger.LedgerDoc;
import dev.ace.binpacker.cluster.ledger.SharedLedger;
import dev.ace.binpacker.cluster.view.LocalView;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * The leader publishes each node's counts (board GPUs, allocatable, held by pods ACE did not place) on its
 * ledger object, one node per key: written when they differ from what this leader last published, and the
 * object of a node that left dropped once it holds no entry. At most {@link #PUBLISH_PER_PASS} writes a
 * pass: the rest wait in the queue.
 */
final class CapacityPublisher implements KeyReconciler<String> {
    private static final Logger LOG = Logger.getLogger(CapacityPublisher.class);

    /**
     * Objects written per pass, at most: a new leader of 1,000 nodes creates 1,000 objects, and in one pass they
     * would queue in front of a burst's admissions on the API server (issue 15); the rest follow in later passes.
     */
    static final int PUBLISH_PER_PASS = 50;

    private final LocalView view;
    private final SharedLedger ledger;
    private final Map<String, LedgerDoc.Capacity> published = new HashMap<>();
    private int writes;

    CapacityPublisher(LocalView view, SharedLedger ledger) {
        this.view = view;
        this.ledger = ledger;
    }

    @Override
    public void forget() { published.clear(); }

    @Override
    public void passBegins() { writes = 0; }

    @Override
    public boolean budgetLeft() { return writes < PUBLISH_PER_PASS; }

    /** Every node, and every node this leader published that left. */
    @Override
    public Collection<String> keys() {
        Set<String> out = new LinkedHashSet<>(view.nodeNames());
        out.addAll(published.keySet());
        return out;
    }

    @Override
    public Result reconcile(String node, long now, BooleanSupplier leading) {
        if (!view.hasNode(node)) {
            if (!published.containsKey(node) || !leading.getAsBoolean()) return Result.DONE;
            try {
                ledger.dropIfEmpty(node);
                published.remove(node);
                return Result.DONE;
            } catch (RuntimeException e) {
                LOG.debugf("could not drop the ledger object of %s: %s", node, e.getMessage());
                return new Result.Retry(e.getMessage());
            }
        }
        LedgerDoc.Capacity c = view.capacity(node);
        if (c.gpus() == 0 || c.equals(published.get(node)) || !leading.getAsBoolean()) return Result.DONE;
        try {
            if (ledger.publish(node, c)) writes++;
            published.put(node, c);
            return Result.DONE;
        } catch (RuntimeException e) {
            LOG.debugf("could not publish the counts of %s: %s", node, e.getMessage());
            return new Result.Retry(e.getMessage());
        }
    }
}
