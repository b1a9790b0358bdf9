package dev.ace.binpacker.placement;

/**
 * Whole GPUs a pod bound to a node uses without an ACE reservation covering them.
 *
 * @param key  stable per pod (its UID), so the same pod is charged the same way every time
 * @param gpus its effective whole-GPU request, minus what an ACE entry covers
 */
public record Holding(String key, int gpus) {}
