package dev.ace.binpacker.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * MIG profiles per GPU model with the maximum homogeneous count, as in NVIDIA mig-parted
 * {@code config-default.yaml} (see FACTS.md). Only the plain profiles; {@code +me} and {@code +gfx}
 * variants are not schedulable resources of their own.
 */
final class MigTables {
    static final List<MigProfile> A100_40GB = of("1g.5gb x7, 1g.10gb x4, 2g.10gb x3, 3g.20gb x2, 4g.20gb x1, 7g.40gb x1");
    static final List<MigProfile> A100_80GB = of("1g.10gb x7, 1g.20gb x4, 2g.20gb x3, 3g.40gb x2, 4g.40gb x1, 7g.80gb x1");
    static final List<MigProfile> H100_80GB = A100_80GB;
    static final List<MigProfile> A30_24GB = of("1g.6gb x4, 2g.12gb x2, 4g.24gb x1");
    static final List<MigProfile> H100_NVL_94GB = of("1g.12gb x7, 1g.24gb x4, 2g.24gb x3, 3g.47gb x2, 4g.47gb x1, 7g.94gb x1");
    static final List<MigProfile> H200_141GB = of("1g.18gb x7, 1g.35gb x4, 2g.35gb x3, 3g.71gb x2, 4g.71gb x1, 7g.141gb x1");
    static final List<MigProfile> B200_180GB = of("1g.23gb x7, 1g.45gb x4, 2g.45gb x3, 3g.90gb x2, 4g.90gb x1, 7g.180gb x1");
    static final List<MigProfile> GB200_186GB = of("1g.24gb x7, 1g.47gb x4, 2g.47gb x3, 3g.95gb x2, 4g.95gb x1, 7g.189gb x1");

    private MigTables() {}

    /** Parses the FACTS.md notation {@code "1g.10gb x7, 2g.20gb x3"}. */
    static List<MigProfile> of(String table) {
        List<MigProfile> out = new ArrayList<>();
        for (String entry : table.split(",")) {
            String[] parts = entry.trim().split("\\s+x");
            out.add(MigProfile.of(parts[0], Integer.parseInt(parts[1])));
        }
        return List.copyOf(out);
    }
}
