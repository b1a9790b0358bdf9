package dev.ace.binpacker.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ace.binpacker.topology.BoardClass;
import dev.ace.binpacker.topology.GpuBoard;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** What {@code topology} prints about a board: the NVLink facts the packer uses, as text or JSON. */
final class TopologyReport {
    private final GpuBoard board;
    private final BoardClass boardClass;

    TopologyReport(GpuBoard board) {
        this.board = board;
        this.boardClass = BoardClass.of(board);
    }

    void printText(PrintStream out) {
        row(out, "board", board.name());
        row(out, "GPUs", Integer.toString(board.gpuCount()));
        row(out, "board class", boardClass.label());
        row(out, "NVLink domains", board.nvlinkDomains().isEmpty() ? "none"
                : board.nvlinkDomains().stream().map(TopologyReport::gpus).collect(Collectors.joining(" ")));
        row(out, "largest clique", Integer.toString(board.largestClique()));
        List<String> counts = new ArrayList<>();
        for (int s = 2; s <= board.largestClique(); s++) {
            if (board.cliques(s).length > 0) counts.add(s + ": " + board.cliques(s).length);
        }
        row(out, "cliques by size", counts.isEmpty() ? "none" : String.join(", ", counts));
        List<String> blocks = new ArrayList<>();
        for (int s = 2; s <= board.gpuCount(); s <<= 1) {
            long[] b = board.alignedBlocks(s);
            if (b.length > 0) blocks.add(s + ": " + Arrays.stream(b).mapToObj(TopologyReport::gpus).collect(Collectors.joining(" ")));
        }
        row(out, "aligned blocks", blocks.isEmpty() ? "none" : String.join("; ", blocks));
        row(out, "NUMA per GPU", IntStream.range(0, board.gpuCount())
                .mapToObj(g -> "GPU" + g + "=" + (board.numaNode(g) < 0 ? "?" : Integer.toString(board.numaNode(g))))
                .collect(Collectors.joining(" ")));
        out.println();
        printMatrix(out);
    }

    private static void row(PrintStream out, String key, String value) {
        out.printf("%-16s %s%n", key + ":", value);
    }

    private void printMatrix(PrintStream out) {
        int n = board.gpuCount();
        StringBuilder head = new StringBuilder(String.format("%-6s", ""));
        for (int j = 0; j < n; j++) head.append(String.format("%-6s", "GPU" + j));
        out.println(head.toString().stripTrailing());
        for (int i = 0; i < n; i++) {
            StringBuilder line = new StringBuilder(String.format("%-6s", "GPU" + i));
            for (int j = 0; j < n; j++) line.append(String.format("%-6s", board.link(i, j).token()));
            out.println(line.toString().stripTrailing());
        }
    }

    ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("name", board.name());
        root.put("gpuCount", board.gpuCount());
        root.put("boardClass", boardClass.label());
        root.put("boardClassId", boardClass.name());
        ArrayNode domains = root.putArray("nvlinkDomains");
        board.nvlinkDomains().forEach(d -> domains.add(indices(f, d)));
        root.put("largestClique", board.largestClique());
        ObjectNode bySize = root.putObject("cliquesBySize");
        for (int s = 1; s <= board.largestClique(); s++) bySize.put(Integer.toString(s), board.cliques(s).length);
        ObjectNode blocks = root.putObject("alignedBlocks");
        for (int s = 1; s <= board.gpuCount(); s <<= 1) {
            ArrayNode a = blocks.putArray(Integer.toString(s));
            for (long b : board.alignedBlocks(s)) a.add(indices(f, b));
        }
        ArrayNode numa = root.putArray("numa");
        ArrayNode cpu = root.putArray("cpuAffinity");
        ArrayNode matrix = root.putArray("matrix");
        for (int i = 0; i < board.gpuCount(); i++) {
            if (board.numaNode(i) < 0) numa.addNull(); else numa.add(board.numaNode(i));
            cpu.add(board.cpuAffinity(i));
            ArrayNode r = matrix.addArray();
            for (int j = 0; j < board.gpuCount(); j++) r.add(board.link(i, j).token());
        }
        return root;
    }

    private static ArrayNode indices(JsonNodeFactory f, long mask) {
        ArrayNode a = f.arrayNode();
        for (int g : GpuBoard.indices(mask)) a.add(g);
        return a;
    }

    private static String gpus(long mask) {
        return Arrays.stream(GpuBoard.indices(mask)).mapToObj(Integer::toString).collect(Collectors.joining(",", "[", "]"));
    }
}
