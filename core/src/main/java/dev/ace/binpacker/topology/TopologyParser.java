package dev.ace.binpacker.topology;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi topo -m} output as users paste it (ANSI underline on the header, tabs or
 * spaces, NIC rows and columns, affinity columns, legends, prose before or after) into a
 * {@link GpuBoard}. Anything that is not a complete, square, symmetric GPU matrix is refused with
 * the line it went wrong on: a wrong board silently splits NVLink domains, a refused one falls
 * back to the catalog.
 */
public final class TopologyParser {
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;?]*[ -/]*[@-~]");
    private static final Pattern GPU_ROW = Pattern.compile("GPU(\\d+)");
    private static final Pattern NVLINK_S_GPU = Pattern.compile("\\s*GPU \\d+: .*");
    private static final Pattern NVLINK_S_LINK = Pattern.compile("\\s*(Link \\d+: .*|NVML: Unable to retrieve NVLink.*)");
    private static final Pattern CPU_LIST = Pattern.compile("\\d+(-\\d+)?(,\\d+(-\\d+)?)*");
    // `topo -p2p` status cells; none of them is a `topo -m` token.
    private static final Set<String> P2P_TOKENS = Set.of("OK", "CNS", "GNS", "TNS", "NS", "U");

    private TopologyParser() {}

    /**
     * @param text output of {@code nvidia-smi topo -m}
     * @param name board name to record (e.g. the file or node it came from)
     * @throws TopologyParseException with the 1-based line and what was wrong
     */
    public static GpuBoard parse(String text, String name) {
        if (text == null || text.isBlank()) {
            throw new TopologyParseException(1, "empty input; expected the output of `nvidia-smi topo -m`");
        }
        String[] lines = ANSI.matcher(text).replaceAll("").split("\\R", -1);
        int h = 0;
        while (h < lines.length && !TopologyHeader.looksLikeHeader(lines[h])) h++;
        refuseOtherCommands(lines, h);
        if (h == lines.length) {
            int first = 0;
            while (lines[first].isBlank()) first++;
            throw new TopologyParseException(first + 1, "no `nvidia-smi topo -m` header (a line of columns GPU0 GPU1 ...) found; "
                    + "first line is '" + abbreviate(lines[first].trim()) + "'");
        }
        TopologyHeader header = TopologyHeader.parse(lines[h], h + 1);
        int n = header.gpus();
        Link[][] links = new Link[n][];
        int[] rowLine = new int[n];
        int[] numa = new int[n];
        String[] cpu = new String[n];
        int row = 0;
        int i = h + 1;
        for (; i < lines.length && row < n; i++) {
            String[] t = TopologyHeader.tokens(lines[i]);
            if (t.length == 0 || t[0].toUpperCase(Locale.ROOT).startsWith("LEGEND")) break;
            var m = GPU_ROW.matcher(t[0]);
            if (!m.matches()) {
                throw new TopologyParseException(i + 1, "expected row GPU" + row + ", found '" + abbreviate(lines[i].trim()) + "'");
            }
            if (Integer.parseInt(m.group(1)) != row) {
                throw new TopologyParseException(i + 1, "row " + t[0] + " where GPU" + row + " was expected");
            }
            links[row] = readCells(t, row, header, i + 1);
            readAffinity(t, header, i + 1, row, numa, cpu);
            rowLine[row] = i + 1;
            row++;
        }
        if (row < n) {
            throw new TopologyParseException(i + 1, "matrix truncated: the header lists " + n + " GPUs but only " + row
                    + " GPU rows follow (GPU" + row + " is missing)" + (i >= lines.length ? " at end of input" : ""));
        }
        for (; i < lines.length; i++) {
            String[] t = TopologyHeader.tokens(lines[i]);
            if (t.length == 0) break;
            if (GPU_ROW.matcher(t[0]).matches()) {
                throw new TopologyParseException(i + 1, "row " + t[0] + " beyond the " + n + " GPU columns of the header: the matrix is not square");
            }
        }
        checkSymmetric(links, rowLine);
        return new GpuBoard(name, links, numa, cpu);
    }

    private static Link[] readCells(String[] t, int row, TopologyHeader header, int lineNo) {
        int n = header.gpus();
        int cells = t.length - 1;
        if (cells < n) {
            throw new TopologyParseException(lineNo, "row GPU" + row + " has " + cells + " cells but the header lists "
                    + n + " GPUs: the matrix is not square");
        }
        Link[] out = new Link[n];
        for (int j = 0; j < n + header.devices() && j < cells; j++) {
            String token = t[j + 1];
            if (P2P_TOKENS.contains(token)) {
                throw new TopologyParseException(lineNo, "cell '" + token + "' is a `nvidia-smi topo -p2p` status; "
                        + "this is `nvidia-smi topo -p2p` output, ACE needs `nvidia-smi topo -m`");
            }
            Link link = LinkTokens.parse(token);
            String column = j < n ? "GPU" + j : "device column " + (j - n + 1);
            if (link == null) {
                throw new TopologyParseException(lineNo, "unknown link token '" + token + "' in row GPU" + row + ", column "
                        + column + " (expected X, NV#, PIX, PXB, PHB, NODE or SYS)");
            }
            if (j < n) {
                if ((j == row) != (link.kind() == LinkKind.SELF)) {
                    throw new TopologyParseException(lineNo, j == row ? "row GPU" + row + " must have X on the diagonal, found '" + token + "'"
                            : "X (self) off the diagonal in row GPU" + row + ", column " + column);
                }
                out[j] = link;
            }
        }
        return out;
    }

    private static void readAffinity(String[] t, TopologyHeader header, int lineNo, int row, int[] numa, String[] cpu) {
        numa[row] = -1;
        int first = 1 + header.gpus() + header.devices();
        if (t.length < first) {
            throw new TopologyParseException(lineNo, "row GPU" + row + " has " + (t.length - 1) + " cells but the header lists "
                    + (header.gpus() + header.devices()) + " device columns");
        }
        String[] rest = Arrays.copyOfRange(t, first, t.length);
        if (rest.length > header.affinityColumns().size()) {
            throw new TopologyParseException(lineNo, "row GPU" + row + " has " + rest.length + " cells after the device columns, the header names "
                    + header.affinityColumns().size() + " (" + String.join(", ", header.affinityColumns()) + ")");
        }
        for (int k = 0; k < rest.length; k++) {
            String value = rest[k];
            if (value.equals("N/A")) continue;
            if (!CPU_LIST.matcher(value).matches()) {
                throw new TopologyParseException(lineNo, "'" + value + "' under " + header.affinityColumns().get(k) + " is neither a CPU/NUMA list nor N/A");
            }
            switch (header.affinityColumns().get(k)) {
                case TopologyHeader.CPU_AFFINITY -> cpu[row] = value;
                // Grace boards list several NUMA nodes (CPU node first, then GPU memory nodes);
                // the lowest one is the CPU socket the GPU hangs off.
                case TopologyHeader.NUMA_AFFINITY -> numa[row] = lowest(value);
                default -> { } // GPU NUMA ID is the GPU's own memory node, not its CPU side.
            }
        }
    }

    private static int lowest(String list) {
        return Arrays.stream(list.split("[,-]")).mapToInt(Integer::parseInt).min().orElse(-1);
    }

    private static void checkSymmetric(Link[][] links, int[] rowLine) {
        for (int i = 0; i < links.length; i++) {
            for (int j = 0; j < i; j++) {
                if (!links[i][j].equals(links[j][i]) && (links[i][j].isNvlink() || links[j][i].isNvlink())) {
                    throw new TopologyParseException(rowLine[i], "row GPU" + i + " says " + links[i][j] + " to GPU" + j
                            + " but row GPU" + j + " (line " + rowLine[j] + ") says " + links[j][i] + ": the NVLink matrix is not symmetric");
                }
            }
        }
    }

    /** Output of the neighbouring nvidia-smi commands, before any matrix header, gets a pointed refusal. */
    private static void refuseOtherCommands(String[] lines, int header) {
        for (int i = 0; i < header; i++) {
            if (!NVLINK_S_GPU.matcher(lines[i]).matches()) continue;
            boolean nvlink = i + 1 < lines.length && NVLINK_S_LINK.matcher(lines[i + 1]).matches();
            throw new TopologyParseException(i + 1, nvlink
                    ? "this is `nvidia-smi nvlink -s` output (per-GPU link speeds, no peers); ACE needs `nvidia-smi topo -m`"
                    : "this looks like `nvidia-smi -L` output (a GPU list); ACE needs `nvidia-smi topo -m`");
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
