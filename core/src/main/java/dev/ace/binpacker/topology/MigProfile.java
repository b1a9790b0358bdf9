package dev.ace.binpacker.topology;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One MIG GPU-instance profile of a GPU model.
 *
 * @param name          profile as NVIDIA spells it, e.g. {@code 1g.10gb}
 * @param computeSlices compute slices (the {@code 1g} part, out of 7)
 * @param memoryGb      memory in GB as named (the {@code 10gb} part)
 * @param maxCount      most instances of this profile one GPU holds (homogeneous layout)
 */
public record MigProfile(String name, int computeSlices, int memoryGb, int maxCount) {
    private static final Pattern NAME = Pattern.compile("(\\d+)g\\.(\\d+)gb");

    public MigProfile {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("MIG profile name must look like 1g.10gb, got " + name);
        }
        if (computeSlices < 1 || memoryGb < 1 || maxCount < 1) {
            throw new IllegalArgumentException("MIG profile " + name + " needs positive slices, memory and count");
        }
    }

    /** Builds a profile from its name ({@code 3g.40gb}) and the per-GPU maximum. */
    public static MigProfile of(String name, int maxCount) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) throw new IllegalArgumentException("MIG profile name must look like 1g.10gb, got " + name);
        return new MigProfile(name, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), maxCount);
    }

    /** True for names like {@code 1g.10gb} (no {@code +me} or other suffixes). */
    public static boolean isProfileName(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}
