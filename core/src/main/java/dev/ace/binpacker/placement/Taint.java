package dev.ace.binpacker.placement;

/** A node taint; only NoSchedule and NoExecute keep pods off (PreferNoSchedule is a preference). */
public record Taint(String key, String value, String effect) {
    public boolean repels() { return "NoSchedule".equals(effect) || "NoExecute".equals(effect); }
}
