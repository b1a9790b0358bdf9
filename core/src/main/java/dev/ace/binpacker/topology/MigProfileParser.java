package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi mig -lgip} (GPU instance profiles) into {@link MigProfile}s per GPU index.
 * The maximum count is the {@code Total} of {@code Free/Total}, so a GPU whose instances are all
 * in use still reports its full profile table. {@code +me}/{@code +gfx} variants are skipped:
 * they are the same slice with media engines attached, not a resource of their own.
 */
public final class MigProfileParser {
    // |   0  MIG 1g.10gb       19     7/7        9.75       No     16     1     0   |
    private static final Pattern ROW = Pattern.compile(
            "\\|\\s*(\\d+)\\s+MIG\\s+(\\S+)\\s+\\d+\\s+(\\d+)/(\\d+)\\s+[\\d.]+\\s+.*\\|\\s*");
    private static final String NO_MIG = "No MIG-enabled devices found";

    private MigProfileParser() {}

    /**
     * @return profiles per GPU index, in the order printed; empty when the output says no GPU has MIG enabled
     * @throws TopologyParseException when the text is not {@code mig -lgip} output
     */
    public static Map<Integer, List<MigProfile>> parseLgip(String text) {
        if (text == null || text.isBlank()) {
            throw new TopologyParseException(1, "empty input; expected the output of `nvidia-smi mig -lgip`");
        }
        String[] lines = text.split("\\R");
        Map<Integer, List<MigProfile>> byGpu = new TreeMap<>();
        boolean table = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.contains(NO_MIG)) return Map.of();
            if (line.contains("GPU instance profiles")) table = true;
            Matcher m = ROW.matcher(line);
            if (!m.matches()) continue;
            String name = m.group(2);
            if (!MigProfile.isProfileName(name)) {
                if (name.contains("+")) continue;
                throw new TopologyParseException(i + 1, "'" + name + "' is not a MIG profile name like 1g.10gb");
            }
            int total = Integer.parseInt(m.group(4));
            if (total < 1) throw new TopologyParseException(i + 1, "profile " + name + " has a total of 0 instances");
            byGpu.computeIfAbsent(Integer.parseInt(m.group(1)), g -> new ArrayList<>()).add(MigProfile.of(name, total));
        }
        if (!table || byGpu.isEmpty()) {
            throw new TopologyParseException(1, "no `nvidia-smi mig -lgip` profile table (rows like '|   0  MIG 1g.10gb  19  7/7 ...|') found");
        }
        Map<Integer, List<MigProfile>> out = new TreeMap<>();
        byGpu.forEach((g, l) -> out.put(g, List.copyOf(l)));
        return Collections.unmodifiableMap(out);
    }
}
