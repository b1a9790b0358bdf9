package dev.ace.binpacker.truth;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's GPUs as nvidia-smi names them: index, UUID and PCI bus id from
 * {@code nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader}, and the parent GPU of
 * every MIG device from {@code nvidia-smi -L}. Turns the kubelet's device IDs into GPU indices, the
 * numbering of {@code nvidia-smi topo -m} and of ACE's reservations.
 */
public final class GpuInventory {
    /** One line of the query. */
    public record Gpu(int index, String uuid, String pciBusId) {}

    private static final Pattern GPU_LINE = Pattern.compile("^GPU\\s+(\\d+):.*\\(UUID:\\s*(GPU-[^)\\s]+)\\)\\s*$");
    private static final Pattern MIG_LINE = Pattern.compile("^\\s+MIG\\s.*\\(UUID:\\s*(MIG-[^)\\s]+)\\)\\s*$");

    private final List<Gpu> gpus;
    private final Map<String, Integer> indexByUuid = new HashMap<>();
    private final Map<String, Integer> indexByMig = new HashMap<>();

    private GpuInventory(List<Gpu> gpus, Map<String, String> migParents) {
        this.gpus = List.copyOf(gpus);
        for (Gpu g : gpus) indexByUuid.put(key(g.uuid()), g.index());
        migParents.forEach((mig, parent) -> {
            Integer i = indexByUuid.get(key(parent));
            if (i != null) indexByMig.put(key(mig), i);
        });
    }

    /** From the query output and (may be empty when MIG is off) the {@code nvidia-smi -L} output. */
    public static GpuInventory of(String queryCsv, String listOutput) {
        return new GpuInventory(parseQuery(queryCsv), parseMigParents(listOutput == null ? "" : listOutput));
    }

    public List<Gpu> gpus() { return gpus; }

    public int gpuCount() { return gpus.size(); }

    /** GPU index a device sits on, or -1 when the device is not one of this node's GPUs or MIG devices. */
    public int gpuIndex(DeviceId id) {
        if (id instanceof DeviceId.Gpu g) return indexByUuid.getOrDefault(key(g.uuid()), -1);
        if (id instanceof DeviceId.Mig m) {
            Integer i = indexByMig.get(key(m.uuid()));
            if (i == null && m.parentUuid() != null) i = indexByUuid.get(key(m.parentUuid()));
            return i == null ? -1 : i;
        }
        if (id instanceof DeviceId.Index x) return x.index() < gpus.size() ? x.index() : -1;
        return -1;
    }

    /**
     * Lines {@code index, uuid, pci.bus_id}. Throws {@link IllegalArgumentException} naming the line
     * when one is not that (nvidia-smi prints its errors on stdout too).
     */
    public static List<Gpu> parseQuery(String text) {
        List<Gpu> out = new ArrayList<>();
        String[] lines = text.split("\\R");
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].trim();
            if (line.isEmpty()) continue;
            String[] f = line.split(",");
            if (f.length < 2) throw new IllegalArgumentException("line " + (n + 1) + " is not 'index, uuid, pci.bus_id': " + line);
            int index;
            try {
                index = Integer.parseInt(f[0].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + (n + 1) + " does not start with a GPU index: " + line);
            }
            String uuid = f[1].trim();
            if (!uuid.startsWith("GPU-")) throw new IllegalArgumentException("line " + (n + 1) + " has no GPU UUID: " + line);
            out.add(new Gpu(index, uuid, f.length > 2 ? f[2].trim() : ""));
        }
        if (out.isEmpty()) throw new IllegalArgumentException("nvidia-smi listed no GPU");
        return out;
    }

    /** MIG device UUID -> parent GPU UUID, from {@code nvidia-smi -L}. */
    public static Map<String, String> parseMigParents(String text) {
        Map<String, String> out = new HashMap<>();
        String parent = null;
        for (String line : text.split("\\R")) {
            Matcher g = GPU_LINE.matcher(line);
            if (g.matches()) {
                parent = g.group(2);
                continue;
            }
            Matcher m = MIG_LINE.matcher(line);
            if (m.matches() && parent != null) out.put(m.group(1), parent);
        }
        return out;
    }

    private static String key(String uuid) { return uuid.toLowerCase(Locale.ROOT); }
}
