package dev.ace.binpacker.cluster.node;

import dev.ace.binpacker.topology.GpuBoard;
import dev.ace.binpacker.topology.Link;
import dev.ace.binpacker.topology.LinkKind;

/**
 * Boards for nodes whose GPUs we can count but not describe (a product the catalog does not know, no
 * topology annotation). The packer sees them as PCIe-only, every pair SYS: 1-GPU work can use them,
 * a TP pod is never promised NVLink there, and if its own selector allows only such nodes it gets
 * the best-connected set with a warning. Assuming the worst link is the only safe guess.
 */
final class UnknownBoards {
    private UnknownBoards() {}

    static GpuBoard pcieOnly(String name, int gpus) {
        Link[][] links = new Link[gpus][gpus];
        for (int i = 0; i < gpus; i++) {
            for (int j = 0; j < gpus; j++) links[i][j] = i == j ? Link.SELF : Link.of(LinkKind.SYS);
        }
        return new GpuBoard(name, links, null, null);
    }
}
