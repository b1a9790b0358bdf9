package dev.ace.binpacker.realapi;

/** A test's own namespace (enforce mode), deleted after the test. */
public record TestNamespace(String name) {}
