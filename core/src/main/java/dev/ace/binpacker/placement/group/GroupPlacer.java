package dev.ace.binpacker.placement.group;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.PlacementResult;
import dev.ace.binpacker.placement.ReasonCode;
import dev.ace.binpacker.placement.Reservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * All or nothing for a group (DESIGN "Groups are placed whole"). First a trial under the allocator's
 * lock: every rank is decided by the same packer as a single pod and held on a scratch copy of the
 * ledger, domain by domain (one value of the group's topology label, e.g. one NVL72 {@code gpu.clique}),
 * and given back; only when every rank fits in one domain are the ranks reserved for real, each
 * committed like any reservation, inside that domain. If one of those commits loses (another replica
 * took the GPUs in between), every rank reserved by this attempt is released before returning: a
 * group never keeps part of what it asked for. Deterministic: domains are tried tightest first, by value.
 */
public final class GroupPlacer {
    private GroupPlacer() {}

    /** The domain a trial found room for every rank in; empty when none. */
    public record Plan(String domain) {}

    /**
     * A group's request as the leader and {@code explain} both shape it: inside the topology the pods ask for; else,
     * for ranks of TP >= 16 on a fleet with nodes labelled {@code cliqueLabel} (NVL72's {@code nvidia.com/gpu.clique}),
     * inside one such multi-node NVLink domain on whole nodes (trays).
     *
     * @param asked  the node label the pods ask the group to share, null when none
     * @param domain the value of the topology label the group's running ranks are in, null when free to choose
     */
    public static GroupRequest shaped(Allocator a, String key, List<GroupRequest.Rank> ranks, String asked, String cliqueLabel, String domain) {
        int tp = ranks.stream().mapToInt(r -> r.request().tp()).max().orElse(0);
        if (asked == null && tp >= 16 && a.read(al -> anyNodeLabelled(al.state(), cliqueLabel))) {
            return new GroupRequest(key, ranks, cliqueLabel, true, domain);
        }
        return new GroupRequest(key, ranks, asked, false, domain);
    }

    private static boolean anyNodeLabelled(ClusterState s, String label) {
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n != null && n.labels().containsKey(label)) return true;
        }
        return false;
    }

    /** Tries every domain; the first (tightest) one that takes every rank still needing GPUs. Changes nothing. */
    public static Optional<Plan> plan(Allocator a, GroupRequest g, long now) {
        return a.read(al -> {
            for (String d : domains(al.state(), g, true)) {
                if (trial(al, g, d, now) == needing(g)) return Optional.of(new Plan(d));
            }
            return Optional.empty();
        });
    }

    /**
     * Reserves every rank that needs GPUs inside one domain, or nothing. Ranks that already hold an
     * entry keep it. A store error is thrown after what this attempt reserved was released.
     */
    public static GroupOutcome reserve(Allocator a, GroupRequest g, long now) {
        Optional<Plan> plan = plan(a, g, now);
        if (plan.isEmpty()) {
            Optional<String> never = never(a, g, now);
            return never.isPresent() ? new GroupOutcome.Never(never.get()) : new GroupOutcome.Waiting(whyNot(a, g));
        }
        String d = plan.get().domain();
        List<Reservation> out = new ArrayList<>();
        List<String> mine = new ArrayList<>();
        try {
            for (GroupRequest.Rank r : g.ranks()) {
                if (r.held().isPresent()) {
                    out.add(r.held().get());
                    continue;
                }
                Allocator.Outcome o = a.place(within(r.request(), g.topologyKey(), d), false, now);
                if (!o.placed() || !wholeEnough(a, g, o.reservation())) {
                    if (o.placed()) a.release(o.reservation().id());
                    undo(a, mine);
                    return new GroupOutcome.Waiting("lost the GPUs of rank " + out.size() + " to another reservation; trying again");
                }
                mine.add(o.reservation().id());
                out.add(o.reservation());
            }
        } catch (RuntimeException e) {
            undo(a, mine);
            throw e;
        }
        return new GroupOutcome.Reserved(d, out);
    }

    /**
     * The earmark of the oldest waiting group (bounded in time by its caller): as many of its ranks as fit
     * now in the domain where most fit, reserved for real, so GPUs freed one by one add up for it instead of
     * going to smaller pods. Returns what it reserved (possibly nothing).
     */
    public static List<Reservation> earmark(Allocator a, GroupRequest g, long now) {
        String best = a.read(al -> {
            String pick = null;
            int most = 0;
            for (String d : domains(al.state(), g, false)) {
                int n = trial(al, g, d, now);
                if (n > most) { most = n; pick = d; }
            }
            return most == 0 ? "\u0000none" : pick;
        });
        if ("\u0000none".equals(best)) return List.of();
        List<Reservation> out = new ArrayList<>();
        for (GroupRequest.Rank r : g.ranks()) {
            if (r.held().isPresent()) continue;
            Allocator.Outcome o = a.place(within(r.request(), g.topologyKey(), best), false, now);
            if (!o.placed()) continue;
            if (!wholeEnough(a, g, o.reservation())) {
                a.release(o.reservation().id());
                continue;
            }
            out.add(o.reservation());
        }
        return out;
    }

    private static void undo(Allocator a, List<String> ids) {
        for (String id : ids) a.release(id);
    }

    private static int needing(GroupRequest g) { return g.ranks().size() - g.held(); }

    /** Ranks needing GPUs that fit together in domain {@code d}; the scratch entries are given back. Under the lock. */
    private static int trial(Allocator al, GroupRequest g, String d, long now) {
        List<String> scratch = new ArrayList<>();
        int placed = 0;
        try {
            for (GroupRequest.Rank r : g.ranks()) {
                if (r.held().isPresent()) continue;
                PlacementRequest req = within(r.request(), g.topologyKey(), d);
                PlacementRequest trialReq = new PlacementRequest("trial-" + scratch.size() + "-" + req.id(), req.workloadClass(),
                        req.gpus(), req.milliPerGpu(), req.tp(), req.pools(), req.constraints(), req.cpuMilli(), req.gpuModel());
                Allocator.Outcome o = al.place(trialReq, true, now);
                if (!(o.result() instanceof PlacementResult.Placed p) || o.reservation() == null) continue;
                if (g.wholeNodes() && p.nodeIndex() >= 0 && al.state().node(p.nodeIndex()).gpuCount() != req.gpus()) continue;
                if (al.ledger().reserve(o.reservation()) != dev.ace.binpacker.placement.Ledger.Outcome.RESERVED) continue;
                scratch.add(o.reservation().id());
                placed++;
            }
        } finally {
            for (String id : scratch) al.ledger().release(id);
        }
        return placed;
    }

    private static boolean wholeEnough(Allocator a, GroupRequest g, Reservation r) {
        if (!g.wholeNodes()) return true;
        return a.read(al -> {
            int i = al.state().indexOf(r.node());
            return i >= 0 && al.state().node(i).gpuCount() == r.gpuCount();
        });
    }

    /**
     * The domains to try, tightest first (fewest free GPUs that still hold the group's), then by value: a
     * group fills a partly used rack before it breaks into a clean one. One pseudo-domain (null) when the
     * group asks for no topology. Held ranks pin the group to their domain. A domain whose GPUs, all of them,
     * could never hold the group is never tried; with {@code freeNow} neither is one without enough free GPUs now.
     */
    static List<String> domains(ClusterState s, GroupRequest g, boolean freeNow) {
        if (g.topologyKey() == null) return java.util.Collections.singletonList(null);
        String pinned = g.domain();
        if (pinned == null) {
            for (GroupRequest.Rank r : g.ranks()) {
                if (r.held().isEmpty()) continue;
                int i = s.indexOf(r.held().get().node());
                if (i >= 0) pinned = s.node(i).labels().get(g.topologyKey());
            }
        }
        if (pinned != null) return List.of(pinned);
        Map<String, Integer> free = new TreeMap<>();
        Map<String, Integer> total = new HashMap<>();
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n == null) continue;
            String v = n.labels().get(g.topologyKey());
            if (v == null || v.isEmpty()) continue;
            free.merge(v, Long.bitCount(s.freeMask(i)), Integer::sum);
            total.merge(v, n.gpuCount(), Integer::sum);
        }
        int need = g.gpus();
        List<String> out = new ArrayList<>(free.keySet());
        out.removeIf(v -> total.get(v) < need || freeNow && free.get(v) < need);
        out.sort(java.util.Comparator.comparingInt((String v) -> free.get(v)).thenComparing(v -> v));
        return out;
    }

    /** The request narrowed to one value of the topology label (ACE narrows, never widens, where a pod may run). */
    static PlacementRequest within(PlacementRequest r, String key, String value) {
        if (key == null || value == null) return r;
        NodeConstraints c = r.constraints();
        String own = c.nodeSelector().get(key);
        Map<String, String> sel = new HashMap<>(c.nodeSelector());
        // A pod that selects another value of the key keeps its own: the packer then finds nothing in this domain.
        if (own == null) sel.put(key, value);
        NodeConstraints narrowed = new NodeConstraints(own == null || own.equals(value) ? sel : Map.of(key, own + "\u0000"),
                c.affinityTerms(), c.tolerations());
        return new PlacementRequest(r.id(), r.workloadClass(), r.gpus(), r.milliPerGpu(), r.tp(), r.pools(), narrowed,
                r.cpuMilli(), r.gpuModel(), r.owner());
    }

    /** Reasons that depend on what is free now: a node they filter out may hold the rank once pods leave. */
    private static final java.util.Set<ReasonCode> NOT_NOW = java.util.EnumSet.of(ReasonCode.TOO_FEW_FREE_GPUS,
            ReasonCode.NO_FREE_CLIQUE, ReasonCode.NO_GPU_SHARE, ReasonCode.INSUFFICIENT_CPU, ReasonCode.INSUFFICIENT_RESOURCE);

    /**
     * Why the group can never be placed, whatever is free; empty when it could be once enough pods leave. "Never" is
     * a rank every node of the inventory refuses for a reason freeing GPUs cannot change (the packer's own filters:
     * selector, affinity, taint, pool, GPU model, board size, a resource no node offers), or a topology whose
     * largest domain has fewer GPUs in all than the group asks. Changes nothing (dry runs).
     */
    public static Optional<String> never(Allocator a, GroupRequest g, long now) {
        int i = 0;
        for (GroupRequest.Rank r : g.ranks()) {
            i++;
            if (r.held().isPresent()) continue;
            Optional<PlacementResult.Unschedulable> u = nowhere(a, r.request(), now);
            if (u.isPresent()) {
                return Optional.of("no node can ever hold " + (i == 1 ? "the leader" : "rank " + (i - 1)) + " of the group ("
                        + r.request().gpus() + " GPUs): " + u.get().message());
            }
        }
        if (g.topologyKey() == null || g.domain() != null) {
            // Without a topology label the domain is the whole inventory.
            int all = a.read(al -> totalGpus(al.state()));
            return all >= g.gpus() ? Optional.empty()
                    : Optional.of("the group asks for " + g.gpus() + " GPUs, but the whole inventory has " + all + " GPUs in all");
        }
        return a.read(al -> {
            if (!domains(al.state(), g, false).isEmpty()) return Optional.empty();
            int largest = largestDomain(al.state(), g.topologyKey());
            return Optional.of("the group asks for " + g.gpus() + " GPUs in one " + g.topologyKey() + " domain"
                    + (g.wholeNodes() ? " on whole nodes" : "") + ", but the largest has " + largest + " GPUs in all");
        });
    }

    /** The packer's answer when every node refuses {@code r} for a reason freeing GPUs cannot change; empty otherwise. A dry run. */
    public static Optional<PlacementResult.Unschedulable> nowhere(Allocator a, PlacementRequest r, long now) {
        PlacementResult res = a.place(r, true, now).result();
        if (res instanceof PlacementResult.Unschedulable u && u.reasons().stream().noneMatch(c -> NOT_NOW.contains(c.code()))) {
            return Optional.of(u);
        }
        return Optional.empty();
    }

    private static int totalGpus(ClusterState s) {
        int n = 0;
        for (int i = 0; i < s.capacity(); i++) if (s.node(i) != null) n += s.node(i).gpuCount();
        return n;
    }

    private static int largestDomain(ClusterState s, String key) {
        Map<String, Integer> total = new HashMap<>();
        for (int i = 0; i < s.capacity(); i++) {
            NodeInfo n = s.node(i);
            if (n == null) continue;
            String v = n.labels().get(key);
            if (v != null && !v.isEmpty()) total.merge(v, n.gpuCount(), Integer::sum);
        }
        return total.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    private static String whyNot(Allocator a, GroupRequest g) {
        int need = needing(g);
        String per = g.ranks().stream().map(r -> Integer.toString(r.request().gpus())).distinct().reduce((x, y) -> x + "/" + y).orElse("?");
        if (g.topologyKey() == null) {
            return "no room for all " + need + " ranks (" + per + " GPUs each) at once";
        }
        int domains = a.read(al -> domains(al.state(), g, true).size());
        return "no single " + g.topologyKey() + " domain has room for all " + need + " ranks (" + per + " GPUs each"
                + (g.wholeNodes() ? ", whole nodes" : "") + "); " + domains + " domains have enough free GPUs in total";
    }
}
