package dev.ace.binpacker.placement;

import java.util.Map;
import java.util.TreeMap;

/**
 * Amounts of the resources a pod requests or a node offers besides whole GPUs (those are the
 * ledger's): {@code cpu}, {@code memory}, {@code ephemeral-storage}, {@code hugepages-*}, {@code pods}
 * and extended resources such as {@code rdma/roce_gdr}, each in thousandths of the Kubernetes unit
 * (CPU in millicores, memory in milli-bytes), as kube-scheduler's NodeResourcesFit compares them.
 * Immutable; names sorted, so equal amounts compare equal.
 */
public record Resources(Map<String, Long> milli) {
    public static final Resources NONE = new Resources(Map.of());
    /** Every pod takes one of a node's {@code pods} slots. */
    public static final String PODS = "pods";
    /** Memory, in milli-bytes. */
    public static final String MEMORY = "memory";
    private static final long GI = 1024L * 1024 * 1024;
    private static final long MI = 1024L * 1024;

    public Resources {
        TreeMap<String, Long> m = new TreeMap<>();
        if (milli != null) milli.forEach((k, v) -> { if (k != null && v != null && v > 0) m.put(k, v); });
        milli = java.util.Collections.unmodifiableMap(m);
    }

    public boolean isEmpty() { return milli.isEmpty(); }

    public long get(String name) { return milli.getOrDefault(name, 0L); }

    public boolean has(String name) { return milli.containsKey(name); }

    public Resources plus(Resources o) {
        if (o.isEmpty()) return this;
        if (isEmpty()) return o;
        TreeMap<String, Long> m = new TreeMap<>(milli);
        o.milli.forEach((k, v) -> m.merge(k, v, Long::sum));
        return new Resources(m);
    }

    /** What is left of {@code this} once {@code o} is taken (never below zero per resource). */
    public Resources minus(Resources o) {
        if (o.isEmpty()) return this;
        TreeMap<String, Long> m = new TreeMap<>(milli);
        o.milli.forEach((k, v) -> m.computeIfPresent(k, (key, have) -> have - v));
        return new Resources(m);
    }

    /** Elementwise maximum (an init container's request against the app containers'). */
    public Resources max(Resources o) {
        TreeMap<String, Long> m = new TreeMap<>(milli);
        o.milli.forEach((k, v) -> m.merge(k, v, Math::max));
        return new Resources(m);
    }

    /**
     * The first resource of {@code need} (in name order) that {@code this}, taken as what is available,
     * does not cover; null when all fit.
     */
    public String firstShort(Resources need) {
        for (Map.Entry<String, Long> e : need.milli.entrySet()) {
            if (get(e.getKey()) < e.getValue()) return e.getKey();
        }
        return null;
    }

    /** "64Gi memory", "4 cpu", "1 rdma/roce_gdr": the amount of one resource in the unit users write. */
    public String render(String name) {
        return amount(name, get(name)) + " " + name;
    }

    /** An amount of resource {@code name} in thousandths, in the unit users write ("500m", "64Gi", "2"). */
    public static String amount(String name, long milli) {
        boolean bytes = name.equals(MEMORY) || name.equals("ephemeral-storage") || name.startsWith("hugepages-");
        if (bytes) {
            long b = (milli + 999) / 1000;
            if (b % GI == 0) return b / GI + "Gi";
            if (b >= GI) return String.format(java.util.Locale.ROOT, "%.1fGi", b / (double) GI);
            if (b % MI == 0) return b / MI + "Mi";
            return Long.toString(b);
        }
        if (milli % 1000 == 0) return Long.toString(milli / 1000);
        return milli + "m";
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (String k : milli.keySet()) b.append(b.length() == 0 ? "" : ", ").append(render(k));
        return b.toString();
    }
}
