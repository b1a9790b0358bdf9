package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.pod.PodFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pods this replica has seen, by UID, by node, by namespace/name and by the reservation id they
 * carry, plus the UIDs and names seen deleted lately (so the leader releases an entry at once when its
 * pod's deletion was seen, and waits a grace period when the pod is merely unknown; and a node report
 * naming a pod seen deleted is known to be behind). Thread-safe.
 */
public final class PodCache {
    /** Tombstones kept at most this many; older ones matter no more than an unknown UID. */
    public static final int TOMBSTONES = 10_000;

    private final Map<String, PodFacts> byUid = new HashMap<>();
    private final Map<String, Set<String>> byNode = new HashMap<>();
    private final Map<String, Set<String>> byReservation = new HashMap<>();
    private final Map<String, Set<String>> byReservationNode = new HashMap<>();
    private final Map<String, Set<String>> byKey = new HashMap<>();
    private final LinkedHashMap<String, Boolean> gone = tombstones();
    private final LinkedHashMap<String, Boolean> goneNames = tombstones();

    private static LinkedHashMap<String, Boolean> tombstones() {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) { return size() > TOMBSTONES; }
        };
    }

    /** Stores the pod's facts; returns what was known of it before. */
    public synchronized Optional<PodFacts> put(PodFacts f) {
        PodFacts old = byUid.put(f.uid(), f);
        if (old != null) unindex(old);
        index(f);
        goneNames.remove(f.key());
        return Optional.ofNullable(old);
    }

    public synchronized Optional<PodFacts> remove(String uid) {
        PodFacts old = byUid.remove(uid);
        if (old != null) {
            unindex(old);
            if (!byKey.containsKey(old.key())) goneNames.put(old.key(), Boolean.TRUE);
        }
        gone.put(uid, Boolean.TRUE);
        return Optional.ofNullable(old);
    }

    private void index(PodFacts f) {
        if (f.nodeName() != null) byNode.computeIfAbsent(f.nodeName(), k -> new LinkedHashSet<>()).add(f.uid());
        if (f.reservationId() != null) byReservation.computeIfAbsent(f.reservationId(), k -> new LinkedHashSet<>()).add(f.uid());
        if (f.reservationNode() != null) byReservationNode.computeIfAbsent(f.reservationNode(), k -> new LinkedHashSet<>()).add(f.uid());
        byKey.computeIfAbsent(f.key(), k -> new LinkedHashSet<>()).add(f.uid());
    }

    private void unindex(PodFacts f) {
        drop(byNode, f.nodeName(), f.uid());
        drop(byReservation, f.reservationId(), f.uid());
        drop(byReservationNode, f.reservationNode(), f.uid());
        drop(byKey, f.key(), f.uid());
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

    /** True when this replica saw the last pod of that namespace/name deleted and none of that name since. */
    public synchronized boolean seenGoneByName(String namespace, String name) { return goneNames.containsKey(namespace + "/" + name); }

    /** The pods of that namespace and name this replica knows (more than one only while a re-created pod overlaps its predecessor). */
    public synchronized List<PodFacts> named(String namespace, String name) { return select(byKey.get(namespace + "/" + name)); }

    public synchronized List<PodFacts> onNode(String node) { return select(byNode.get(node)); }

    /** Pods whose {@code ace.dev/reservation} annotation names this id. */
    public synchronized List<PodFacts> carrying(String reservationId) { return select(byReservation.get(reservationId)); }

    /** Pods whose {@code ace.dev/reservation} annotation names this node (pinned there, bound or not). */
    public synchronized List<PodFacts> reservedOn(String node) { return select(byReservationNode.get(node)); }

    /** Nodes some pod's {@code ace.dev/reservation} annotation names. */
    public synchronized Set<String> reservationNodes() { return new LinkedHashSet<>(byReservationNode.keySet()); }

    public synchronized List<PodFacts> all() { return new ArrayList<>(byUid.values()); }

    public synchronized int size() { return byUid.size(); }

    private List<PodFacts> select(Set<String> uids) {
        if (uids == null) return List.of();
        List<PodFacts> out = new ArrayList<>(uids.size());
        for (String u : uids) out.add(byUid.get(u));
        return out;
    }
}
