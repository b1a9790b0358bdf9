package dev.ace.binpacker.cluster;

import java.util.Map;

/** Node -> board: the {@code ace.dev/topology} annotation, else the GFD labels, else an unknown PCIe-only board. */
final class Boards implements BoardResolver {
    @Override
    public Resolved resolve(String nodeName, Map<String, String> labels, Map<String, String> annotations) {
        String product = labels.get(dev.ace.binpacker.workload.AceKeys.GPU_PRODUCT);
        int count = 0;
        try {
            count = Integer.parseInt(labels.getOrDefault(dev.ace.binpacker.workload.AceKeys.GPU_COUNT, "0").trim());
        } catch (NumberFormatException e) {
            count = 0;
        }
        if (count <= 0) return new Resolved(null, "none", product, null);
        return new Resolved(UnknownBoards.pcieOnly("unknown " + product, count), "unknown:" + product, product,
                "no topology annotation and product not in the catalog");
    }
}
