package dev.ace.binpacker.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pods this replica has seen, by UID, by node and by the reservation id they carry, plus the
 * UIDs seen deleted lately (so the leader releases an entry at once when its pod's deletion was
 * seen, and waits a grace period when the pod is merely unknown). Thread-safe.
 */
public final class PodCache {
    /** Tombstones kept at most this many; older ones matter no more than an unknown UID. */
    static final int TOMBSTONES = 10_000;

    private final Map<String, PodFacts> byUid = new HashMap<>();
    private final Map<String, Set<String>> byNode = new HashMap<>();
    private final Map<String, Set<String>> byReservation = new HashMap<>();
    private final LinkedHashMap<String, Boolean> gone = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) { return size() > TOMBSTONES; }
    };

    /** Stores the pod's facts; returns what was known of it before. */
    public synchronized Optional<PodFacts> put(PodFacts f) {
        PodFacts old = byUid.put(f.uid(), f);
        if (old != null) unindex(old);
        index(f);
        return Optional.ofNullable(old);
    }

    public synchronized Optional<PodFacts> remove(String uid) {
        PodFacts old = byUid.remove(uid);
        if (old != null) unindex(old);
        gone.put(uid, Boolean.TRUE);
        return Optional.ofNullable(old);
    }

    private void index(PodFacts f) {
        if (f.nodeName() != null) byNode.computeIfAbsent(f.nodeName(), k -> new LinkedHashSet<>()).add(f.uid());
        if (f.reservationId() != null) byReservation.computeIfAbsent(f.reservationId(), k -> new LinkedHashSet<>()).add(f.uid());
    }

    private void unindex(PodFacts f) {
        drop(byNode, f.nodeName(), f.uid());
        drop(byReservation, f.reservationId(), f.uid());
    }

    private static void drop(Map<String, Set<String>> m, String key, String uid) {
        if (key == null) return;
        Set<String> s = m.get(key);
        if (s == null) return;
        s.remove(uid);
        if (s.isEmpty()) m.remove(key);
    }

    public synchronized Optional<PodFacts> get(String uid) { return Optional.ofNullable(byUid.get(uid)); }

    /** True when this replica saw the pod of that UID deleted. */
    public synchronized boolean seenGone(String uid) { return gone.containsKey(uid); }

    public synchronized List<PodFacts> onNode(String node) { return select(byNode.get(node)); }

    /** Pods whose {@code ace.dev/reservation} annotation names this id. */
    public synchronized List<PodFacts> carrying(String reservationId) { return select(byReservation.get(reservationId)); }

    public synchronized List<PodFacts> all() { return new ArrayList<>(byUid.values()); }

    public synchronized int size() { return byUid.size(); }

    private List<PodFacts> select(Set<String> uids) {
        if (uids == null) return List.of();
        List<PodFacts> out = new ArrayList<>(uids.size());
        for (String u : uids) out.add(byUid.get(u));
        return out;
    }
}
