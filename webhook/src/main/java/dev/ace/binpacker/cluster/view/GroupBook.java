package dev.ace.binpacker.cluster.view;

import dev.ace.binpacker.cluster.pod.PodFacts;
import dev.ace.binpacker.workload.group.GroupIdentity;
import dev.ace.binpacker.workload.group.GroupMembership;
import dev.ace.binpacker.workload.group.GroupResolver;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every pod the informers showed that is a rank of a sized group (issue 19), GPUs or not (a leader without
 * GPUs still counts towards its group being whole), rebuilt from the pods alone: a restarted replica
 * knows every group again without any object of its own. Thread-safe; decides nothing.
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

    public GroupBook(int maxSize) { this.resolver = new GroupResolver(maxSize); }

    /** A pod event: recorded when the pod is a rank of a sized group, forgotten otherwise. */
    void seen(Pod pod, PodFacts f) {
        GroupMembership m;
        try {
            m = resolver.resolve(pod);
        } catch (dev.ace.binpacker.workload.InvalidPodException e) {
            m = GroupMembership.SOLO; // admission denied such a pod; one admitted while ACE was down is no group to ACE
        }
        if (m instanceof GroupMembership.Member member && f.uid() != null) {
            byUid.put(f.uid(), new Rank(f.uid(), f.name(), member.id(), f.gated(), f.terminal(), f.nodeName(), f.gpus(),
                    f.priority(), f.createdMillis(), f.gated() || f.reservationId() != null));
        } else if (f.uid() != null) {
            byUid.remove(f.uid());
        }
    }

    void forget(String uid) { byUid.remove(uid); }

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
        for (Map.Entry<String, List<Rank>> e : out.entrySet()) {
            List<Rank> l = e.getValue();
            l.sort(Comparator.comparingInt((Rank r) -> r.group().rank()).thenComparingLong(Rank::createdMillis).thenComparing(Rank::uid));
            int size = l.stream().mapToInt(r -> r.group().size()).min().orElse(0);
            if (l.size() > size) e.setValue(new ArrayList<>(l.subList(0, size)));
        }
        return out;
    }

    public int size() { return byUid.size(); }
}
