package dev.ace.binpacker.sim;

/**
 * Protocol B figures of one (policy, trace) run.
 *
 * @param tpFullBandwidthPct TP pods placed on a full-bandwidth NVLink clique, % of TP pods placed
 * @param tpDegraded         TP pods placed on GPUs that are not an NVLink clique
 * @param tpWaiting          TP pods still queued when the trace ends
 * @param tpEverWaited       TP pods that could not be placed on arrival
 * @param meanAllocation     mean GPU allocation (%) over arrivals
 * @param strandedGpus       mean free GPUs with no free NVLink peer, on NVLink nodes
 * @param domainsClean       mean % of NVLink domains wholly free (fragmented and full likewise)
 * @param smallOnInference   non-TP pods placed on the inference pool
 * @param allocationByHour   mean GPU allocation (%) of the arrivals in each hour of the trace
 * @param waits              how long TP replicas waited for a clique
 * @param tpOnCliqueByHour   share (%) of the running TP replicas that sit on an NVLink clique, per hour
 * @param tpWaitingByHour    TP replicas waiting in the queue, mean per hour
 * @param causes             why the TP replicas that waited could not start on arrival
 */
public record FleetResult(String policy, int tpPods, double tpFullBandwidthPct, int tpDegraded, int tpWaiting, int tpEverWaited,
                          int otherFailed, double meanAllocation, double strandedGpus, double domainsClean,
                          double domainsFragmented, double domainsFull, int smallOnInference, long[] decisionNanos,
                          double[] allocationByHour, Waits waits, double[] tpOnCliqueByHour, double[] tpWaitingByHour,
                          WaitCauses causes) {
    /**
     * Start delay of TP replicas.
     *
     * @param waitedPct             TP replicas that could not start on arrival, % of TP replicas
     * @param minutes               wait of each replica that waited, sorted (still waiting at the end: the wait so far)
     * @param waitingGpuHours       GPU-hours TP replicas spent waiting
     * @param fullBandwidthHoursPct TP replica-hours served on an NVLink clique, % of the TP replica-hours asked for
     */
    public record Waits(double waitedPct, double[] minutes, double waitingGpuHours, double fullBandwidthHoursPct) {
        public double p50Minutes() { return ProtocolB.quantile(minutes, 0.5); }

        public double p95Minutes() { return ProtocolB.quantile(minutes, 0.95); }
    }
}
