package dev.ace.binpacker.topology;

import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One GPU product family of the board catalog: which {@code nvidia.com/gpu.product} values it
 * matches (normalised: upper case, no {@code NVIDIA-}/{@code Tesla-} prefix), its MIG profiles,
 * and the board layout for a given GPU count.
 */
record CatalogFamily(String name, Pattern product, boolean migCapable, List<MigProfile> mig,
                     IntFunction<Layout> layout, String caveat) {

    /** The board of one GPU count, or why there is none. {@code name} is unique per (kind, count). */
    record Layout(String name, Supplier<GpuBoard> build, String why) {
        static Layout of(String name, Supplier<GpuBoard> build) { return new Layout(name, build, null); }

        static Layout none(String why) { return new Layout(null, null, why); }

        boolean known() { return name != null; }
    }

    static CatalogFamily of(String name, String productRegex, List<MigProfile> mig,
                            IntFunction<Layout> layout, String caveat) {
        return new CatalogFamily(name, Pattern.compile(productRegex), !mig.isEmpty(), mig, layout, caveat);
    }

    boolean matches(String normalisedProduct) {
        return product.matcher(normalisedProduct).matches();
    }

    /** {@code NVIDIA H100 80GB HBM3}, {@code NVIDIA-H100-80GB-HBM3} and {@code h100-80gb-hbm3} all become {@code H100-80GB-HBM3}. */
    static String normalise(String product) {
        String p = product.trim().toUpperCase(Locale.ROOT).replace(' ', '-');
        for (String prefix : new String[] {"NVIDIA-", "TESLA-"}) {
            if (p.startsWith(prefix)) p = p.substring(prefix.length());
        }
        return p;
    }

    /**
     * SXM baseboards: 8 GPUs on NVSwitch (every pair {@code switchBonds}), 4 GPUs as a direct mesh
     * ({@code meshBonds}, 0 when no such 4-GPU board is known), a single GPU trivially. Other
     * counts are partial baseboards (a VM slice, a fallen-off GPU) whose pairs labels cannot tell.
     */
    static IntFunction<Layout> sxm(String gen, int switchBonds, int meshBonds) {
        return n -> switch (n) {
            case 8 -> Layout.of("HGX " + gen + " 8-GPU NVSwitch",
                    () -> CatalogBoards.allToAll("HGX " + gen + " 8-GPU NVSwitch", 8, switchBonds, CatalogBoards.halves(8)));
            case 4 -> meshBonds == 0
                    ? Layout.none(gen + " with 4 GPUs: no 4-GPU " + gen + " board is catalogued")
                    : Layout.of(gen + " SXM 4-GPU NVLink mesh",
                            () -> CatalogBoards.allToAll(gen + " SXM 4-GPU NVLink mesh", 4, meshBonds, null));
            case 1 -> single(gen + " SXM");
            default -> Layout.none(gen + " SXM with " + n + " GPUs is a partial baseboard (VM slice or missing GPU);"
                    + " which pairs share NVLink cannot be told from labels");
        };
    }

    static IntFunction<Layout> bridged(String kind, int bonds) {
        return n -> n == 1 ? single(kind)
                : Layout.of(kind + " bridged pairs " + n + "-GPU", () -> CatalogBoards.bridgedPairs(kind + " bridged pairs " + n + "-GPU", n, bonds));
    }

    static IntFunction<Layout> pcieOnly() {
        return n -> Layout.of("PCIe-only " + n + "-GPU", () -> CatalogBoards.pcieOnly("PCIe-only " + n + "-GPU", n));
    }

    static IntFunction<Layout> singleOnly(String kind, String whyNotMore) {
        return n -> n == 1 ? single(kind) : Layout.none(kind + " with " + n + " GPUs: " + whyNotMore);
    }

    static IntFunction<Layout> fixed(int count, String name, Supplier<GpuBoard> build, String kind) {
        return n -> n == count ? Layout.of(name, build)
                : n == 1 ? single(kind)
                : Layout.none(kind + " with " + n + " GPUs: only the " + count + "-GPU board is catalogued");
    }

    static Layout single(String kind) {
        String name = kind + " 1-GPU";
        return Layout.of(name, () -> CatalogBoards.pcieOnly(name, 1));
    }
}
