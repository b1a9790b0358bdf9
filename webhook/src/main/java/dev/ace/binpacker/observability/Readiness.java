package dev.ace.binpacker.observability;

import java.util.Map;
import java.util.TreeMap;

/**
 * Components that must be ready before the webhook answers: the inventory, in a cluster the ledger
 * mirror and the pod, node and namespace informers (each only once its initial list is processed),
 * and the HTTPS handler warmed up. A component that failed keeps its last error here, so the
 * readiness probe says why it is down. Thread-safe.
 */
public final class Readiness {
    /** The HTTPS handler has answered warm-up requests over TLS (cold TLS and JIT made pods fail open at 5 s). */
    public static final String WARM_UP = "warm-up";

    private final Map<String, Boolean> components = new TreeMap<>();
    private final Map<String, String> errors = new TreeMap<>();

    public synchronized void expect(String component) { components.putIfAbsent(component, false); }

    public synchronized void ready(String component, boolean ready) {
        components.put(component, ready);
        if (ready) errors.remove(component);
    }

    /** Marks a component down with the reason, kept until it is ready again. */
    public synchronized void failed(String component, String error) {
        components.put(component, false);
        errors.put(component, error == null ? "unknown error" : error);
    }

    public synchronized boolean allReady() {
        return !components.isEmpty() && components.values().stream().allMatch(Boolean::booleanValue);
    }

    public synchronized boolean isReady(String component) { return components.getOrDefault(component, false); }

    public synchronized Map<String, Boolean> snapshot() { return Map.copyOf(components); }

    /** The last error of each component that is down because something failed. */
    public synchronized Map<String, String> errors() { return Map.copyOf(errors); }
}
