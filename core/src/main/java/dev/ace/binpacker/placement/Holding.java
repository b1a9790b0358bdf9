package dev.ace.binpacker.placement;

/**
 * Whole GPUs a pod bound to a node uses without an ACE reservation covering them.
 *
 * @param key       stable per pod (its UID), so the same pod is charged the same way every time
 * @param gpus      its effective whole-GPU request, minus what an ACE entry covers
 * @param preferred GPUs to charge first where they are free: those the node agent reports the pod holds,
 *                  else those an {@code ace.dev/reservation} annotation told the pod (its entry is gone);
 *                  0 when nothing is known (the rest is charged by rule)
 */
public record Holding(String key, int gpus, long preferred) {
    public Holding(String key, int gpus) { this(key, gpus, 0L); }
}
