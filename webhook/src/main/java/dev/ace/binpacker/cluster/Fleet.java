package dev.ace.binpacker.cluster;

import dev.ace.binpacker.admission.PendingCap;
import dev.ace.binpacker.observability.Readiness;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.ReservationStore;
import java.util.List;

/**
 * The live allocator (cluster snapshot + ledger) the webhook decides against. Replaced whole when
 * the inventory is (re)loaded, so a reload never mixes two views of the cluster.
 */
public final class Fleet {
    public static final String INVENTORY = "inventory";

    private final Readiness readiness;
    private volatile Allocator allocator;
    private volatile ReservationStore store = ReservationStore.IN_MEMORY;
    private volatile PendingCap.Sightings sightings = PendingCap.Sightings.NONE;

    /** How long the oldest waiting TP pod waits before its earmark is strict (millis, 0: never; placement.Earmarks). */
    private final long starvationBoundMillis;

    public Fleet(Readiness readiness) { this(readiness, dev.ace.binpacker.placement.Earmarks.NO_BOUND); }

    public Fleet(Readiness readiness, long starvationBoundMillis) {
        if (starvationBoundMillis < 0) throw new IllegalArgumentException("ace.queue.starvation-bound must not be negative: " + starvationBoundMillis + " ms");
        this.readiness = readiness;
        this.starvationBoundMillis = starvationBoundMillis;
        this.allocator = new Allocator(new ClusterState(), PackerConfig.defaults());
        readiness.expect(INVENTORY);
    }

    public Allocator allocator() { return allocator; }

    /** Which reservations' pods this replica has seen (in-cluster: the Pod informer); the pending cap skips them. */
    public void useSightings(PendingCap.Sightings s) { this.sightings = s; }

    public PendingCap.Sightings sightings() { return sightings; }

    /** Where reservations are shared between replicas from the next {@link #load} on (in-cluster: the GpuLedger objects). */
    public void useStore(ReservationStore store) { this.store = store; }

    /** A fresh allocator over these nodes, everything free; ready from now on. */
    public synchronized Allocator load(List<NodeInfo> nodes) {
        ClusterState state = new ClusterState();
        for (NodeInfo n : nodes) state.upsert(n);
        Allocator a = new Allocator(state, PackerConfig.defaults(), store, Allocator.DEFAULT_EARMARKS, starvationBoundMillis);
        this.allocator = a;
        readiness.ready(INVENTORY, true);
        return a;
    }
}
