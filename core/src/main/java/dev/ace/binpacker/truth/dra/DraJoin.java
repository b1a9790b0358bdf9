package dev.ace.binpacker.truth.dra;

import dev.ace.binpacker.topology.BoardCatalog;
import dev.ace.binpacker.topology.BoardInference;
import dev.ace.binpacker.topology.GpuBoard;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Joins a node's driver devices to GPU indices, the numbering of ACE's boards and reservations. With the GPU UUIDs
 * the node agent publishes (its node report, index order of {@code nvidia-smi}), each device's {@code uuid} (a MIG
 * device's {@code parentUUID}) gives its index, and the board is the agent's {@code ace.dev/topology} matrix, else the
 * catalog board for the product. Without the agent's UUIDs, the catalog board for the product is used and GPUs are
 * numbered in PCI bus order ({@code resource.kubernetes.io/pciBusID}, nvidia-smi's default order), then by UUID; a
 * node with a matrix but no UUIDs is held (the matrix cannot be joined). Never guesses: a device the agent does not
 * list, two products on one node, or a product the catalog does not know holds the node with a reason. Pure.
 */
public final class DraJoin {
    private DraJoin() {}

    public static DraNode join(DraPools.NodeDevices d, List<String> agentUuids, Optional<GpuBoard> matrix) {
        String node = d.node();
        if (!d.problems().isEmpty()) return DraNode.held(node, String.join("; ", d.problems()));
        List<DraDevice> gpuish = d.devices().stream().filter(x -> x.kind() != DraDevice.Kind.OTHER).toList();
        if (gpuish.isEmpty()) return DraNode.notServed(node, "the GPU driver's slices list no GPU or MIG device");
        Map<String, String> busByUuid = new LinkedHashMap<>();
        for (DraDevice x : gpuish) {
            String physical = physical(x);
            if (physical.isEmpty()) return DraNode.held(node, "device " + x.name() + " has no " + (x.kind() == DraDevice.Kind.MIG ? "parentUUID" : "uuid") + " attribute");
            busByUuid.merge(key(physical), x.pciBusId(), (a, b) -> a.isEmpty() ? b : a);
        }
        TreeSet<String> products = new TreeSet<>();
        gpuish.forEach(x -> { if (!x.productName().isEmpty()) products.add(x.productName()); });

        Map<String, Integer> index = new HashMap<>();
        int count;
        Optional<GpuBoard> board;
        String source;
        String how;
        if (!agentUuids.isEmpty()) {
            for (int i = 0; i < agentUuids.size(); i++) index.put(key(agentUuids.get(i)), i);
            count = agentUuids.size();
            for (DraDevice x : gpuish) {
                if (!index.containsKey(key(physical(x)))) {
                    return DraNode.held(node, "device " + x.name() + " (" + physical(x) + ") is not among the " + count
                            + " GPUs the node agent reports");
                }
            }
            how = "joined by UUID to the node agent's " + count + " GPUs";
        } else if (matrix.isPresent()) {
            return DraNode.held(node, "ace.dev/topology is published but the node report lists no GPU UUIDs to join the driver's devices by"
                    + " (run an ace agent that publishes them)");
        } else {
            List<String> order = new ArrayList<>(busByUuid.keySet());
            order.sort(Comparator.comparing((String u) -> busByUuid.get(u).isEmpty() ? "~" : busByUuid.get(u).toLowerCase(Locale.ROOT))
                    .thenComparing(u -> u));
            for (int i = 0; i < order.size(); i++) index.put(order.get(i), i);
            count = order.size();
            how = "numbered in PCI bus order (no node report with GPU UUIDs)";
        }
        if (count > GpuBoard.MAX_GPUS) return DraNode.held(node, count + " GPUs exceed the " + GpuBoard.MAX_GPUS + "-GPU board limit");
        if (matrix.isPresent()) {
            if (matrix.get().gpuCount() != count) {
                return DraNode.held(node, "ace.dev/topology has " + matrix.get().gpuCount() + " GPUs, the node agent reports " + count);
            }
            board = matrix;
            source = "matrix";
        } else {
            if (products.size() != 1) {
                return DraNode.held(node, products.isEmpty() ? "the driver's devices carry no productName and there is no ace.dev/topology matrix"
                        : "the driver's devices name several products " + products + " and there is no ace.dev/topology matrix");
            }
            BoardInference inf = BoardCatalog.infer(Map.of(BoardCatalog.PRODUCT_LABEL, products.first().trim().replace(' ', '-'),
                    BoardCatalog.COUNT_LABEL, Integer.toString(count)));
            if (inf.board().isEmpty()) return DraNode.held(node, inf.reason());
            board = inf.board();
            source = inf.source();
        }

        DraDevice[] gpus = new DraDevice[count];
        long fenced = 0, mig = 0, seen = 0;
        for (DraDevice x : gpuish) {
            int i = index.get(key(physical(x)));
            long bit = 1L << i;
            seen |= bit;
            if (x.fenced()) fenced |= bit;
            if (x.kind() == DraDevice.Kind.MIG) {
                mig |= bit;
            } else {
                if (gpus[i] != null) return DraNode.held(node, "devices " + gpus[i].name() + " and " + x.name() + " are both GPU " + physical(x));
                gpus[i] = x;
            }
        }
        long all = count == 64 ? -1L : (1L << count) - 1;
        long missing = all & ~seen;
        return new DraNode(node, DraNode.State.SERVED, board, source, Arrays.asList(gpus), fenced, missing, mig, how);
    }

    private static String physical(DraDevice x) { return x.kind() == DraDevice.Kind.MIG ? x.parentUuid() : x.uuid(); }

    private static String key(String uuid) { return uuid.toLowerCase(Locale.ROOT); }
}
