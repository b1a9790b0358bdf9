package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each MIG GPU-instance profile of a GPU model may sit. A MIG GPU has {@value #SLOTS} memory
 * slots and {@value #COMPUTE} compute slices; {@code nvidia-smi mig -lgipp} prints, per profile ID,
 * the slots an instance may start at and how many it covers ({@code {0,4}:4} for 3g). Two instances
 * may not share a slot. The built-in tables take the profiles of {@link MigTables} and the placements
 * NVIDIA prints for A100 and the H100 family (fixtures {@code a100-40gb-lgipp.txt},
 * {@code h100-nvl-lgipp.txt}); the H200 uses the H100 family's placements, its own memory sizes.
 *
 * @param model  GPU model, e.g. {@code H100-80GB}
 * @param shapes one per plain profile, in the order of the profile table
 */
public record MigGeometry(String model, List<Shape> shapes) {
    public static final int SLOTS = 8;
    public static final int COMPUTE = 7;

    /**
     * One profile's geometry.
     *
     * @param profile the profile (name, compute slices, memory, maximum count)
     * @param id      the GPU-instance profile ID of {@code -lgip}/{@code -lgipp}
     * @param size    memory slots one instance covers
     * @param starts  slots an instance may start at, ascending
     */
    public record Shape(MigProfile profile, int id, int size, List<Integer> starts) {
        public Shape {
            starts = List.copyOf(new TreeSet<>(starts));
            if (size < 1 || size > SLOTS || starts.isEmpty()) {
                throw new IllegalArgumentException("MIG profile " + profile.name() + " needs 1-8 slots and a start");
            }
            for (int s : starts) {
                if (s < 0 || s + size > SLOTS) {
                    throw new IllegalArgumentException("MIG profile " + profile.name() + " cannot start at slot " + s + " with " + size + " slots");
                }
            }
        }

        /** The slots an instance starting at {@code start} covers, as a bit mask. */
        public int mask(int start) { return ((1 << size) - 1) << start; }
    }

    public MigGeometry {
        shapes = List.copyOf(shapes);
        if (model == null || model.isBlank() || shapes.isEmpty()) throw new IllegalArgumentException("a MIG geometry needs a model and profiles");
        if (shapes.stream().map(s -> s.profile().name()).distinct().count() != shapes.size()) {
            throw new IllegalArgumentException("MIG geometry " + model + " names a profile twice");
        }
    }

    public static final MigGeometry A100_40GB = standard("A100-40GB", MigTables.A100_40GB);
    public static final MigGeometry A100_80GB = standard("A100-80GB", MigTables.A100_80GB);
    public static final MigGeometry H100_80GB = standard("H100-80GB", MigTables.H100_80GB);
    public static final MigGeometry H200_141GB = standard("H200-141GB", MigTables.H200_141GB);

    /** The four models the planner knows, by {@link #model()}. */
    public static Optional<MigGeometry> forModel(String model) {
        for (MigGeometry g : List.of(A100_40GB, A100_80GB, H100_80GB, H200_141GB)) if (g.model().equalsIgnoreCase(model)) return Optional.of(g);
        return Optional.empty();
    }

    public Optional<Shape> shape(String profile) {
        for (Shape s : shapes) if (s.profile().name().equals(profile)) return Optional.of(s);
        return Optional.empty();
    }

    public Shape require(String profile) {
        return shape(profile).orElseThrow(() -> new IllegalArgumentException(model + " has no MIG profile " + profile
                + "; it has " + shapes.stream().map(s -> s.profile().name()).toList()));
    }

    /*
     * The A100/H100 family prints the same placements per profile ID on every model
     * (lgipp fixtures): ID 19 1g {0..6}:1, ID 15 1g with twice the memory {0,2,4,6}:2, ID 14 2g
     * {0,2,4}:2, ID 9 3g {0,4}:4, ID 5 4g {0}:4, ID 0 7g {0}:8. Which 1g is which: the one with
     * seven instances is ID 19, the one with four is ID 15.
     */
    private static MigGeometry standard(String model, List<MigProfile> profiles) {
        List<Shape> out = new ArrayList<>();
        for (MigProfile p : profiles) {
            out.add(switch (p.computeSlices()) {
                case 1 -> p.maxCount() == 7 ? new Shape(p, 19, 1, List.of(0, 1, 2, 3, 4, 5, 6)) : new Shape(p, 15, 2, List.of(0, 2, 4, 6));
                case 2 -> new Shape(p, 14, 2, List.of(0, 2, 4));
                case 3 -> new Shape(p, 9, 4, List.of(0, 4));
                case 4 -> new Shape(p, 5, 4, List.of(0));
                case 7 -> new Shape(p, 0, 8, List.of(0));
                default -> throw new IllegalArgumentException("no known placement for MIG profile " + p.name());
            });
        }
        return new MigGeometry(model, out);
    }

    // |   0  MIG 1g.10gb       19     7/7        9.75       No     16     1     0   |
    private static final Pattern LGIP_ROW = Pattern.compile("\\|\\s*0\\s+MIG\\s+(\\S+)\\s+(\\d+)\\s+\\d+/(\\d+)\\s+[\\d.]+\\s+.*\\|\\s*");
    // GPU  0 Profile ID  9 Placements: {0,4}:4
    private static final Pattern LGIPP_ROW = Pattern.compile("GPU\\s+0\\s+Profile ID\\s+(\\d+)\\s+Placements?\\s*:\\s*\\{([\\d,]+)}:(\\d+)\\s*");

    /**
     * Reads GPU 0's geometry from {@code nvidia-smi mig -lgip} (names, IDs, counts) and
     * {@code nvidia-smi mig -lgipp} (placements by ID). {@code +me} variants are skipped.
     *
     * @throws TopologyParseException when a plain profile has no placements, or either text has no rows
     */
    public static MigGeometry parse(String model, String lgip, String lgipp) {
        Map<Integer, int[]> placements = new HashMap<>();
        String[] pp = lgipp == null ? new String[0] : lgipp.split("\\R");
        for (int i = 0; i < pp.length; i++) {
            if (pp[i].isBlank()) continue;
            Matcher m = LGIPP_ROW.matcher(pp[i]);
            if (!m.matches()) {
                if (pp[i].contains("GPU  0") || pp[i].startsWith("GPU 0")) throw new TopologyParseException(i + 1, "not a -lgipp row: " + pp[i].strip());
                continue;
            }
            String[] starts = m.group(2).split(",");
            int[] row = new int[starts.length + 1];
            row[0] = Integer.parseInt(m.group(3));
            for (int k = 0; k < starts.length; k++) row[k + 1] = Integer.parseInt(starts[k]);
            placements.put(Integer.parseInt(m.group(1)), row);
        }
        if (placements.isEmpty()) throw new TopologyParseException(1, "no `nvidia-smi mig -lgipp` rows ('GPU  0 Profile ID 9 Placements: {0,4}:4') found");
        List<Shape> shapes = new ArrayList<>();
        String[] gp = lgip == null ? new String[0] : lgip.split("\\R");
        for (int i = 0; i < gp.length; i++) {
            Matcher m = LGIP_ROW.matcher(gp[i]);
            if (!m.matches() || !MigProfile.isProfileName(m.group(1))) continue;
            int id = Integer.parseInt(m.group(2));
            int[] row = placements.get(id);
            if (row == null) throw new TopologyParseException(i + 1, "profile " + m.group(1) + " (ID " + id + ") has no -lgipp placements");
            List<Integer> starts = new ArrayList<>();
            for (int k = 1; k < row.length; k++) starts.add(row[k]);
            shapes.add(new Shape(MigProfile.of(m.group(1), Integer.parseInt(m.group(3))), id, row[0], starts));
        }
        if (shapes.isEmpty()) throw new TopologyParseException(1, "no `nvidia-smi mig -lgip` rows for GPU 0 found");
        return new MigGeometry(model, shapes);
    }
}
