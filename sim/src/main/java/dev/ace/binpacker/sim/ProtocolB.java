package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.NodeInfo;
import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Protocol B (BENCHMARK.md): a TP inference fleet with departures. Pods arrive in trace order and
 * leave after their duration; a TP pod that does not fit waits in a queue retried on every
 * departure, oldest first; any other pod that does not fit fails. Figures are sampled after each
 * arrival.
 */
public final class ProtocolB {
    private static final List<Pool> TP_POOLS = List.of(Pool.INFERENCE, Pool.GENERAL);
    private static final List<Pool> SMALL_POOLS = List.of(Pool.SLICING, Pool.GENERAL, Pool.INFERENCE);
    /** The baselines' order for multi-GPU batch pods (they see one flat cluster); ACE applies the webhook's batch-pool rule. */
    private static final List<Pool> BATCH_POOLS = List.of(Pool.GENERAL, Pool.INFERENCE, Pool.SLICING);

    private final SimCluster cluster;

    public ProtocolB(SimCluster cluster) { this.cluster = cluster; }

    private record Departure(double time, String id) {}

    /** Running TP replicas, how many of them sit on an NVLink clique, and when each waiting one arrived. */
    private static final class Tp {
        final java.util.Map<String, Boolean> running = new java.util.HashMap<>();
        int onClique;
        final List<Double> waits = new ArrayList<>();
        double fullHours, demandHours, waitingGpuHours;

        void started(FleetPod pod, boolean full, double at) {
            running.put(pod.id(), full);
            if (full) onClique++;
            double wait = at - pod.arrival();
            if (wait > 0) {
                waits.add(wait);
                waitingGpuHours += wait / 3600 * pod.gpus();
            }
            if (full) fullHours += pod.duration() / 3600;
        }

        void left(String id) {
            Boolean full = running.remove(id);
            if (Boolean.TRUE.equals(full)) onClique--;
        }
    }

    public FleetResult run(String policy, List<FleetPod> pods, long seed) {
        List<SimPod> shapes = new ArrayList<>();
        for (FleetPod p : pods) shapes.add(p.asSimPod());
        SimContext ctx = SimContext.fresh(cluster, TargetWorkload.of(shapes, 95), seed);
        Policy p = Policies.create(policy, ctx);
        PriorityQueue<Departure> departures = new PriorityQueue<>((a, b) -> Double.compare(a.time(), b.time()));
        ArrayDeque<FleetPod> waiting = new ArrayDeque<>();
        Tp tp = new Tp();
        long[] nanos = new long[pods.size() * 2];
        int decisions = 0, tpPods = 0, tpPlaced = 0, tpFull = 0, everWaited = 0, otherFailed = 0, smallOnInference = 0;
        double allocSum = 0, strandedSum = 0, clean = 0, frag = 0, full = 0;
        int samples = 0;
        int hours = (int) (pods.get(pods.size() - 1).arrival() / 3600) + 1;
        double[][] byHour = new double[3][hours];
        int[] inHour = new int[hours];
        java.util.Map<String, String> kinds = new java.util.HashMap<>();
        for (FleetPod q : pods) kinds.put(q.id(), q.kind());
        WaitCauses causes = new WaitCauses();
        for (FleetPod pod : pods) {
            while (!departures.isEmpty() && departures.peek().time() <= pod.arrival()) {
                Departure d = departures.poll();
                p.clock(d.time());
                p.release(d.id());
                tp.left(d.id());
                // a departure frees GPUs now: the queue is retried at that moment, oldest first
                for (Iterator<FleetPod> it = waiting.iterator(); it.hasNext(); ) {
                    FleetPod w = it.next();
                    if (decisions == nanos.length) nanos = java.util.Arrays.copyOf(nanos, nanos.length * 2);
                    long t0 = System.nanoTime();
                    boolean ok = p.place(w.asSimPod(), w.id(), w.tp(), TP_POOLS);
                    nanos[decisions++] = System.nanoTime() - t0;
                    if (!ok) continue;
                    it.remove();
                    departures.add(new Departure(d.time() + w.duration(), w.id()));
                    boolean clique = fullBandwidth(ctx.state(), p, w.id());
                    tpPlaced++;
                    if (clique) tpFull++;
                    tp.started(w, clique, d.time());
                }
            }
            p.clock(pod.arrival());
            if (decisions == nanos.length) nanos = java.util.Arrays.copyOf(nanos, nanos.length * 2);
            long t0 = System.nanoTime();
            boolean ok = pod.kind().equals("batch") ? p.placeBatch(pod.asSimPod(), pod.id(), BATCH_POOLS, waiting.size())
                    : p.place(pod.asSimPod(), pod.id(), pod.tp(), pools(pod));
            nanos[decisions++] = System.nanoTime() - t0;
            if (pod.isTp()) {
                tpPods++;
                tp.demandHours += pod.duration() / 3600;
            }
            if (ok) {
                departures.add(new Departure(pod.arrival() + pod.duration(), pod.id()));
                if (pod.isTp()) {
                    boolean clique = fullBandwidth(ctx.state(), p, pod.id());
                    tpPlaced++;
                    if (clique) tpFull++;
                    tp.started(pod, clique, pod.arrival());
                } else if (onInference(ctx.state(), p, pod.id())) {
                    smallOnInference++;
                }
            } else if (pod.isTp()) {
                causes.record(ctx.state(), cluster, p, pod, departures.stream().map(Departure::id).toList(), kinds);
                waiting.add(pod);
                everWaited++;
            } else {
                otherFailed++;
            }
            double[] d = sample(ctx.state());
            allocSum += d[0];
            int h = (int) (pod.arrival() / 3600);
            byHour[0][h] += d[0];
            byHour[1][h] += tp.running.isEmpty() ? 100 : 100.0 * tp.onClique / tp.running.size();
            byHour[2][h] += waiting.size();
            inHour[h]++;
            strandedSum += d[1];
            clean += d[2];
            frag += d[3];
            full += d[4];
            samples++;
        }
        double end = pods.get(pods.size() - 1).arrival();
        for (FleetPod w : waiting) {
            tp.waits.add(end - w.arrival()); // still waiting: a lower bound of its wait
            tp.waitingGpuHours += (end - w.arrival()) / 3600 * w.gpus();
        }
        double[] waits = tp.waits.stream().mapToDouble(x -> x / 60).sorted().toArray();
        FleetResult.Waits w = new FleetResult.Waits(tpPods == 0 ? 0 : 100.0 * everWaited / tpPods, waits,
                tp.waitingGpuHours, tp.demandHours == 0 ? 100 : 100.0 * tp.fullHours / tp.demandHours);
        return new FleetResult(policy, tpPods, tpPlaced == 0 ? 100 : 100.0 * tpFull / tpPlaced, tpPlaced - tpFull, waiting.size(), everWaited,
                otherFailed, allocSum / samples, strandedSum / samples, clean / samples, frag / samples, full / samples,
                smallOnInference, java.util.Arrays.copyOf(nanos, decisions), hourly(byHour[0], inHour), w,
                hourly(byHour[1], inHour), hourly(byHour[2], inHour), causes);
    }

    static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) return 0;
        return sorted[(int) Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))];
    }

    private static double[] hourly(double[] sum, int[] count) {
        double[] out = new double[sum.length];
        for (int h = 0; h < sum.length; h++) out[h] = count[h] > 0 ? sum[h] / count[h] : h > 0 ? out[h - 1] : 0;
        return out;
    }

    private static List<Pool> pools(FleetPod pod) {
        if (pod.isTp()) return TP_POOLS;
        return SMALL_POOLS;
    }

    private static boolean fullBandwidth(ClusterState s, Policy p, String id) {
        return p.reservation(id).map(r -> s.node(s.indexOf(r.node())).board().isClique(r.gpuMask())).orElse(false);
    }

    private static boolean onInference(ClusterState s, Policy p, String id) {
        return p.reservation(id).map(r -> s.node(s.indexOf(r.node())).pool() == Pool.INFERENCE).orElse(false);
    }

    /** allocation %, stranded GPUs, % NVLink domains clean / fragmented / full. */
    private double[] sample(ClusterState s) {
        long used = 0, cap = 0;
        int stranded = 0, domains = 0, clean = 0, full = 0;
        for (int i = 0; i < cluster.size(); i++) {
            NodeInfo n = s.node(i);
            for (int g = 0; g < n.gpuCount(); g++) used += 1000 - s.milliFree(i, g);
            cap += 1000L * n.gpuCount();
            GpuBoard b = n.board();
            if (b.largestClique() < 2) continue;
            long free = s.freeMask(i);
            for (long rest = free; rest != 0; rest &= rest - 1) {
                int g = Long.numberOfTrailingZeros(rest);
                if ((b.nvlinkPeers(g) & free) == 0) stranded++;
            }
            for (long d : b.nvlinkDomains()) {
                domains++;
                if ((free & d) == d) clean++;
                else if ((free & d) == 0) full++;
            }
        }
        return new double[]{100.0 * used / cap, stranded, 100.0 * clean / domains, 100.0 * (domains - clean - full) / domains,
            100.0 * full / domains};
    }
}
