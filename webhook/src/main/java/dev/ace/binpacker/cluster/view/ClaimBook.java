package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.placement.Holding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The GPUs of allocated DRA ResourceClaims, per node, as holdings of GPUs ACE did not place (DESIGN "Truth and
 * trust": the ledger counts every GPU in use). One holding per physical GPU, whichever claims hold it: two MIG
 * devices of one GPU, or one device shared by several claims, hold it once. A GPU the driver names by index
 * ({@code gpu-3}) is charged to that index where it is free. Only claims that hold a GPU are kept. Thread-safe.
 */
final class ClaimBook {
    /** Key prefix of a holding of a claimed GPU: {@code dra:<node>/<device>}. */
    static final String PREFIX = "dra:";

    private final Map<String, ClaimGpus> byUid = new HashMap<>();

    /** Records the claim (an empty one is forgotten); returns the nodes whose claimed GPUs may have changed. */
    synchronized Set<String> put(ClaimGpus c) {
        ClaimGpus old = c.empty() ? byUid.remove(c.uid()) : byUid.put(c.uid(), c);
        if (c.equals(old)) return Set.of();
        Set<String> changed = new java.util.HashSet<>();
        if (old != null) changed.add(old.node());
        if (!c.empty()) changed.add(c.node());
        return changed;
    }

    synchronized Set<String> remove(String uid) {
        ClaimGpus old = byUid.remove(uid);
        return old == null ? Set.of() : Set.of(old.node());
    }

    /** One holding per GPU the claims hold on {@code node}, in a stable order. */
    synchronized List<Holding> holdings(String node) {
        Set<String> gpus = new TreeSet<>();
        for (ClaimGpus c : byUid.values()) if (node.equals(c.node())) gpus.addAll(c.gpus());
        List<Holding> out = new ArrayList<>(gpus.size());
        for (String g : gpus) {
            int i = ClaimGpus.index(g);
            out.add(new Holding(PREFIX + node + "/" + g, 1, i >= 0 && i < 64 ? 1L << i : 0L));
        }
        return out;
    }

    /** UIDs of the claims kept, for {@link LocalView#retain} after a fresh list. */
    synchronized Set<String> uids() { return new java.util.HashSet<>(byUid.keySet()); }

    synchronized int size() { return byUid.size(); }
}
