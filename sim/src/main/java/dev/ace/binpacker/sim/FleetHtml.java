package dev.ace.binpacker.sim;

import java.util.List;

/** The protocol B page: what was simulated, what each column means, the table and three charts over time. */
public final class FleetHtml {
    private FleetHtml() {}

    public static String html(String trace, List<Long> seeds, double rate, List<FleetResult> rs) {
        StringBuilder b = SvgReport.head("ACE simulate " + trace);
        b.append("<h1>Protocol B: TP inference fleet, ").append(String.format(java.util.Locale.ROOT, "%.0f", rate)).append(" pods/h</h1>");
        b.append("<p>64 HGX H100 8-GPU NVSwitch nodes (inference pool), 16 H100 NVL 4-GPU nodes in NVLink-bridged pairs (general "
                + "pool), 8 L4 8-GPU PCIe nodes (slicing pool): 640 GPUs. Seeded traces of 3,000 pods (seeds ").append(seeds)
                .append("): Poisson arrivals, 25 % sub-GPU shares, 30 % 1-GPU, 17 % TP2, 17 % TP4, 7 % TP8, 4 % 2/4-GPU batch; "
                + "lifetimes lognormal, median 4 h for TP replicas, 1 h otherwise. A TP replica that does not fit waits and is retried "
                + "whenever a pod leaves, oldest first; other pods that do not fit fail. ACE gets the pools its webhook gives (TP 2 "
                + "first on bridged pairs of the general pool, then the inference pool; TP 4 and 8 on the inference pool); "
                + "baselines see one flat cluster and place TP replicas on any free GPUs.</p>");
        b.append("<dl><dt>on clique %</dt><dd>TP replicas placed on GPUs that are pairwise NVLinked (full bandwidth), % of TP "
                + "replicas placed.</dd><dt>degraded</dt><dd>TP replicas placed on GPUs that are not an NVLink clique.</dd>"
                + "<dt>waited %</dt><dd>TP replicas that could not start on arrival.</dd><dt>wait p50/p95</dt><dd>minutes those "
                + "replicas waited (still waiting at the end: the wait so far).</dd><dt>full-BW hours %</dt><dd>TP replica-hours "
                + "served on a clique, % of the TP replica-hours asked for.</dd><dt>waiting GPU-h</dt><dd>GPU-hours TP replicas "
                + "spent waiting, summed over traces.</dd><dt>stranded</dt><dd>free GPUs with no free NVLink peer (mean).</dd>"
                + "<dt>clean / frag / full</dt><dd>NVLink domains wholly free / partly used / wholly used, % (mean).</dd>"
                + "<dt>small@inf</dt><dd>non-TP pods placed on the inference pool.</dd></dl>");
        b.append("<table><tr><th>policy</th><th>TP pods</th><th>on clique %</th><th>degraded</th><th>waited %</th><th>wait p50 min</th>"
                + "<th>wait p95 min</th><th>full-BW hours %</th><th>waiting GPU-h</th><th>still waiting</th><th>other failed</th>"
                + "<th>mean alloc %</th><th>stranded</th><th>clean %</th><th>frag %</th><th>full %</th><th>small@inf</th>"
                + "<th>p50 µs</th><th>p99 µs</th></tr>");
        for (FleetResult r : rs) {
            FleetResult.Waits w = r.waits();
            b.append(r.policy().equals("ace") ? "<tr class=\"ace\"><th>" : "<tr><th>").append(SvgReport.esc(r.policy())).append("</th>");
            cells(b, Integer.toString(r.tpPods()), SvgReport.f(r.tpFullBandwidthPct()), Integer.toString(r.tpDegraded()),
                    SvgReport.f(w.waitedPct()), SvgReport.f(w.p50Minutes()), SvgReport.f(w.p95Minutes()), SvgReport.f(w.fullBandwidthHoursPct()),
                    SvgReport.f(w.waitingGpuHours()), Integer.toString(r.tpWaiting()), Integer.toString(r.otherFailed()),
                    SvgReport.f(r.meanAllocation()), SvgReport.f(r.strandedGpus()), SvgReport.f(r.domainsClean()),
                    SvgReport.f(r.domainsFragmented()), SvgReport.f(r.domainsFull()), Integer.toString(r.smallOnInference()),
                    SvgReport.f(FleetReport.micros(r.decisionNanos(), 0.5)), SvgReport.f(FleetReport.micros(r.decisionNanos(), 0.99)));
            b.append("</tr>");
        }
        b.append("</table>");
        b.append(FleetReport.tpOnCliqueSvg(rs)).append(FleetReport.waitingSvg(rs)).append(FleetReport.allocationSvg(rs));
        return b.append("</body></html>\n").toString();
    }

    private static void cells(StringBuilder b, String... values) {
        for (String v : values) b.append("<td>").append(v).append("</td>");
    }
}
