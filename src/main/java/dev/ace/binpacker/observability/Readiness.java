package dev.ace.binpacker.observability;

import java.util.Map;
import java.util.TreeMap;

/** Components that must be ready before the webhook answers (inventory loaded, each informer synced). Thread-safe. */
public final class Readiness {
    private final Map<String, Boolean> components = new TreeMap<>();

    public synchronized void expect(String component) { components.putIfAbsent(component, false); }

    public synchronized void ready(String component, boolean ready) { components.put(component, ready); }

    public synchronized boolean allReady() {
        return !components.isEmpty() && components.values().stream().allMatch(Boolean::booleanValue);
    }

    public synchronized Map<String, Boolean> snapshot() { return Map.copyOf(components); }
}
