package dev.ace.binpacker.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code simulate --trace slicing[:openb-VARIANT]}: protocol C over seeds, as a table. */
public final class ProtocolCReport {
    private ProtocolCReport() {}

    /** The openb pod list a slicing trace draws its shares from ({@code slicing} alone: openb-default). */
    public static Path source(String trace, Path data) {
        String variant = trace.equals("slicing") ? "default" : trace.substring("slicing:openb-".length());
        if (!trace.equals("slicing") && !trace.startsWith("slicing:openb-")) {
            throw new IllegalArgumentException("a slicing trace is 'slicing' or 'slicing:openb-<variant>', got " + trace);
        }
        return data.resolve("openb/openb_pod_list_" + variant + ".csv");
    }

    public static List<ProtocolC.Result> run(Path source, List<Long> seeds, int pods, double perHour, int gpusPerNode,
                                             double waitP95, long plannerWindow, List<String> policies, PrintStream err) throws IOException {
        if (!Files.exists(source)) throw new IOException("no pod list " + source);
        for (String p : policies) {
            if (!ProtocolC.POLICIES.contains(p)) throw new IllegalArgumentException("unknown protocol C policy " + p + "; known: " + ProtocolC.POLICIES);
        }
        List<SlicingTrace.Share> shares = SlicingTrace.shares(source);
        ProtocolC c = new ProtocolC(gpusPerNode, waitP95, plannerWindow);
        List<ProtocolC.Result> out = new ArrayList<>();
        for (long seed : seeds) {
            List<SlicingTrace.Pod> trace = SlicingTrace.generate(shares, seed, pods, perHour);
            out.addAll(c.run(trace, seed, policies));
            err.printf(Locale.ROOT, "simulate slicing: seed %d done%n", seed);
        }
        return out;
    }

    /** GPUs needed per policy over seeds (mean, min-max), the gain over whole GPUs (mean of per-seed ratios). */
    public static void table(PrintStream out, String trace, List<Long> seeds, int pods, double perHour, double waitP95,
                             int gpusPerNode, long plannerWindow, List<ProtocolC.Result> rs) {
        out.printf(Locale.ROOT, "protocol C, %s, %d pods at %.0f/h, seeds %s, H100 80GB nodes of %d GPUs, wait p95 <= %.1f min (after %.0f h warm-up), planner window %d s%n",
                trace, pods, perHour, seeds, gpusPerNode, waitP95, ProtocolC.WARM_UP_SECONDS / 3600, plannerWindow);
        out.println("| policy | GPUs needed (mean) | min-max | gain vs whole GPUs | wait p95 there (min) | layout changes |");
        out.println("|---|---|---|---|---|---|");
        List<String> names = rs.stream().map(ProtocolC.Result::policy).distinct().toList();
        for (String n : names) {
            List<ProtocolC.Result> mine = rs.stream().filter(r -> r.policy().equals(n)).toList();
            long missed = mine.stream().filter(r -> r.gpus() < 0).count();
            if (missed > 0) {
                out.printf(Locale.ROOT, "| %s | not met on %d of %d seeds with %d GPUs | | | %.1f | %.1f |%n", n, missed, mine.size(),
                        ProtocolC.MAX_NODES * gpusPerNode, mine.stream().mapToDouble(ProtocolC.Result::p95Minutes).max().orElse(0),
                        mine.stream().mapToInt(ProtocolC.Result::layoutChanges).average().orElse(0));
                continue;
            }
            double mean = mine.stream().mapToInt(ProtocolC.Result::gpus).average().orElse(0);
            int min = mine.stream().mapToInt(ProtocolC.Result::gpus).min().orElse(0);
            int max = mine.stream().mapToInt(ProtocolC.Result::gpus).max().orElse(0);
            double gain = 0;
            int k = 0;
            for (ProtocolC.Result r : mine) {
                var whole = rs.stream().filter(x -> x.policy().equals("whole") && x.seed() == r.seed()).findFirst();
                if (whole.isPresent() && whole.get().gpus() > 0) {
                    gain += (double) whole.get().gpus() / r.gpus();
                    k++;
                }
            }
            out.printf(Locale.ROOT, "| %s | %.1f | %d-%d | %s | %.1f | %.1f |%n", n, mean, min, max,
                    k == 0 ? "n/a" : String.format(Locale.ROOT, "%.2fx", gain / k),
                    mine.stream().mapToDouble(ProtocolC.Result::p95Minutes).average().orElse(0),
                    mine.stream().mapToInt(ProtocolC.Result::layoutChanges).average().orElse(0));
        }
    }
}
