package dev.ace.binpacker.cli;

import dev.ace.binpacker.sim.FleetHtml;
import dev.ace.binpacker.sim.FleetPod;
import dev.ace.binpacker.sim.FleetReport;
import dev.ace.binpacker.sim.FleetResult;
import dev.ace.binpacker.sim.FleetTrace;
import dev.ace.binpacker.sim.JsonReport;
import dev.ace.binpacker.sim.OpenbBoards;
import dev.ace.binpacker.sim.OpenbLoader;
import dev.ace.binpacker.sim.OpenbNode;
import dev.ace.binpacker.sim.OptimalStudy;
import dev.ace.binpacker.sim.Policy;
import dev.ace.binpacker.sim.PolicySummary;
import dev.ace.binpacker.sim.ProtocolA;
import dev.ace.binpacker.sim.Published;
import dev.ace.binpacker.sim.RunResult;
import dev.ace.binpacker.sim.SimCluster;
import dev.ace.binpacker.sim.SimPod;
import dev.ace.binpacker.sim.SvgReport;
import dev.ace.binpacker.sim.WaitBound;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code simulate --trace NAME|PATH --policies p1,p2 [--seeds 42-51] [--arrival 130] [--json]
 * [--report DIR] [--data DIR]}: replays an openb pod list (protocol A) through each policy.
 */
public final class SimulateCommand implements Command {
    /** {@code help simulate}; the simulator is its own jar (sim/target/ace-sim.jar, {@code bin/ace simulate}). */
    public static final CommandHelp HELP = new CommandHelp("simulate", "replay cluster traces through ACE and the baselines",
            "usage: simulate --trace openb-<variant>|POD_LIST.csv|fleet|fleet:FILE.csv|slicing [options]", """
                    Replays the Alibaba openb pod lists (FGD's protocol) or a generated TP inference fleet
                    through ACE's allocator and the baselines (FGD, Kubernetes, HiveD, ...). See
                    docs/benchmarks.md for every table's command.

                    options:
                      --policies a,b,c    policies to compare (default: all)
                      --seeds 42-51       seeds (ranges and lists)
                      --arrival 130       openb: arrival as percent of cluster GPU capacity
                      --json              JSON instead of a table
                      --report DIR        write JSON, HTML and SVG charts to DIR
                      --data DIR          where the traces are (default tests/traces)
                      --ignore-memory     openb: no policy checks pods' memory (by default every one does, as kube-scheduler's NodeResourcesFit)
                      --pods N --rate R --mix share=25,single=30,tp2=17,tp4=17,tp8=7,batch=4   fleet traces
                      --generate-fleet FILE.csv --seed N   write a fleet trace and stop
                      --trace slicing[:openb-VARIANT] [--pods 2000 --rate 60 --wait-p95 5 --gpus-per-node 4 --planner-window 1800]
                                          protocol C: GPUs a MIG/MPS slicing pool needs (docs/benchmarks.md)
                      --hgx N             fleet: N HGX boards instead of 64 (protocol B)
                      --wait-bound 5,10   fleet: MIP floor under the TP replicas any clique-only policy makes wait,
                                          with no tail limit and with each p95 limit (minutes) [--time-limit 60]
                      --optimal NODES [--time-limit 60]    CP-SAT bound on a sub-cluster

                    exit: 0 done, 1 unreadable trace, 2 usage error""");

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        String trace = null;
        String policies = String.join(",", Policy.NAMES);
        List<Long> seeds = seeds("42-51");
        double arrival = 130;
        boolean json = false;
        boolean memory = true;
        Path report = null;
        Path data = Path.of("tests/traces");
        Path generate = null;
        String mix = null;
        int fleetPods = 3000;
        double rate = 50;
        int optimalNodes = 0;
        double timeLimit = 60;
        String waitBound = null;
        Integer hgx = null; // HGX boards of protocol B's fleet; null = the protocol's
        boolean policiesGiven = false;
        double waitP95 = 5;
        int gpusPerNode = 4;
        long plannerWindow = 1800;
        Integer podsGiven = null;
        Double rateGiven = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trace" -> trace = args[++i];
                case "--policies" -> {
                    policies = args[++i];
                    policiesGiven = true;
                }
                case "--wait-p95" -> waitP95 = Double.parseDouble(args[++i]);
                case "--gpus-per-node" -> gpusPerNode = Integer.parseInt(args[++i]);
                case "--planner-window" -> plannerWindow = Long.parseLong(args[++i]);
                case "--seeds" -> seeds = seeds(args[++i]);
                case "--arrival" -> arrival = Double.parseDouble(args[++i]);
                case "--json" -> json = true;
                case "--ignore-memory" -> memory = false;
                case "--report" -> report = Path.of(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--generate-fleet" -> generate = Path.of(args[++i]);
                case "--seed" -> seeds = seeds(args[++i]);
                case "--mix" -> mix = args[++i];
                case "--pods" -> podsGiven = fleetPods = Integer.parseInt(args[++i]);
                case "--rate" -> rateGiven = rate = Double.parseDouble(args[++i]);
                case "--optimal" -> optimalNodes = Integer.parseInt(args[++i]);
                case "--time-limit" -> timeLimit = Double.parseDouble(args[++i]);
                case "--wait-bound" -> waitBound = args[++i];
                case "--hgx" -> hgx = Integer.parseInt(args[++i]);
                default -> {
                    err.println("unknown option " + args[i]);
                    usage(err);
                    return 2;
                }
            }
        }
        var fleetMix = mix == null ? FleetTrace.DEFAULT_MIX : FleetTrace.mix(mix);
        if (generate != null) {
            FleetTrace.write(generate, FleetTrace.generate(seeds.get(0), fleetPods, rate, fleetMix));
            err.println("wrote " + generate);
            return 0;
        }
        if (trace == null) {
            usage(err);
            return 2;
        }
        if (trace.equals("slicing") || trace.startsWith("slicing:")) {
            List<String> names = policiesGiven ? List.of(policies.split(",")) : dev.ace.binpacker.sim.ProtocolC.POLICIES;
            int n = podsGiven == null ? 2000 : podsGiven;
            double r = rateGiven == null ? 60 : rateGiven;
            var rs = dev.ace.binpacker.sim.ProtocolCReport.run(dev.ace.binpacker.sim.ProtocolCReport.source(trace, data), seeds, n, r,
                    gpusPerNode, waitP95, plannerWindow, names, err);
            dev.ace.binpacker.sim.ProtocolCReport.table(out, trace, seeds, n, r, waitP95, gpusPerNode, plannerWindow, rs);
            return 0;
        }
        if (trace.equals("fleet") || trace.startsWith("fleet:")) {
            List<List<FleetPod>> traces = new ArrayList<>();
            if (trace.equals("fleet")) {
                for (long s : seeds) traces.add(FleetTrace.generate(s, fleetPods, rate, fleetMix));
            } else {
                traces.add(FleetTrace.read(Path.of(trace.substring(6))));
                seeds = List.of(seeds.get(0));
            }
            List<OpenbNode> fleet = hgx == null ? FleetTrace.cluster() : FleetTrace.cluster(hgx);
            if (waitBound != null) {
                waitFloor(out, err, traces, seeds, rate, fleet, waitBound, timeLimit);
                return 0;
            }
            List<String> names = new ArrayList<>();
            for (String p : policies.split(",")) names.add(p.trim());
            List<FleetResult> rs = FleetReport.run(names, traces, seeds, fleet, err);
            String doc = FleetReport.json(trace, seeds, rs);
            if (json) out.print(doc);
            else FleetReport.table(out, trace, rs);
            if (report != null) {
                Files.createDirectories(report);
                Files.writeString(report.resolve("fleet.json"), doc);
                Files.writeString(report.resolve("fleet-allocation.svg"), FleetReport.allocationSvg(rs));
                Files.writeString(report.resolve("fleet-tp-on-clique.svg"), FleetReport.tpOnCliqueSvg(rs));
                Files.writeString(report.resolve("fleet-waiting.svg"), FleetReport.waitingSvg(rs));
                Files.writeString(report.resolve("fleet.html"), FleetHtml.html(trace, seeds, rate, rs));
            }
            return 0;
        }
        if (waitBound != null || hgx != null) {
            err.println((waitBound != null ? "--wait-bound" : "--hgx") + " is for protocol B: use it with --trace fleet or --trace fleet:FILE.csv");
            return 2;
        }
        Path podFile = trace.startsWith("openb-") ? data.resolve("openb/openb_pod_list_" + trace.substring(6) + ".csv") : Path.of(trace);
        Path nodeFile = data.resolve("openb/openb_node_list_gpu_node.csv");
        if (!Files.exists(podFile)) throw new IllegalArgumentException("no pod list " + podFile);
        SimCluster cluster = new SimCluster(OpenbLoader.nodes(nodeFile), new OpenbBoards(), memory);
        List<SimPod> pods = OpenbLoader.pods(podFile, cluster.modelIndex());
        if (optimalNodes > 0) {
            List<String> names = new ArrayList<>();
            for (String p : policies.split(",")) names.add(p.trim());
            OptimalStudy.run(OpenbLoader.nodes(nodeFile), pods, optimalNodes, seeds, names, timeLimit, out, err);
            return 0;
        }
        ProtocolA a = new ProtocolA(cluster, pods);
        List<PolicySummary> results = new ArrayList<>();
        long start = System.nanoTime();
        int total = policies.split(",").length * seeds.size(), done = 0;
        for (String policy : policies.split(",")) {
            List<RunResult> runs = new ArrayList<>();
            for (long seed : seeds) {
                runs.add(a.run(policy.trim(), seed, arrival));
                done++;
                err.printf(Locale.ROOT, "\rsimulate %s: %d/%d runs (%s seed %d), %.0f s", trace, done, total, policy, seed,
                        (System.nanoTime() - start) / 1e9);
            }
            results.add(PolicySummary.of(policy.trim(), runs));
        }
        err.println();
        String doc = JsonReport.protocolA(trace, seeds, results);
        if (json) out.print(doc);
        else printTable(out, trace, seeds, results);
        if (report != null) {
            Files.createDirectories(report);
            Files.writeString(report.resolve(name(trace) + ".json"), doc);
            Files.writeString(report.resolve(name(trace) + ".html"), SvgReport.html(trace, seeds, results));
            Files.writeString(report.resolve(name(trace) + "-allocation.svg"), SvgReport.allocationSvg(results));
            Files.writeString(report.resolve(name(trace) + "-allocation-tail.svg"), SvgReport.allocationTailSvg(results));
            Files.writeString(report.resolve(name(trace) + "-fragmentation.svg"), SvgReport.fragmentationSvg(results));
        }
        return 0;
    }

    /** {@code --wait-bound 5,10}: the fewest TP replicas any clique-only policy makes wait, with no tail limit and with each p95 limit. */
    private static void waitFloor(PrintStream out, PrintStream err, List<List<FleetPod>> traces, List<Long> seeds, double rate,
                                  List<OpenbNode> fleet, String tails, double timeLimit) {
        WaitBound bound = new WaitBound(new SimCluster(fleet, new OpenbBoards()));
        out.printf(Locale.ROOT, "wait floor (sim.WaitBound): seeds %s, %.0f pods/h; clique pools (clique GPUs = pooled GPUs) %s;"
                + " MIP (SCIP through OR-Tools), %.0f s per question%n", seeds, rate, bound.pools(), timeLimit);
        List<String> limits = new ArrayList<>(List.of("none"));
        for (String t : tails.split(",")) if (!t.isBlank() && !t.trim().equals("none")) limits.add(t.trim());
        for (String limit : limits) {
            err.printf("wait floor: p95 limit %s...%n", limit);
            WaitBound.Result r = limit.equals("none") ? bound.minWaits(traces, timeLimit)
                    : bound.minWaitsWithTail(traces, Double.parseDouble(limit), timeLimit);
            String what = limit.equals("none") ? "no tail limit" : "p95 <= " + limit + " min";
            if (r.infeasible()) {
                out.printf(Locale.ROOT, "%-16s no schedule of the %d TP replicas meets it (INFEASIBLE, %.1f s)%n", what, r.replicas(), r.seconds());
            } else if (r.floor() < 0) {
                out.printf(Locale.ROOT, "%-16s no answer within the time limit (%s, %.1f s): raise --time-limit%n", what, r.status(), r.seconds());
            } else {
                out.printf(Locale.ROOT, "%-16s at least %d of %d TP replicas wait (%.2f %%); best schedule found %d; %s, %.1f s%n", what,
                        r.floor(), r.replicas(), r.floorPct(), r.best(), r.status(), r.seconds());
            }
        }
        out.println("A relaxation (no boards, no other pods, the whole trace known): no policy that keeps every TP replica on an");
        out.println("NVLink clique waits fewer replicas on these traces, and none with a p95 within a limit waits fewer than its line.");
    }

    private static String name(String trace) {
        return Path.of(trace).getFileName().toString().replace(".csv", "");
    }

    private static void printTable(PrintStream out, String trace, List<Long> seeds, List<PolicySummary> results) {
        out.printf("trace %s, seeds %s%n", trace, seeds);
        out.printf("%-14s %7s %7s %7s %7s %7s %5s %7s | %6s %6s %6s %6s | %8s %8s %8s%n", "policy", "a80", "a90", "a95", "a100", "a130",
                "sd", "pub130", "f50", "f70", "f80", "f90", "p50us", "p99us", "maxus");
        for (PolicySummary r : results) {
            Double pub = Published.allocation130(trace, r.policy());
            out.printf(Locale.ROOT, "%-14s %7.2f %7.2f %7.2f %7.2f %7.2f %5.2f %7s | %6.2f %6.2f %6.2f %6.2f | %8.1f %8.1f %8.1f%n", r.policy(),
                    r.allocationAt(80), r.allocationAt(90), r.allocationAt(95), r.allocationAt(100), r.allocationAt(130), r.seedSpread130(),
                    pub == null ? "" : String.format(Locale.ROOT, "%.2f", pub),
                    r.fragRateAt(50), r.fragRateAt(70), r.fragRateAt(80), r.fragRateAt(90), r.p50Micros(), r.p99Micros(), r.maxMicros());
        }
    }

    static List<Long> seeds(String spec) {
        List<Long> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            if (part.contains("-")) {
                String[] r = part.split("-");
                for (long s = Long.parseLong(r[0]); s <= Long.parseLong(r[1]); s++) out.add(s);
            } else {
                out.add(Long.parseLong(part.trim()));
            }
        }
        return out;
    }

    private static void usage(PrintStream err) {
        err.println("usage: simulate --trace openb-<variant>|POD_LIST.csv [--policies " + String.join(",", Policy.NAMES) + "]");
        err.println("                [--seeds 42-51] [--arrival 130] [--json] [--report DIR] [--data tests/traces]");
        err.println("       simulate --trace fleet [--seeds 1-3] [--pods 3000] [--rate 50] [--mix share=25,single=30,tp2=17,tp4=17,tp8=7,batch=4] [--hgx 64]");
        err.println("       simulate --trace openb-default --optimal 24 --policies ace,fgd,best-fit [--seeds 42-44] [--time-limit 60]");
        err.println("       simulate --trace fleet --seeds 1-3 --rate 60 --wait-bound 5,10,20 [--time-limit 60]   (floor under TP waits)");
        err.println("       simulate --trace fleet:FILE.csv ...   |   simulate --generate-fleet FILE.csv --seed N [--pods] [--rate] [--mix]");
    }
}
