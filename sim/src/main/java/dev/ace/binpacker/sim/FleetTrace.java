package dev.ace.binpacker.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Protocol B's workload, generated from a seed and written to CSV so any run can be repeated.
 * Poisson arrivals; lognormal lifetimes (median per kind: TP replicas live long, evaluations and
 * batch jobs shorter). The mix is an assumption (no public trace records TP degree): by default
 * 25 % sub-GPU shares, 30 % 1-GPU, 17 % TP2, 17 % TP4, 7 % TP8, 4 % multi-GPU batch (2 or 4 GPUs).
 * TP16 spans nodes and is outside a single-node packer, so it is not generated.
 */
public final class FleetTrace {
    public static final Map<String, Double> DEFAULT_MIX = mix("share=25,single=30,tp2=17,tp4=17,tp8=7,batch=4");
    private static final String HEADER = "id,arrival_s,duration_s,kind,gpus,milli,tp";

    private FleetTrace() {}

    public static Map<String, Double> mix(String spec) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String part : spec.split(",")) {
            String[] kv = part.split("=");
            m.put(kv[0].trim(), Double.parseDouble(kv[1].trim()));
        }
        return m;
    }

    /** {@code pods} arrivals at {@code ratePerHour}; median lifetime 4 h for TP replicas, 1 h otherwise. */
    public static List<FleetPod> generate(long seed, int pods, double ratePerHour, Map<String, Double> mix) {
        Random rnd = new Random(seed);
        double total = mix.values().stream().mapToDouble(Double::doubleValue).sum();
        List<FleetPod> out = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < pods; i++) {
            t += -Math.log(1 - rnd.nextDouble()) * 3600 / ratePerHour;
            double u = rnd.nextDouble() * total;
            String kind = null;
            for (Map.Entry<String, Double> e : mix.entrySet()) {
                kind = e.getKey();
                u -= e.getValue();
                if (u < 0) break;
            }
            int gpus = 1, milli = 1000, tp = 1;
            switch (kind) {
                case "share" -> milli = rnd.nextBoolean() ? 250 : 500;
                case "tp2" -> { gpus = 2; tp = 2; }
                case "tp4" -> { gpus = 4; tp = 4; }
                case "tp8" -> { gpus = 8; tp = 8; }
                case "batch" -> gpus = rnd.nextBoolean() ? 2 : 4;
                default -> { }
            }
            double median = tp >= 2 ? 4 * 3600 : 3600;
            double duration = median * Math.exp(0.8 * rnd.nextGaussian());
            out.add(new FleetPod("f" + i, t, duration, kind, gpus, milli, tp));
        }
        return out;
    }

    public static void write(Path file, List<FleetPod> pods) throws IOException {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        for (FleetPod p : pods) {
            b.append(String.format(Locale.ROOT, "%s,%.3f,%.3f,%s,%d,%d,%d%n", p.id(), p.arrival(), p.duration(), p.kind(), p.gpus(), p.milli(), p.tp()));
        }
        Files.writeString(file, b.toString());
    }

    public static List<FleetPod> read(Path file) throws IOException {
        List<FleetPod> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) continue;
            String[] f = line.split(",");
            out.add(new FleetPod(f[0], Double.parseDouble(f[1]), Double.parseDouble(f[2]), f[3],
                    Integer.parseInt(f[4]), Integer.parseInt(f[5]), Integer.parseInt(f[6])));
        }
        return out;
    }

    /** HGX boards in the protocol's fleet. */
    public static final int HGX_NODES = 64;

    /** The fleet: 64 HGX H100 8-GPU (inference pool), 16 H100 NVL 4-GPU bridged-pair nodes, 8 L4 8-GPU (slicing pool): 640 GPUs. */
    public static List<OpenbNode> cluster() { return cluster(HGX_NODES); }

    /** The fleet with {@code hgxNodes} HGX boards instead of 64 (capacity studies: {@code simulate --trace fleet --hgx N}). */
    public static List<OpenbNode> cluster(int hgxNodes) {
        if (hgxNodes < 1) throw new IllegalArgumentException("the fleet needs at least one HGX board, not " + hgxNodes);
        List<OpenbNode> n = new ArrayList<>();
        for (int i = 0; i < hgxNodes; i++) n.add(new OpenbNode(String.format("hgx-%02d", i), 224000, 2097152, 8, "HGX-H100"));
        for (int i = 0; i < 16; i++) n.add(new OpenbNode(String.format("nvl-%02d", i), 128000, 1048576, 4, "H100-NVL-bridged"));
        for (int i = 0; i < 8; i++) n.add(new OpenbNode(String.format("l4-%02d", i), 96000, 524288, 8, "L4"));
        return n;
    }
}
