package dev.ace.binpacker.truth;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A device ID as the NVIDIA device plugin registers it with the kubelet and the PodResources API
 * reports it. Shapes (device plugin {@code deviceIDStrategy} uuid, the default, and index):
 * <ul>
 *   <li>{@code GPU-<uuid>}: a whole GPU;</li>
 *   <li>{@code GPU-<uuid>::<n>}: replica n of a shared GPU (time-slicing or MPS);</li>
 *   <li>{@code MIG-<uuid>}, {@code MIG-<uuid>::<n>}: a MIG device (shared when a replica is given);</li>
 *   <li>{@code MIG-GPU-<uuid>/<gi>/<ci>}: a MIG device as drivers before R470 named it, parent in the name;</li>
 *   <li>{@code <index>}, {@code <index>:<mig index>}: the index strategy.</li>
 * </ul>
 */
public sealed interface DeviceId {
    /** What the kubelet reported, verbatim. */
    String raw();

    /** A physical GPU by UUID ({@code GPU-...}); {@code replica} is -1 for the whole GPU. */
    record Gpu(String raw, String uuid, int replica) implements DeviceId {
        public boolean shared() { return replica >= 0; }
    }

    /** A MIG device; {@code parentUuid} is known only from the legacy name, else null (look it up in nvidia-smi -L). */
    record Mig(String raw, String uuid, String parentUuid, int replica) implements DeviceId {}

    /** The index strategy: GPU {@code index}, the MIG device index on it or -1, the shared replica or -1. */
    record Index(String raw, int index, int migIndex, int replica) implements DeviceId {}

    /** Anything else (another vendor's plugin, a future shape): never guessed at. */
    record Other(String raw) implements DeviceId {}

    Pattern REPLICA = Pattern.compile("^(.*)::(\\d*)$");
    Pattern LEGACY_MIG = Pattern.compile("^MIG-(GPU-[0-9A-Fa-f-]+)(/\\d+/\\d+)?$");
    Pattern INDEX = Pattern.compile("^(\\d+)(?::(\\d+))?$");

    static DeviceId parse(String raw) {
        String id = raw == null ? "" : raw.trim();
        String base = id;
        int replica = -1;
        Matcher rm = REPLICA.matcher(id);
        if (rm.matches()) {
            base = rm.group(1);
            // "GPU-<uuid>::" with no number has been seen from older plugins; it names the GPU itself
            replica = rm.group(2).isEmpty() ? -1 : Integer.parseInt(rm.group(2));
        }
        if (base.startsWith("GPU-") && base.length() > 4) return new Gpu(id, base, replica);
        if (base.startsWith("MIG-") && base.length() > 4) {
            Matcher lm = LEGACY_MIG.matcher(base);
            if (lm.matches()) return new Mig(id, base, lm.group(1), replica);
            return new Mig(id, base, null, replica);
        }
        Matcher im = INDEX.matcher(base);
        if (im.matches()) {
            return new Index(id, Integer.parseInt(im.group(1)), im.group(2) == null ? -1 : Integer.parseInt(im.group(2)), replica);
        }
        return new Other(id);
    }
}
