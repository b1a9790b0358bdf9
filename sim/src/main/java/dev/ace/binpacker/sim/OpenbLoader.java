package dev.ace.binpacker.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the openb CSVs (Alibaba GPU trace v2023). Columns are found by header name, so the
 * five-column {@code multigpu*} lists load too. Quoting never occurs in these files.
 */
public final class OpenbLoader {
    private OpenbLoader() {}

    public static List<OpenbNode> nodes(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        Map<String, Integer> col = header(lines.get(0));
        List<OpenbNode> out = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) continue;
            String[] f = line.split(",", -1);
            String model = f[col.get("model")].trim();
            int gpus = Integer.parseInt(f[col.get("gpu")].trim());
            if (gpus == 0) continue; // CPU-only nodes are not part of the GPU cluster the paper replays
            out.add(new OpenbNode(f[col.get("sn")], Long.parseLong(f[col.get("cpu_milli")].trim()),
                    Long.parseLong(f[col.get("memory_mib")].trim()), gpus, model));
        }
        return out;
    }

    /** Pods in file order; {@code models} is resolved against the cluster's model index. */
    public static List<SimPod> pods(Path file, Map<String, Integer> modelIndex) throws IOException {
        List<String> lines = Files.readAllLines(file);
        Map<String, Integer> col = header(lines.get(0));
        Integer specCol = col.get("gpu_spec");
        List<SimPod> out = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) continue;
            String[] f = line.split(",", -1);
            int num = Integer.parseInt(f[col.get("num_gpu")].trim());
            int milli = Integer.parseInt(f[col.get("gpu_milli")].trim());
            if (num == 0) milli = 0;
            String spec = specCol == null || specCol >= f.length ? "" : f[specCol].trim();
            out.add(new SimPod(f[col.get("name")], Long.parseLong(f[col.get("cpu_milli")].trim()),
                    Long.parseLong(f[col.get("memory_mib")].trim()), num, milli, spec, models(spec, modelIndex)));
        }
        return out;
    }

    static int models(String spec, Map<String, Integer> modelIndex) {
        if (spec == null || spec.isEmpty()) return -1;
        int m = 0;
        for (String s : spec.split("\\|")) {
            Integer i = modelIndex.get(s.trim());
            if (i != null) m |= 1 << i;
        }
        return m;
    }

    private static Map<String, Integer> header(String line) {
        Map<String, Integer> m = new HashMap<>();
        String[] h = line.split(",");
        for (int i = 0; i < h.length; i++) m.put(h[i].trim(), i);
        return m;
    }
}
