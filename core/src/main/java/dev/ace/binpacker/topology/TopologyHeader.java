package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The column header of a {@code topo -m} matrix: GPU columns, then other devices (NICs, mlx5_*),
 * then the affinity columns. The multi-word column names are glued before splitting on whitespace.
 */
record TopologyHeader(int gpus, int devices, List<String> affinityColumns) {
    static final String CPU_AFFINITY = "CPU Affinity";
    static final String NUMA_AFFINITY = "NUMA Affinity";
    static final String GPU_NUMA_ID = "GPU NUMA ID";
    private static final List<String> AFFINITY = List.of(CPU_AFFINITY, NUMA_AFFINITY, GPU_NUMA_ID);
    private static final Pattern GPU = Pattern.compile("GPU(\\d+)");
    // NIC0 (current drivers), mlx5_2 / mlx4_0 (older ones): a name ending in a number.
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z][\\w.\\-]*\\d");

    /** Whitespace tokens of a line with the multi-word column names glued with {@code _}. */
    static String[] tokens(String line) {
        String glued = line;
        for (String col : AFFINITY) glued = glued.replace(col, col.replace(' ', '_'));
        String t = glued.trim();
        return t.isEmpty() ? new String[0] : t.split("\\s+");
    }

    /** Starts with GPU0 and names only GPUs, devices and affinity columns (so "GPU0 is fast" is prose). */
    static boolean looksLikeHeader(String line) {
        String[] t = tokens(line);
        if (t.length == 0 || !t[0].equals("GPU0")) return false;
        for (String col : t) {
            if (!DEVICE.matcher(col).matches() && !AFFINITY.contains(col.replace('_', ' '))) return false;
        }
        return true;
    }

    static TopologyHeader parse(String line, int lineNo) {
        String[] t = tokens(line);
        int gpus = 0;
        int devices = 0;
        List<String> affinity = new ArrayList<>();
        for (String col : t) {
            String name = col.replace('_', ' ');
            var m = GPU.matcher(col);
            if (AFFINITY.contains(name)) {
                affinity.add(name);
            } else if (!affinity.isEmpty()) {
                throw new TopologyParseException(lineNo, "unexpected column '" + col + "' after the affinity columns");
            } else if (m.matches()) {
                if (devices > 0) {
                    throw new TopologyParseException(lineNo, "column " + col + " comes after a non-GPU column; GPU columns must come first");
                }
                if (Integer.parseInt(m.group(1)) != gpus) {
                    throw new TopologyParseException(lineNo, "column " + col + " where GPU" + gpus + " was expected (GPU columns must be GPU0, GPU1, ... in order)");
                }
                gpus++;
            } else {
                devices++;
            }
        }
        if (gpus > GpuBoard.MAX_GPUS) {
            throw new TopologyParseException(lineNo, "header lists " + gpus + " GPUs; a board holds at most " + GpuBoard.MAX_GPUS);
        }
        return new TopologyHeader(gpus, devices, List.copyOf(affinity));
    }
}
