package dev.ace.binpacker.cluster.controller;

/** Whether this replica is the one that releases gated pods, ties, expires and releases entries, and repairs pins. */
@FunctionalInterface
public interface Leadership {
    boolean leading();
}
