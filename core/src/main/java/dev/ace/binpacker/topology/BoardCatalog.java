package dev.ace.binpacker.topology;

import static dev.ace.binpacker.topology.CatalogFamily.bridged;
import static dev.ace.binpacker.topology.CatalogFamily.fixed;
import static dev.ace.binpacker.topology.CatalogFamily.pcieOnly;
import static dev.ace.binpacker.topology.CatalogFamily.singleOnly;
import static dev.ace.binpacker.topology.CatalogFamily.sxm;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Boards inferred from GPU Feature Discovery / GPU Operator node labels, for nodes without an
 * {@code ace.dev/topology} annotation. Never guesses: a product or GPU count the catalog does not
 * know gives no board and a reason. Boards are shared instances per (kind, GPU count), because
 * the packer caches per-board tables by identity.
 */
public final class BoardCatalog {
    public static final String PRODUCT_LABEL = "nvidia.com/gpu.product";
    public static final String COUNT_LABEL = "nvidia.com/gpu.count";
    public static final String MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy";
    public static final String MIG_CAPABLE_LABEL = "nvidia.com/mig.capable";
    public static final String CLIQUE_LABEL = "nvidia.com/gpu.clique";

    // With the device plugin's `single` MIG strategy GFD appends the slice profile to the product.
    private static final Pattern MIG_SUFFIX = Pattern.compile("(.+?)-MIG-(.+)");
    private static final String PUBLISH = "; publish the exact matrix in the ace.dev/topology annotation (ace agent)";
    private static final ConcurrentMap<String, GpuBoard> BOARDS = new ConcurrentHashMap<>();

    private static final List<CatalogFamily> FAMILIES = List.of(
            CatalogFamily.of("A100 SXM4 40GB", "A100-SXM4?-40GB", MigTables.A100_40GB, sxm("A100", 12, 4),
                    "NUMA halves 0-3/4-7 assumed on 8-GPU boards"),
            CatalogFamily.of("A100 SXM4 80GB", "A100-SXM4?-80GB", MigTables.A100_80GB, sxm("A100", 12, 4),
                    "NUMA halves 0-3/4-7 assumed on 8-GPU boards"),
            CatalogFamily.of("A100 PCIe 40GB", "A100-PCIE-40GB|A100-40GB-PCIE", MigTables.A100_40GB, bridged("A100 PCIe", 12),
                    "NVLink bridges assumed on (0,1),(2,3)...; a node without bridges needs ace.dev/topology"),
            CatalogFamily.of("A100 PCIe 80GB", "A100-PCIE-80GB|A100-80GB-PCIE", MigTables.A100_80GB, bridged("A100 PCIe", 12),
                    "NVLink bridges assumed on (0,1),(2,3)...; a node without bridges needs ace.dev/topology"),
            CatalogFamily.of("H100 SXM5 80GB", "H100-80GB-HBM3|H100-SXM5?-80GB", MigTables.H100_80GB, sxm("H100", 18, 6),
                    "NUMA halves 0-3/4-7 assumed on 8-GPU boards"),
            CatalogFamily.of("H100 NVL 94GB", "H100-NVL(-94GB)?", MigTables.H100_NVL_94GB, bridged("H100 NVL", 12),
                    "NVLink bridges assumed on (0,1),(2,3)..."),
            CatalogFamily.of("H200 141GB", "H200(-141GB(-HBM3E)?)?|H200-SXM-141GB", MigTables.H200_141GB, sxm("H200", 18, 0),
                    "NUMA halves 0-3/4-7 assumed on 8-GPU boards"),
            CatalogFamily.of("B200 180GB", "B200(-\\d+GB.*)?", MigTables.B200_180GB, sxm("B200", 18, 0),
                    "NUMA halves 0-3/4-7 assumed on 8-GPU boards"),
            CatalogFamily.of("GB200", "GB200(-.*)?", MigTables.GB200_186GB,
                    fixed(4, "GB200 NVL tray 4-GPU",
                            () -> CatalogBoards.allToAll("GB200 NVL tray 4-GPU", 4, 18, new int[] {0, 0, 1, 1}), "GB200"),
                    "the NVLink domain spans the rack (nvidia.com/gpu.clique); ACE packs within the 4-GPU tray"),
            CatalogFamily.of("A30 24GB", "A30(-24GB)?", MigTables.A30_24GB,
                    singleOnly("A30", "A30 cards take optional NVLink bridges" + PUBLISH), ""),
            CatalogFamily.of("V100 SXM2", "V100-SXM2-(16|32)GB", List.of(),
                    fixed(8, "DGX-1 V100 hybrid cube-mesh", () -> CatalogBoards.dgx1("DGX-1 V100 hybrid cube-mesh"), "V100 SXM2"),
                    "the DGX-1 link pattern is assumed for 8-GPU V100 SXM2 nodes"),
            CatalogFamily.of("PCIe card without NVLink",
                    "L40S|L40|L4|T4|A10G?|A16|A2|V100-PCIE-(16|32)GB|GEFORCE-RTX-[45]0\\d0.*|RTX-[2-6]000-ADA.*",
                    List.of(), pcieOnly(), ""),
            // MIG-capable per NVIDIA, but mig-parted has no profile table we can cite yet.
            new CatalogFamily("RTX PRO Blackwell", Pattern.compile("RTX-PRO-[456]000.*BLACKWELL.*"), true, List.of(),
                    pcieOnly(), "MIG-capable, profiles not catalogued"));

    private BoardCatalog() {}

    /** Infers the board from GPU Feature Discovery / GPU Operator node labels. Never guesses: unknown products give board()==empty and a reason. */
    public static BoardInference infer(Map<String, String> nodeLabels) {
        boolean labelMig = "true".equalsIgnoreCase(nodeLabels.get(MIG_CAPABLE_LABEL));
        String clique = nodeLabels.get(CLIQUE_LABEL);
        String cliqueNote = clique == null ? "" : "; multi-node NVLink clique " + clique;
        String raw = nodeLabels.get(PRODUCT_LABEL);
        if (raw == null || raw.isBlank()) {
            return none("", 0, labelMig, List.of(), "no " + PRODUCT_LABEL + " label (GPU Feature Discovery has not labelled this node)" + cliqueNote);
        }
        String product = raw.trim();
        String sliceProfile = null;
        Matcher suffix = MIG_SUFFIX.matcher(product);
        if (suffix.matches()) {
            product = suffix.group(1);
            sliceProfile = suffix.group(2);
        }
        CatalogFamily family = find(CatalogFamily.normalise(product));
        int labelCount = parseCount(nodeLabels.get(COUNT_LABEL));
        if (family == null) {
            int count = sliceProfile == null ? Math.max(labelCount, 0) : 0;
            return none(product, count, labelMig, List.of(), "product '" + product + "' is not in the board catalog" + PUBLISH + cliqueNote);
        }
        boolean mig = family.migCapable() || labelMig;
        if (labelCount < 1) {
            return none(product, 0, mig, family.mig(), "no usable " + COUNT_LABEL + " label ('" + nodeLabels.get(COUNT_LABEL) + "')");
        }
        int gpus = labelCount;
        String migNote = "";
        if (sliceProfile != null) {
            // `single` strategy: gpu.count counts MIG devices, not GPUs.
            String slice = sliceProfile;
            Optional<MigProfile> p = family.mig().stream().filter(m -> m.name().equals(slice)).findFirst();
            if (p.isEmpty() || labelCount % p.get().maxCount() != 0) {
                return none(product, 0, mig, family.mig(), labelCount + " MIG devices of " + sliceProfile
                        + " do not map to a whole number of " + family.name() + " GPUs" + PUBLISH);
            }
            gpus = labelCount / p.get().maxCount();
            migNote = "; MIG single strategy: " + labelCount + " x " + sliceProfile + " = " + gpus + " GPU(s) at "
                    + p.get().maxCount() + " per GPU";
        }
        if (gpus > GpuBoard.MAX_GPUS) {
            return none(product, gpus, mig, family.mig(), gpus + " GPUs exceed the " + GpuBoard.MAX_GPUS + "-GPU board limit");
        }
        CatalogFamily.Layout layout = family.layout().apply(gpus);
        if (!layout.known()) {
            return none(product, gpus, mig, family.mig(), layout.why() + PUBLISH + migNote + cliqueNote);
        }
        GpuBoard board = BOARDS.computeIfAbsent(layout.name(), k -> layout.build().get());
        String caveat = family.caveat().isEmpty() || gpus == 1 ? "" : "; " + family.caveat();
        return new BoardInference(Optional.of(board), product, gpus, mig, family.mig(), "catalog:" + board.name(),
                product + " x" + gpus + " is a " + board.name() + caveat + migNote + cliqueNote);
    }

    private static BoardInference none(String product, int gpus, boolean mig, List<MigProfile> profiles, String reason) {
        return new BoardInference(Optional.empty(), product, gpus, mig, profiles, "none", reason);
    }

    private static CatalogFamily find(String normalised) {
        for (CatalogFamily f : FAMILIES) {
            if (f.matches(normalised)) return f;
        }
        return null;
    }

    private static int parseCount(String value) {
        if (value == null) return -1;
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
