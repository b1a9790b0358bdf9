package dev.ace.binpacker.sim;

/** One row of an openb node list. */
public record OpenbNode(String name, long cpuMilli, long memMib, int gpus, String model) {}
