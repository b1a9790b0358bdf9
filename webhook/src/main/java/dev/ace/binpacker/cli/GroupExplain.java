package dev.ace.binpacker.cli;

import dev.ace.binpacker.admission.GateRelease;
import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.group.GroupOutcome;
import dev.ace.binpacker.placement.group.GroupPlacer;
import dev.ace.binpacker.placement.group.GroupRequest;
import dev.ace.binpacker.workload.Classifier;
import dev.ace.binpacker.workload.InvalidPodException;
import dev.ace.binpacker.workload.WorkloadPods;
import dev.ace.binpacker.keys.GroupKeys;
import dev.ace.binpacker.workload.group.GroupMembership;
import dev.ace.binpacker.workload.group.GroupResolver;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code explain} for a workload whose pods form groups (LeaderWorkerSet with a size, JobSet, multi-node
 * KServe...): per group, whether the inventory could place it whole now, as the leader would (the same
 * {@link GroupPlacer}, ranks in release order, inside the group's topology), and if not, why. A group that fits
 * is reserved on the explain inventory, so later groups and documents see its GPUs taken, as on a cluster.
 */
final class GroupExplain {
    /** Groups shown one per line; the rest are summed up. */
    static final int SHOWN = 8;

    private GroupExplain() {}

    /** Prints the groups of one object's pods; nothing when none of them is a rank of a sized group. */
    static void print(String what, List<WorkloadPods.TemplatePod> pods, Allocator allocator, PrintStream out) {
        List<WorkloadPods.TemplatePod> ranks = pods.stream().filter(t -> t.group() != null).toList();
        if (ranks.isEmpty()) return;
        WorkloadPods.Group g = ranks.get(0).group();
        // Only what ACE itself would hold as a group: the resolver's word on the pods, as at admission.
        GroupMembership m;
        try {
            m = new GroupResolver(GroupResolver.DEFAULT_MAX_SIZE).resolve(ranks.get(0).pod());
        } catch (InvalidPodException e) {
            return; // the rank's own decision above says why it is denied
        }
        if (!(m instanceof GroupMembership.Member member)) return;
        int size = member.id().size();
        String asked = member.id().topologyKey();
        out.println();
        out.println("--- " + what + ": " + g.groups() + (g.groups() == 1 ? " group" : " groups") + " of " + size
                + " pods (" + g.from() + "), each placed whole or not at all");
        List<WorkloadPods.TemplatePod> perGroup = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        int podsPerGroup = 0;
        try {
            for (WorkloadPods.TemplatePod t : ranks) {
                int each = Math.max(1, t.replicas() / Math.max(1, g.groups()));
                podsPerGroup += each;
                if (Classifier.classify(t.pod()).gpus() == 0) continue; // a leader without GPUs is never gated: it holds nothing
                request(allocator, t); // a template ACE cannot place is said once, here
                for (int i = 0; i < each; i++) {
                    perGroup.add(t);
                    labels.add(t.role() + (each > 1 ? " " + (i + 1) : ""));
                }
            }
        } catch (InvalidPodException | IllegalArgumentException e) {
            out.println("groups:    not explained: " + e.getMessage());
            return;
        }
        if (podsPerGroup != size) {
            out.println("groups:    the templates make " + podsPerGroup + " pods per group, not " + size + "; ACE waits for all " + size);
        }
        if (perGroup.isEmpty()) {
            out.println("groups:    no rank asks for GPUs; nothing to place");
            return;
        }
        int placed = 0;
        String firstWhy = null;
        for (int i = 0; i < g.groups(); i++) {
            List<GroupRequest.Rank> rs = new ArrayList<>();
            for (WorkloadPods.TemplatePod t : perGroup) rs.add(GroupRequest.Rank.fresh(request(allocator, t)));
            GroupRequest req = GroupPlacer.shaped(allocator, what + "/" + i, rs, asked, GroupKeys.GPU_CLIQUE, null);
            GroupOutcome o = GroupPlacer.reserve(allocator, req, System.currentTimeMillis());
            String line;
            if (o instanceof GroupOutcome.Reserved r) {
                placed++;
                line = "placed whole now" + (r.domain() == null ? "" : " in " + req.topologyKey() + "=" + r.domain()) + ": "
                        + java.util.stream.IntStream.range(0, r.reservations().size())
                                .mapToObj(k -> labels.get(k) + " on " + where(r.reservations().get(k))).collect(Collectors.joining(", "));
            } else if (o instanceof GroupOutcome.Never n) {
                if (firstWhy == null) firstWhy = "can never be placed: " + n.why();
                line = "can never be placed, so not gated (enforce denies every rank; warn and audit admit them with the reason): " + n.why();
            } else {
                String why = ((GroupOutcome.Waiting) o).why();
                if (firstWhy == null) firstWhy = why;
                line = "would wait at the gate, holding nothing: " + why;
            }
            if (i < SHOWN) out.println(String.format("group %-4s %s", (i + 1) + ":", line));
        }
        if (g.groups() > SHOWN) {
            out.println("groups:    " + placed + " of " + g.groups() + " placed whole now" + (firstWhy == null ? "" : "; the others wait: " + firstWhy));
        }
    }

    /** What the leader would ask for this rank: the gated pod's request ({@link GateRelease#waitingFor}), under a fresh id. */
    private static PlacementRequest request(Allocator allocator, WorkloadPods.TemplatePod t) {
        return allocator.read(a -> {
            try {
                return GateRelease.waitingFor(t.pod(), Reservation.newId(), a);
            } catch (InvalidPodException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        });
    }

    private static String where(Reservation r) {
        int[] g = r.gpus();
        boolean run = g.length > 2 && g[g.length - 1] - g[0] == g.length - 1;
        return r.node() + " (GPUs " + (run ? g[0] + "-" + g[g.length - 1] : Arrays.stream(g).mapToObj(Integer::toString).collect(Collectors.joining(","))) + ")";
    }
}
