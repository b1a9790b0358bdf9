package dev.ace.binpacker.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Protocol C's trace: small pods of a slicing pool, by MIG size, drawn from the openb share pods.
 * openb's share pods (one GPU, {@code gpu_milli} under 1000) give pairs of GPU share and run time
 * ({@code deletion_time - creation_time}, capped at {@value #CAP_SECONDS} s: 23 of the default
 * list's 3,078 run longer, up to 144 days). Each generated pod draws one pair, arrives by a Poisson
 * process, and asks for the smallest H100 80GB profile whose compute slices out of 7 cover its share
 * (a share of 0.46 needs 4 of 7: 4g.40gb; over 4/7 only the whole 7g.80gb serves it). openb names no
 * workload, so the kind is a label by size: 1g embedding, 2g reranker, 3g and 4g evaluation, 7g
 * notebook.
 */
public final class SlicingTrace {
    public static final int CAP_SECONDS = 86_400;
    static final int[] SLICES = {1, 2, 3, 4, 7};
    static final String[] PROFILES = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};
    static final String[] KINDS = {"embedding", "reranker", "evaluation", "evaluation", "notebook"};

    /** One small pod. */
    public record Pod(String id, double arrival, double duration, int milli, String profile, String kind) {
        public int slices() { return SLICES[index(profile)]; }
    }

    /** One share pod of openb: its share and how long it ran. */
    public record Share(int milli, double seconds) {}

    private SlicingTrace() {}

    /** The share pods of an openb pod list (columns by header name). */
    public static List<Share> shares(Path podList) throws IOException {
        List<String> lines = Files.readAllLines(podList);
        if (lines.isEmpty()) throw new IOException(podList + " is empty");
        Map<String, Integer> col = new HashMap<>();
        String[] head = lines.get(0).split(",", -1);
        for (int i = 0; i < head.length; i++) col.put(head[i].trim(), i);
        for (String c : List.of("num_gpu", "gpu_milli", "creation_time", "deletion_time")) {
            if (!col.containsKey(c)) throw new IOException(podList + " has no column " + c + " (the multigpu lists carry no times)");
        }
        List<Share> out = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split(",", -1);
            if (f.length < head.length || f[col.get("deletion_time")].isBlank()) continue;
            int gpus = Integer.parseInt(f[col.get("num_gpu")]), milli = Integer.parseInt(f[col.get("gpu_milli")]);
            if (gpus != 1 || milli <= 0 || milli >= 1000) continue;
            double s = Double.parseDouble(f[col.get("deletion_time")]) - Double.parseDouble(f[col.get("creation_time")]);
            out.add(new Share(milli, Math.max(1, Math.min(CAP_SECONDS, s))));
        }
        if (out.isEmpty()) throw new IOException(podList + " has no share pods (one GPU, gpu_milli under 1000)");
        return List.copyOf(out);
    }

    /** {@code pods} pods at {@code perHour} arrivals an hour, each a share drawn from {@code shares}. */
    public static List<Pod> generate(List<Share> shares, long seed, int pods, double perHour) {
        if (pods < 1 || !(perHour > 0)) throw new IllegalArgumentException("a slicing trace needs pods >= 1 and a rate > 0");
        Random r = new Random(seed);
        List<Pod> out = new ArrayList<>(pods);
        double t = 0;
        for (int i = 0; i < pods; i++) {
            t += -Math.log(1 - r.nextDouble()) * 3600 / perHour;
            Share s = shares.get(r.nextInt(shares.size()));
            int k = sizeIndex(s.milli());
            out.add(new Pod("s" + i, t, s.seconds(), s.milli(), PROFILES[k], KINDS[k]));
        }
        return out;
    }

    /** The smallest size whose slices out of 7 cover {@code milli} thousandths of a GPU. */
    static int sizeIndex(int milli) {
        for (int k = 0; k < SLICES.length; k++) if (SLICES[k] * 1000 >= milli * 7) return k;
        throw new IllegalArgumentException("a share of " + milli + "/1000 is more than one GPU");
    }

    static int index(String profile) {
        for (int k = 0; k < PROFILES.length; k++) if (PROFILES[k].equals(profile)) return k;
        throw new IllegalArgumentException("protocol C has no size " + profile);
    }
}
