package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The MIG and MPS resources the slicing nodes offer, for one policy: the offers of the whole pool are kept until a
 * node is added, changed or removed (most slicing pods carry no node constraints, and are answered without reading
 * every node's labels). One per {@link PodPolicy}, never shared between engines.
 */
final class SlicingOffers {
    private record Cached(ClusterState state, long membership, Set<SlicingOffer> offers) {}

    private volatile Cached cached;

    /** Resources offered by the slicing nodes the pod may be narrowed to (ACE adds the pool toleration itself). */
    Set<SlicingOffer> of(ClusterState s, NodeConstraints c) {
        if (!c.isEmpty()) return scan(s, c);
        Cached last = cached;
        if (last != null && last.state() == s && last.membership() == s.membershipVersion()) return last.offers();
        Set<SlicingOffer> offers = Collections.unmodifiableSet(scan(s, c));
        cached = new Cached(s, s.membershipVersion(), offers);
        return offers;
    }

    private static Set<SlicingOffer> scan(ClusterState s, NodeConstraints c) {
        Set<SlicingOffer> offers = new LinkedHashSet<>();
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n == null || n.pool() != Pool.SLICING || !c.selects(n)) continue;
            offers.addAll(SlicingOffer.of(n.labels()));
        }
        return offers;
    }
}
