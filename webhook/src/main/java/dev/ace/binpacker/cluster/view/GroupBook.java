package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.workload.group.GroupIdentity;
import dev.ace.binpacker.workload.group.GroupMembership;
import dev.ace.binpacker.workload.group.GroupResolver;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every pod the informers showed that is a rank of a sized group (issue 19), GPUs or not (a leader without
 * GPUs still counts towards its group being whole), rebuilt from the pods alone: a restarted replica
 * knows every group again without any object of its own. Indexed by group, so one group's ranks are read
 * without walking the others; the groups whose ranks changed since the last {@link #drainTouched} are the
 * keys the leader looks at again (its gated queue, the group's published state). Thread-safe; decides nothing.
 */
public final class GroupBook {
    /**
     * One rank as last seen. {@code gated}: carries ACE's gate; {@code node}: bound to, null while not;
     * {@code byAce}: ACE decided it (gated, or released with its reservation), false for a pod admitted without ACE.
     */
    public record Rank(String uid, String podName, GroupIdentity group, boolean gated, boolean terminal, String node,
                       int gpus, int priority, long createdMillis, boolean byAce) {}

    private final GroupResolver resolver;
    private final Map<String, Rank> byUid = new ConcurrentHashMap<>();
    /** UIDs of each group's ranks, by group key (guarded by this). */
    private final Map<String, Set<String>> byGroup = new HashMap<>();
    /** Keys of the groups whose ranks changed since the last drain (guarded by this). */
    private final Set<String> touched = new LinkedHashSet<>();

    public GroupBook(int maxSize) { this.resolver = new GroupResolver(maxSize); }

    /** A pod event: recorded when the pod is a rank of a sized group, forgotten otherwise. True when a group changed. */
    boolean seen(Pod pod, PodFacts f) {
        GroupMembership m;
        try {
            m = resolver.resolve(pod);
        } catch (dev.ace.binpacker.workload.InvalidPodException e) {
            m = GroupMembership.SOLO; // admission denied such a pod; one admitted while ACE was down is no group to ACE
        }
        if (f.uid() == null) return false;
        if (m instanceof GroupMembership.Member member) {
            return put(new Rank(f.uid(), f.name(), member.id(), f.gated(), f.terminal(), f.nodeName(), f.gpus(),
                    f.priority(), f.createdMillis(), f.gated() || f.reservationId() != null));
        }
        return forget(f.uid());
    }

    private synchronized boolean put(Rank r) {
        Rank old = byUid.put(r.uid(), r);
        if (Objects.equals(old, r)) return false;
        if (old != null && !old.group().key().equals(r.group().key())) unindex(old);
        byGroup.computeIfAbsent(r.group().key(), k -> new LinkedHashSet<>()).add(r.uid());
        touched.add(r.group().key());
        return true;
    }

    /** The pod is no rank (any more): true when it was one. */
    synchronized boolean forget(String uid) {
        Rank old = byUid.remove(uid);
        if (old == null) return false;
        unindex(old);
        return true;
    }

    private void unindex(Rank old) {
        String key = old.group().key();
        Set<String> uids = byGroup.get(key);
        if (uids != null && uids.remove(old.uid()) && uids.isEmpty()) byGroup.remove(key);
        touched.add(key);
    }

    /** A pod ACE gated as a rank of a group: the group's keeper releases it, never the single-pod gate keeper. */
    public boolean isGatedRank(String uid) {
        Rank r = uid == null ? null : byUid.get(uid);
        return r != null && r.gated() && !r.terminal();
    }

    /**
     * Every group with its live ranks, the first {@code size} of them by rank then age (pods beyond the
     * group's size are extra and wait on their own); groups in no particular order.
     */
    public Map<String, List<Rank>> groups() {
        Map<String, List<Rank>> out = new LinkedHashMap<>();
        for (Rank r : byUid.values()) {
            if (r.terminal()) continue;
            out.computeIfAbsent(r.group().key(), k -> new ArrayList<>()).add(r);
        }
        out.replaceAll((k, l) -> firstOfSize(l));
        return out;
    }

    /** One group's live ranks as {@link #groups} has them (empty when it has none), without walking the other groups. */
    public synchronized List<Rank> group(String key) {
        List<Rank> l = new ArrayList<>();
        for (String uid : byGroup.getOrDefault(key, Set.of())) {
            Rank r = byUid.get(uid);
            if (r != null && !r.terminal()) l.add(r);
        }
        return firstOfSize(l);
    }

    /** The keys of every group with a rank recorded, live or finished. */
    public synchronized Set<String> keys() { return new LinkedHashSet<>(byGroup.keySet()); }

    /** Keys of the groups whose ranks changed (arrived, changed, left) since the last call. */
    public synchronized Set<String> drainTouched() {
        Set<String> out = new LinkedHashSet<>(touched);
        touched.clear();
        return out;
    }

    private static List<Rank> firstOfSize(List<Rank> l) {
        l.sort(Comparator.comparingInt((Rank r) -> r.group().rank()).thenComparingLong(Rank::createdMillis).thenComparing(Rank::uid));
        int size = l.stream().mapToInt(r -> r.group().size()).min().orElse(0);
        return l.size() > size ? new ArrayList<>(l.subList(0, size)) : l;
    }

    public int size() { return byUid.size(); }
}
