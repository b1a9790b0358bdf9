package dev.ace.binpacker.admission;

import dev.ace.binpacker.keys.AceKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GPU resource a slicing-pool node really offers, read from its GFD labels (FACTS "MIG"):
 * {@code nvidia.com/mig-<profile>} under the mixed strategy ({@code nvidia.com/mig-<profile>.count > 0}),
 * {@code nvidia.com/gpu.shared} under MPS, or plain {@code nvidia.com/gpu}.
 *
 * @param memoryMiB nominal memory of a MIG profile; 0 for MPS and whole GPUs (not sized)
 * @param slices    compute slices of a MIG profile (7 = the whole GPU); 0 otherwise
 */
public record SlicingOffer(String resource, long memoryMiB, int slices) {
    private static final Pattern PROFILE = Pattern.compile("^" + Pattern.quote(AceKeys.MIG_PREFIX) + "((\\d+)g\\.(\\d+)gb[^.]*)\\.count$");
    static final int WHOLE_GPU_SLICES = 7;

    public boolean isMig() { return resource.startsWith(AceKeys.MIG_PREFIX); }

    /** What one node's labels offer. */
    public static List<SlicingOffer> of(Map<String, String> labels) {
        List<SlicingOffer> out = new ArrayList<>();
        if ("mixed".equals(labels.get(AceKeys.MIG_STRATEGY))) {
            for (Map.Entry<String, String> e : labels.entrySet()) {
                Matcher m = PROFILE.matcher(e.getKey());
                if (!m.matches() || positive(e.getValue()) <= 0) continue;
                out.add(new SlicingOffer(AceKeys.MIG_PREFIX + m.group(1), Long.parseLong(m.group(3)) * 1024, Integer.parseInt(m.group(2))));
            }
        } else if ("mps".equals(labels.get(AceKeys.SHARING_STRATEGY))) {
            out.add(new SlicingOffer(AceKeys.GPU_SHARED, 0, 0));
        } else if (positive(labels.get(AceKeys.GPU_COUNT)) > 0) {
            out.add(new SlicingOffer(AceKeys.GPU, 0, 0));
        }
        out.sort(Comparator.comparing(SlicingOffer::resource));
        return out;
    }

    /**
     * The resource to request: for a memory need, the smallest MIG profile that holds it, else an
     * MPS share, else a whole GPU; for a whole-GPU need ({@code needMiB == 0}), a whole-GPU MIG profile
     * (7 slices), else a plain GPU, else the largest profile there is.
     */
    public static Optional<SlicingOffer> choose(Collection<SlicingOffer> offers, long needMiB) {
        List<SlicingOffer> mig = offers.stream().filter(SlicingOffer::isMig).distinct().toList();
        Optional<SlicingOffer> plain = offers.stream().filter(o -> o.resource().equals(AceKeys.GPU)).findFirst();
        Optional<SlicingOffer> shared = offers.stream().filter(o -> o.resource().equals(AceKeys.GPU_SHARED)).findFirst();
        Comparator<SlicingOffer> bySize = Comparator.comparingLong(SlicingOffer::memoryMiB)
                .thenComparingInt(SlicingOffer::slices).thenComparing(SlicingOffer::resource);
        if (needMiB <= 0) {
            Optional<SlicingOffer> whole = mig.stream().filter(o -> o.slices() >= WHOLE_GPU_SLICES).min(bySize);
            if (whole.isPresent()) return whole;
            if (plain.isPresent()) return plain;
            Optional<SlicingOffer> largest = mig.stream().max(bySize);
            return largest.isPresent() ? largest : shared;
        }
        Optional<SlicingOffer> fit = mig.stream().filter(o -> o.memoryMiB() >= needMiB).min(bySize);
        if (fit.isPresent()) return fit;
        if (shared.isPresent()) return shared;
        return plain;
    }

    private static long positive(String v) {
        if (v == null) return 0;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
