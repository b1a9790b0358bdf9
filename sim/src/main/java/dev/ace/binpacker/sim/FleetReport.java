package dev.ace.binpacker.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Protocol B over several traces: mean figures per policy, as a table or the BENCHMARK JSON. */
public final class FleetReport {
    private FleetReport() {}

    /** Runs every policy on every trace (one per seed) on {@code fleet} ({@link FleetTrace#cluster}), reporting progress on {@code err}. */
    public static List<FleetResult> run(List<String> policies, List<List<FleetPod>> traces, List<Long> seeds, List<OpenbNode> fleet,
                                        PrintStream err) {
        ProtocolB b = new ProtocolB(new SimCluster(fleet, new OpenbBoards()));
        List<FleetResult> out = new ArrayList<>();
        int done = 0;
        for (String policy : policies) {
            List<FleetResult> runs = new ArrayList<>();
            for (int t = 0; t < traces.size(); t++) {
                runs.add(b.run(policy, traces.get(t), seeds.get(t)));
                err.printf(Locale.ROOT, "\rsimulate fleet: %d/%d runs (%s)", ++done, policies.size() * traces.size(), policy);
            }
            out.add(mean(policy, runs));
        }
        err.println();
        return out;
    }

    static FleetResult mean(String policy, List<FleetResult> runs) {
        double n = runs.size();
        long[] nanos = runs.stream().flatMapToLong(r -> Arrays.stream(r.decisionNanos())).sorted().toArray();
        double[] waits = runs.stream().flatMapToDouble(r -> Arrays.stream(r.waits().minutes())).sorted().toArray();
        FleetResult.Waits w = new FleetResult.Waits(runs.stream().mapToDouble(r -> r.waits().waitedPct()).sum() / n, waits,
                runs.stream().mapToDouble(r -> r.waits().waitingGpuHours()).sum(),
                runs.stream().mapToDouble(r -> r.waits().fullBandwidthHoursPct()).sum() / n);
        return new FleetResult(policy, runs.stream().mapToInt(FleetResult::tpPods).sum(),
                runs.stream().mapToDouble(FleetResult::tpFullBandwidthPct).sum() / n, runs.stream().mapToInt(FleetResult::tpDegraded).sum(),
                runs.stream().mapToInt(FleetResult::tpWaiting).sum(), runs.stream().mapToInt(FleetResult::tpEverWaited).sum(),
                runs.stream().mapToInt(FleetResult::otherFailed).sum(), runs.stream().mapToDouble(FleetResult::meanAllocation).sum() / n,
                runs.stream().mapToDouble(FleetResult::strandedGpus).sum() / n, runs.stream().mapToDouble(FleetResult::domainsClean).sum() / n,
                runs.stream().mapToDouble(FleetResult::domainsFragmented).sum() / n, runs.stream().mapToDouble(FleetResult::domainsFull).sum() / n,
                runs.stream().mapToInt(FleetResult::smallOnInference).sum(), nanos, meanCurve(runs, FleetResult::allocationByHour), w,
                meanCurve(runs, FleetResult::tpOnCliqueByHour), meanCurve(runs, FleetResult::tpWaitingByHour),
                WaitCauses.sum(runs.stream().map(FleetResult::causes).toList()));
    }

    private static double[] meanCurve(List<FleetResult> runs, java.util.function.Function<FleetResult, double[]> curve) {
        int n = runs.stream().mapToInt(r -> curve.apply(r).length).min().orElse(0);
        double[] out = new double[n];
        for (FleetResult r : runs) for (int h = 0; h < n; h++) out[h] += curve.apply(r)[h] / runs.size();
        return out;
    }

    /** GPU allocation over time (hours), one line per policy. */
    public static String allocationSvg(List<FleetResult> rs) {
        return overTime(rs, FleetResult::allocationByHour, "GPUs in use over time", "GPU allocation (% of the fleet's GPUs)");
    }

    /** Share of the running TP replicas that sit on an NVLink clique, over time. */
    public static String tpOnCliqueSvg(List<FleetResult> rs) {
        return overTime(rs, FleetResult::tpOnCliqueByHour, "TP replicas on an NVLink clique over time", "running TP replicas on a clique (%)");
    }

    /** TP replicas waiting for a clique, over time. */
    public static String waitingSvg(List<FleetResult> rs) {
        return overTime(rs, FleetResult::tpWaitingByHour, "TP replicas waiting over time", "TP replicas waiting (mean over traces)");
    }

    private static String overTime(List<FleetResult> rs, java.util.function.Function<FleetResult, double[]> curve, String title, String y) {
        List<String> names = new ArrayList<>();
        List<double[]> curves = new ArrayList<>();
        int hours = 0;
        for (FleetResult r : rs) {
            names.add(r.policy());
            curves.add(curve.apply(r));
            hours = Math.max(hours, curve.apply(r).length - 1);
        }
        return SvgReport.lines(new SvgReport.Axes(title, "hours since the first arrival", y, 0, hours), names, curves);
    }

    static double micros(long[] sorted, double q) {
        if (sorted.length == 0) return 0;
        return sorted[(int) Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))] / 1000.0;
    }

    public static void table(PrintStream out, String trace, List<FleetResult> rs) {
        out.printf("trace %s (sums over traces; percentages are means)%n", trace);
        out.printf("%-14s %7s %8s %7s %8s %8s %7s %7s %7s %7s %7s %7s %8s %6s %6s %6s %7s %8s %8s%n", "policy", "tpPods", "tpFull%", "tpDegr",
                "tpWait", "tpQueued", "waited%", "p50min", "p95min", "fullh%", "failed", "alloc%", "strandGPU", "clean%", "frag%", "full%",
                "small@inf", "p50us", "p99us");
        for (FleetResult r : rs) {
            FleetResult.Waits w = r.waits();
            out.printf(Locale.ROOT, "%-14s %7d %8.2f %7d %8d %8d %7.2f %7.1f %7.1f %7.2f %7d %7.2f %8.2f %6.1f %6.1f %6.1f %7d %8.1f %8.1f%n",
                    r.policy(), r.tpPods(), r.tpFullBandwidthPct(), r.tpDegraded(), r.tpWaiting(), r.tpEverWaited(), w.waitedPct(),
                    w.p50Minutes(), w.p95Minutes(), w.fullBandwidthHoursPct(), r.otherFailed(), r.meanAllocation(), r.strandedGpus(),
                    r.domainsClean(), r.domainsFragmented(), r.domainsFull(), r.smallOnInference(),
                    micros(r.decisionNanos(), 0.5), micros(r.decisionNanos(), 0.99));
        }
        out.println("why TP replicas waited on arrival (capacity: fewer free GPUs than the replica on boards with a clique of its size;");
        out.println("fragmented: enough free GPUs there, no free clique; TPk capacity/fragmented; GPUs on the partly used clique boards by kind)");
        for (FleetResult r : rs) if (r.tpEverWaited() > 0) r.causes().print(out, r.policy());
    }

    public static String json(String trace, List<Long> seeds, List<FleetResult> rs) {
        StringBuilder b = new StringBuilder("{\"trace\":").append(JsonReport.str(trace)).append(",\"seeds\":")
                .append(seeds.toString().replace(" ", "")).append(",\"results\":[");
        for (int i = 0; i < rs.size(); i++) {
            FleetResult r = rs.get(i);
            long[] n = r.decisionNanos();
            b.append(i == 0 ? "\n  " : ",\n  ").append("{\"policy\":").append(JsonReport.str(r.policy()))
                    .append(",\"tpPlaced\":").append(JsonReport.num(r.tpFullBandwidthPct()))
                    .append(",\"tpFailed\":").append(r.tpWaiting())
                    .append(",\"tpNotFullBandwidth\":").append(r.tpDegraded())
                    .append(",\"tpQueuedOnArrival\":").append(r.tpEverWaited())
                    .append(",\"tpWaitedPct\":").append(JsonReport.num(r.waits().waitedPct()))
                    .append(",\"tpWaitMinutes\":{\"p50\":").append(JsonReport.num(r.waits().p50Minutes()))
                    .append(",\"p95\":").append(JsonReport.num(r.waits().p95Minutes())).append('}')
                    .append(",\"tpWaitingGpuHours\":").append(JsonReport.num(r.waits().waitingGpuHours()))
                    .append(",\"tpFullBandwidthHoursPct\":").append(JsonReport.num(r.waits().fullBandwidthHoursPct()))
                    .append(",\"otherFailed\":").append(r.otherFailed())
                    .append(",\"meanAllocation\":").append(JsonReport.num(r.meanAllocation()))
                    .append(",\"strandedGpus\":").append(JsonReport.num(r.strandedGpus()))
                    .append(",\"nvlinkDomains\":{\"clean\":").append(JsonReport.num(r.domainsClean()))
                    .append(",\"fragmented\":").append(JsonReport.num(r.domainsFragmented()))
                    .append(",\"full\":").append(JsonReport.num(r.domainsFull())).append('}')
                    .append(",\"smallOnInference\":").append(r.smallOnInference())
                    .append(",\"decisionMicros\":{\"p50\":").append(JsonReport.num(micros(n, 0.5))).append(",\"p99\":")
                    .append(JsonReport.num(micros(n, 0.99))).append(",\"max\":").append(JsonReport.num(n.length == 0 ? 0 : n[n.length - 1] / 1000.0))
                    .append("}}");
        }
        return b.append("\n]}\n").toString();
    }
}
