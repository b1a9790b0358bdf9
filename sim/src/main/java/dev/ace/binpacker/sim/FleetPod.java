package dev.ace.binpacker.sim;

/**
 * One pod of a protocol B fleet trace.
 *
 * @param kind  share, single, tp2, tp4, tp8 or batch
 * @param tp    tensor-parallel degree (1 unless the pod is a TP replica)
 */
public record FleetPod(String id, double arrival, double duration, String kind, int gpus, int milli, int tp) {
    public boolean isTp() { return tp >= 2; }

    SimPod asSimPod() { return new SimPod(id, 0, 0, gpus, milli, "", -1); }
}
