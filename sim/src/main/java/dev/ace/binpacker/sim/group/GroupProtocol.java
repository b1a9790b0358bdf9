package dev.ace.binpacker.sim.group;

import dev.ace.binpacker.placement.Allocator;
import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeConstraints;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.PackerConfig;
import dev.ace.binpacker.placement.PlacementRequest;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.Reservation;
import dev.ace.binpacker.placement.WorkloadClass;
import dev.ace.binpacker.placement.group.GroupOutcome;
import dev.ace.binpacker.placement.group.GroupPlacer;
import dev.ace.binpacker.placement.group.GroupRequest;
import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Issue 19's simulator protocol: a fleet of HGX H100 boards in racks, a seeded stream of TP 8 x 2/4 groups
 * (half asking for one rack, ranks arriving over a short assembly window) mixed with single TP pods, replayed
 * through the production packer under three group semantics:
 * <ul>
 *   <li>{@code unaware}: every pod placed on its own as it arrives or when GPUs free (what ACE did before issue
 *       19, and what kube-scheduler does without a gang plugin); ranks hold GPUs while partners wait;</li>
 *   <li>{@code gang}: KAI/Volcano-style all-or-nothing at the group's size once all ranks exist, queue in
 *       arrival order with backfill, no topology domain (a minMember gang);</li>
 *   <li>{@code ace}: {@link GroupPlacer}: all or nothing, inside one rack when asked, groups before single pods.</li>
 * </ul>
 * Discrete events in minutes; every number comes from the run, nothing is assumed.
 */
public final class GroupProtocol {
    public enum Semantics { UNAWARE, GANG, ACE }

    /** What one run measured. GPU-hours held by incomplete groups: GPUs held by ranks whose group is not all running. */
    public record Result(Semantics semantics, int groups, int groupsWhole, int groupsWholeInDomain, int groupsAskingDomain, int groupsAskingStarted,
                         double heldByIncompleteGpuHours, double groupWaitP50, double groupWaitP95, double singleWaitP50,
                         int singles, int singlesPlaced) {
        public double shareWhole() { return groups == 0 ? 0 : (double) groupsWhole / groups; }
    }

    private record Job(int id, int group, int rank, int gpus, double arrival, double duration, boolean rack) {}

    private static final GpuBoard HGX = BoardCatalog.infer(Map.of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count", "8"))
            .board().orElseThrow();

    private final int nodes;
    private final int racks;
    private final double horizon;
    private final List<Job> jobs = new ArrayList<>();
    private final int groupCount;

    /**
     * @param nodes   8-GPU boards, spread evenly over {@code racks} racks
     * @param arrivals jobs (a group counts as one) arriving over {@code horizon} minutes, 30% of them groups
     */
    public GroupProtocol(long seed, int nodes, int racks, int arrivals, double horizon) {
        this.nodes = nodes;
        this.racks = racks;
        this.horizon = horizon;
        Random rnd = new Random(seed);
        int id = 0;
        int groups = 0;
        for (int i = 0; i < arrivals; i++) {
            double t = rnd.nextDouble() * horizon;
            double duration = 30 + rnd.nextDouble() * 120;
            if (rnd.nextDouble() < 0.3) {
                int size = rnd.nextBoolean() ? 2 : 4;
                boolean rack = rnd.nextBoolean();
                for (int r = 0; r < size; r++) jobs.add(new Job(id++, groups, r, 8, t + rnd.nextDouble() * 2, duration, rack));
                groups++;
            } else {
                int[] tp = {1, 2, 4, 8};
                jobs.add(new Job(id++, -1, 0, tp[rnd.nextInt(tp.length)], t, duration, false));
            }
        }
        this.groupCount = groups;
        jobs.sort(Comparator.comparingDouble(Job::arrival).thenComparingInt(Job::id));
    }

    public Result run(Semantics s) {
        ClusterState state = new ClusterState();
        for (int i = 0; i < nodes; i++) {
            String name = "hgx-" + i;
            state.upsert(new NodeInfo(name, Pool.INFERENCE, Map.of("kubernetes.io/hostname", name, "rack", "r" + (i % racks)),
                    List.of(), HGX, "sim", HGX.name(), 0));
        }
        return new Run(new Allocator(state, PackerConfig.defaults()), s).go();
    }

    /** One replay: the state of every job, the event queue (arrivals and ends), the measurements. */
    private final class Run {
        final Allocator a;
        final Semantics s;
        final String[] held = new String[jobs.size()];     // reservation id per job index, null when not holding
        final double[] heldSince = new double[jobs.size()];
        final double[] started = new double[jobs.size()];
        final List<Integer> waiting = new ArrayList<>();    // job indices arrived and not placed, arrival order
        final PriorityQueue<double[]> ends = new PriorityQueue<>(Comparator.comparingDouble(e -> e[0]));
        final double[] groupWhole = new double[groupCount]; // time the last rank arrived
        final double[] groupStart = new double[groupCount];
        final boolean[] groupInDomain = new boolean[groupCount];
        final int[] arrivedRanks = new int[groupCount];
        final int[] size = new int[groupCount];
        double heldIncomplete;
        final List<Double> singleWaits = new ArrayList<>();

        Run(Allocator a, Semantics s) {
            this.a = a;
            this.s = s;
            java.util.Arrays.fill(groupStart, -1);
            java.util.Arrays.fill(started, -1);
            for (Job j : jobs) if (j.group() >= 0) size[j.group()]++;
        }

        Result go() {
            int next = 0;
            double now = 0;
            while (now <= horizon) {
                double tArrive = next < jobs.size() ? jobs.get(next).arrival() : Double.MAX_VALUE;
                double tEnd = ends.isEmpty() ? Double.MAX_VALUE : ends.peek()[0];
                double t = Math.min(tArrive, tEnd);
                if (t == Double.MAX_VALUE || t > horizon) break;
                accrue(now, t);
                now = t;
                if (tEnd <= tArrive) {
                    finish((int) ends.poll()[1]);
                } else {
                    Job j = jobs.get(next);
                    waiting.add(next++);
                    if (j.group() >= 0 && ++arrivedRanks[j.group()] == size[j.group()]) groupWhole[j.group()] = now;
                }
                schedule(now);
            }
            accrue(now, horizon);
            return result();
        }

        /** GPU-time held by ranks whose group is not all running, between two events. */
        void accrue(double from, double to) {
            for (int i = 0; i < jobs.size(); i++) {
                Job j = jobs.get(i);
                if (held[i] != null && j.group() >= 0 && groupStart[j.group()] < 0) heldIncomplete += j.gpus() * (to - from) / 60.0;
            }
        }

        void finish(int i) {
            if (held[i] != null) a.release(held[i]);
            held[i] = null;
        }

        void schedule(double now) {
            if (s != Semantics.UNAWARE) {
                for (int g : groupsWaiting()) tryGroup(g, now);
            }
            for (Integer i : new ArrayList<>(waiting)) {
                Job j = jobs.get(i);
                if (j.group() >= 0 && s != Semantics.UNAWARE) continue;
                PlacementRequest r = request(j, i);
                Allocator.Outcome o = a.place(r, false, (long) (now * 60_000));
                if (!o.placed()) continue;
                hold(i, o.reservation().id(), now);
                if (j.group() < 0) {
                    singleWaits.add(now - j.arrival());
                    ends.add(new double[] {now + j.duration(), i});
                } else if (allHeld(j.group())) {
                    start(j.group(), now);
                }
            }
        }

        List<Integer> groupsWaiting() {
            List<Integer> out = new ArrayList<>();
            for (Integer i : waiting) {
                Job j = jobs.get(i);
                if (j.group() >= 0 && j.rank() == 0 && arrivedRanks[j.group()] == size[j.group()] && !out.contains(j.group())) out.add(j.group());
            }
            return out;
        }

        void tryGroup(int g, double now) {
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < jobs.size(); i++) if (jobs.get(i).group() == g) idx.add(i);
            boolean rack = jobs.get(idx.get(0)).rack() && s == Semantics.ACE;
            List<GroupRequest.Rank> ranks = new ArrayList<>();
            for (int i : idx) ranks.add(GroupRequest.Rank.fresh(request(jobs.get(i), i)));
            GroupOutcome o = GroupPlacer.reserve(a, new GroupRequest("g" + g, ranks, rack ? "rack" : null, false, null), (long) (now * 60_000));
            if (!(o instanceof GroupOutcome.Reserved r)) return;
            for (int k = 0; k < idx.size(); k++) hold(idx.get(k), r.reservations().get(k).id(), now);
            start(g, now);
        }

        void hold(int i, String id, double now) {
            held[i] = id;
            heldSince[i] = now;
            waiting.remove((Integer) i);
        }

        boolean allHeld(int g) {
            for (int i = 0; i < jobs.size(); i++) if (jobs.get(i).group() == g && held[i] == null) return false;
            return true;
        }

        void start(int g, double now) {
            groupStart[g] = now;
            java.util.Set<String> rackSeen = new java.util.HashSet<>();
            for (int i = 0; i < jobs.size(); i++) {
                Job j = jobs.get(i);
                if (j.group() != g) continue;
                ends.add(new double[] {now + j.duration(), i});
                String node = a.reservation(held[i]).map(Reservation::node).orElse("hgx-0");
                rackSeen.add("r" + (Integer.parseInt(node.substring(4)) % racks));
            }
            groupInDomain[g] = rackSeen.size() == 1;
        }

        PlacementRequest request(Job j, int i) {
            return PlacementRequest.whole("job-" + i, WorkloadClass.INFERENCE, j.gpus(), j.gpus(), List.of(Pool.INFERENCE), NodeConstraints.NONE);
        }

        Result result() {
            List<Double> waits = new ArrayList<>();
            int whole = 0;
            int inDomain = 0;
            int asking = 0;
            int askingStarted = 0;
            for (int g = 0; g < groupCount; g++) {
                int first = -1;
                for (int i = 0; i < jobs.size(); i++) if (jobs.get(i).group() == g) { first = i; break; }
                boolean asks = jobs.get(first).rack();
                if (asks) asking++;
                if (groupStart[g] < 0) continue;
                whole++;
                if (asks) askingStarted++;
                if (asks && groupInDomain[g]) inDomain++;
                waits.add(groupStart[g] - groupWhole[g]);
            }
            int singles = (int) jobs.stream().filter(j -> j.group() < 0).count();
            return new Result(s, groupCount, whole, inDomain, asking, askingStarted, heldIncomplete, pct(waits, 0.5), pct(waits, 0.95), pct(singleWaits, 0.5),
                    singles, singleWaits.size());
        }
    }

    static double pct(List<Double> v, double q) {
        if (v.isEmpty()) return Double.NaN;
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(Math.min(s.size() - 1, (int) Math.floor(q * (s.size() - 1) + 0.5)));
    }

    /** One line of the report. */
    public static String row(Result r) {
        return String.format(java.util.Locale.ROOT, "%-8s groups %3d  whole %5.1f%%  in-one-rack (of started that asked) %3d/%-3d  held-by-incomplete %8.1f GPU-h"
                        + "  group wait p50 %6.1f p95 %6.1f min  single wait p50 %5.1f min  singles placed %d/%d",
                r.semantics().name().toLowerCase(java.util.Locale.ROOT), r.groups(), 100 * r.shareWhole(), r.groupsWholeInDomain(),
                r.groupsAskingStarted(), r.heldByIncompleteGpuHours(), r.groupWaitP50(), r.groupWaitP95(), r.singleWaitP50(),
                r.singlesPlaced(), r.singles());
    }
}
