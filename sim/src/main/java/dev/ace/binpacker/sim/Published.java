package dev.ace.binpacker.sim;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The FGD paper's published allocation ratio at 130 % arrival, mean and standard deviation over
 * seeds 42-51, per openb pod list and policy: computed from the authors' cached results
 * ({@code experiments/analysis/expected_results/analysis_allo_discrete.csv} in
 * hkust-adsl/kubernetes-scheduler-simulator at 8f3d6417, kept in the shared trace folder as
 * {@code traces/alibaba-gpu-v2023/fgd-expected-results/}). Reference values for reports, not results
 * of this simulator.
 */
public final class Published {
    private static final List<String> POLICIES = List.of("random", "dot-prod", "clustering", "packing", "best-fit", "fgd");

    /** Mean and standard deviation over the 10 seeds. */
    public record Figure(double mean, double sd) {}

    private record Row(String list, double[] values) {}

    private static final Map<String, double[]> BY_LIST = List.of(
            row("cpu050", 91.24, 0.20, 93.27, 0.18, 93.79, 0.31, 93.72, 0.28, 93.79, 0.14, 95.21, 0.09),
            row("cpu100", 89.11, 0.28, 91.95, 0.26, 92.64, 0.41, 92.72, 0.43, 93.44, 0.12, 95.35, 0.13),
            row("cpu200", 83.77, 0.32, 87.70, 0.59, 89.92, 0.37, 90.22, 0.47, 92.40, 0.23, 95.05, 0.15),
            row("cpu250", 80.42, 0.28, 83.81, 0.44, 87.99, 0.55, 88.28, 0.62, 91.45, 0.21, 93.41, 0.26),
            row("default", 87.47, 0.30, 90.85, 0.19, 91.88, 0.59, 92.00, 0.52, 93.08, 0.13, 95.39, 0.08),
            row("gpushare100", 79.44, 0.12, 82.42, 0.30, 82.65, 0.46, 82.57, 0.46, 85.01, 0.19, 86.90, 0.14),
            row("gpushare40", 86.00, 0.34, 89.56, 0.13, 90.02, 0.56, 90.03, 0.48, 91.69, 0.20, 94.15, 0.06),
            row("gpushare60", 83.65, 0.27, 87.11, 0.27, 87.20, 0.40, 87.45, 0.36, 89.36, 0.18, 91.40, 0.11),
            row("gpushare80", 81.22, 0.28, 84.49, 0.19, 84.85, 0.51, 85.00, 0.47, 87.01, 0.22, 89.30, 0.12),
            row("gpuspec10", 87.43, 0.26, 90.39, 0.36, 92.18, 0.68, 92.46, 0.63, 93.30, 0.19, 94.95, 0.20),
            row("gpuspec20", 87.24, 0.31, 89.97, 0.38, 92.25, 0.58, 92.94, 0.61, 93.30, 0.08, 94.84, 0.12),
            row("gpuspec25", 86.94, 0.36, 89.63, 0.34, 92.08, 0.61, 92.98, 0.68, 93.23, 0.08, 94.74, 0.24),
            row("gpuspec33", 86.46, 0.13, 89.14, 0.36, 92.12, 0.65, 93.22, 0.59, 93.09, 0.14, 94.55, 0.14),
            row("multigpu20", 88.69, 0.45, 92.06, 0.30, 93.56, 0.58, 93.71, 0.60, 93.93, 0.22, 95.65, 0.15),
            row("multigpu30", 89.27, 0.39, 93.28, 0.29, 94.72, 0.30, 94.87, 0.30, 94.72, 0.21, 96.46, 0.08),
            row("multigpu40", 90.09, 0.41, 94.19, 0.20, 95.50, 0.30, 95.74, 0.29, 95.23, 0.22, 96.99, 0.09),
            row("multigpu50", 90.27, 0.42, 94.85, 0.20, 95.81, 0.28, 96.18, 0.30, 95.74, 0.18, 97.18, 0.10)
    ).stream().collect(Collectors.toMap(Row::list, Row::values));

    private Published() {}

    private static Row row(String list, double... meanSdPairs) { return new Row(list, meanSdPairs); }

    /** The published figure of a policy on a trace ({@code openb-default}), or null where the paper has none. */
    public static Figure at130(String trace, String policy) {
        double[] v = BY_LIST.get(trace.startsWith("openb-") ? trace.substring(6) : trace);
        int p = POLICIES.indexOf(policy);
        return v == null || p < 0 ? null : new Figure(v[2 * p], v[2 * p + 1]);
    }

    /** Mean published allocation at 130 %, or null. */
    public static Double allocation130(String trace, String policy) {
        Figure f = at130(trace, policy);
        return f == null ? null : f.mean();
    }

    /** The openb lists the paper reports, in name order. */
    public static List<String> lists() { return BY_LIST.keySet().stream().sorted().toList(); }
}
