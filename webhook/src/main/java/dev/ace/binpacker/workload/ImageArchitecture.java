package dev.ace.binpacker.workload;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.LabelRequirement;
import dev.ace.binpacker.placement.NodeConstraints;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Images built for one GPU architecture (issue 18): Hugging Face text-embeddings-inference publishes one CUDA
 * image per compute capability ({@code turing-1.5} for T4, {@code 1.5} for A100/A30, {@code 86-1.5} for A10/A40,
 * {@code 89-1.5} for L4/L40S, {@code hopper-1.5} for H100), and each refuses to start on GPUs it was not built for
 * (its {@code compute_cap_matching}: an 8.0 build runs on 8.0-8.9, an 8.6 build on 8.6-8.9, the others on their own
 * capability only). Moved to an H100 MIG slice, a Turing build never starts and holds the slice. Such a pod is kept
 * to nodes whose GPUs have a capability the image runs on, read from GPU feature discovery's
 * {@code nvidia.com/gpu.compute.major}/{@code .minor} labels; a node without them is not chosen for it.
 *
 * @param image               the container image that decided it
 * @param family              the GPUs it was built for, as the image's publisher names them
 * @param computeCapabilities capabilities it runs on, as {@code major * 10 + minor} (75, 80, ..., 90)
 */
public record ImageArchitecture(String image, String family, SortedSet<Integer> computeCapabilities) {
    /** Repository names (the last path segment, so mirrors count too) of images built for one architecture. */
    private static final String TEI = "text-embeddings-inference";
    /** The longest image reference looked at; the API server allows longer strings, no registry does. */
    private static final int MAX_IMAGE = 1024;

    public ImageArchitecture {
        computeCapabilities = new TreeSet<>(computeCapabilities);
    }

    /**
     * The architecture the pod's images keep it to, if any of its containers (init containers too) runs an
     * image built for one; two such containers keep it to the capabilities both run on.
     */
    public static Optional<ImageArchitecture> of(Pod pod) {
        if (pod == null || pod.getSpec() == null) return Optional.empty();
        ImageArchitecture out = null;
        for (List<Container> cs : List.of(nullSafe(pod.getSpec().getContainers()), nullSafe(pod.getSpec().getInitContainers()))) {
            for (Container c : cs) {
                Optional<ImageArchitecture> a = ofImage(c.getImage());
                if (a.isEmpty()) continue;
                if (out == null) {
                    out = a.get();
                } else {
                    SortedSet<Integer> both = new TreeSet<>(out.computeCapabilities);
                    both.retainAll(a.get().computeCapabilities);
                    out = new ImageArchitecture(out.image + " and " + a.get().image, out.family + " and " + a.get().family, both);
                }
            }
        }
        return Optional.ofNullable(out);
    }

    /** The architecture one image reference is built for ({@code [registry/]path[:tag][@digest]}), if ACE knows it. */
    public static Optional<ImageArchitecture> ofImage(String image) {
        if (image == null || image.isEmpty() || image.length() > MAX_IMAGE) return Optional.empty();
        String ref = image;
        int at = ref.indexOf('@');
        if (at >= 0) ref = ref.substring(0, at);
        int slash = ref.lastIndexOf('/');
        int colon = ref.lastIndexOf(':');
        String repo = colon > slash ? ref.substring(slash + 1, colon) : ref.substring(slash + 1);
        if (!repo.equals(TEI)) return Optional.empty();
        String tag = colon > slash ? ref.substring(colon + 1) : "latest";
        return tei(tag).map(t -> new ImageArchitecture(image, t.family, t.caps));
    }

    private record Build(String family, SortedSet<Integer> caps) {}

    /** A build for {@code family} GPUs (such as {@code examples}) of compute capability {@code from}-{@code to}. */
    private static Optional<Build> build(String family, String examples, int from, int to) {
        String range = from == to ? capability(from) : capability(from) + "-" + capability(to);
        return Optional.of(new Build(family + " GPUs (" + examples + "; compute capability " + range + ")", caps(from, to)));
    }

    private static String capability(int c) { return c / 10 + "." + c % 10; }

    /** text-embeddings-inference's CUDA tags by prefix (its README's table); CPU and unknown tags keep no GPU. */
    private static Optional<Build> tei(String tag) {
        if (tag.startsWith("turing-")) return build("Turing", "T4, RTX 2000", 75, 75);
        if (tag.startsWith("86-")) return build("Ampere", "A10, A40", 86, 89);
        if (tag.startsWith("89-")) return build("Ada Lovelace", "L4, L40S", 89, 89);
        if (tag.startsWith("hopper-")) return build("Hopper", "H100, H200", 90, 90);
        if (tag.startsWith("100-")) return build("Blackwell", "B200, GB200", 100, 100);
        if (tag.startsWith("120-")) return build("Blackwell", "RTX 50 series", 120, 120);
        if (tag.equals("latest") || !tag.isEmpty() && Character.isDigit(tag.charAt(0)) && tag.indexOf('.') > 0) {
            return build("Ampere", "A100, A30", 80, 89);
        }
        return Optional.empty();
    }

    private static SortedSet<Integer> caps(int from, int to) {
        SortedSet<Integer> s = new TreeSet<>();
        for (int c = from; c <= to; c++) s.add(c);
        return s;
    }

    /** What the pod is told (a warning: the capabilities first, then the image, in 120 characters when it can). */
    public String note() {
        if (computeCapabilities.isEmpty()) return "no GPU runs all of " + shortImage() + " (built for " + family + ")";
        String caps = computeCapabilities.first().equals(computeCapabilities.last()) ? capability(computeCapabilities.first())
                : capability(computeCapabilities.first()) + "-" + capability(computeCapabilities.last());
        return "only GPUs of compute capability " + caps + " run " + shortImage();
    }

    /** The image without its registry host, for the warning. */
    private String shortImage() {
        int slash = image.indexOf('/');
        return slash > 0 && image.substring(0, slash).contains(".") ? image.substring(slash + 1) : image;
    }

    /**
     * One alternative per major version: {@code compute.major In [M]} and {@code compute.minor In [...]}; a node
     * matches when it meets one of them. Empty when the images agree on no capability (no node matches).
     */
    public List<List<LabelRequirement>> alternatives() {
        Map<Integer, List<String>> byMajor = new TreeMap<>();
        for (int c : computeCapabilities) byMajor.computeIfAbsent(c / 10, k -> new ArrayList<>()).add(Integer.toString(c % 10));
        List<List<LabelRequirement>> out = new ArrayList<>();
        for (Map.Entry<Integer, List<String>> e : byMajor.entrySet()) {
            out.add(List.of(new LabelRequirement(AceKeys.GPU_COMPUTE_MAJOR, "In", List.of(Integer.toString(e.getKey()))),
                    new LabelRequirement(AceKeys.GPU_COMPUTE_MINOR, "In", e.getValue())));
        }
        return out;
    }

    /** {@code c} narrowed to nodes with a capability the image runs on (no node when the images agree on none). */
    public NodeConstraints narrow(NodeConstraints c) { return c.andAnyOf(alternatives()); }

    private static List<Container> nullSafe(List<Container> l) { return l == null ? List.of() : l; }
}
