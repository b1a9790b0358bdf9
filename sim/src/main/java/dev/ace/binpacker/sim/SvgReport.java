package dev.ace.binpacker.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Line charts drawn as inline SVG (no scripts, no CDN, viewable offline): titled axes, a legend
 * box beside the plot, a colour and dash pattern per policy, ACE drawn thick in red, the y range
 * fitted to the data so close curves separate. The protocol A page ({@link #html}) lives here
 * too; protocol B's is {@link FleetHtml}.
 */
public final class SvgReport {
    private static final String[] COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
        "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"};
    private static final String[] DASHES = {"", "6 3", "2 2", "8 3 2 3"};

    private SvgReport() {}

    /** One chart's axes: what x and y mean, and the x range drawn. */
    public record Axes(String title, String xLabel, String yLabel, int x0, int x1) {}

    public static String allocationSvg(List<PolicySummary> results) {
        return chart(new Axes("GPU allocation ratio vs arrived workload", "arrived workload (% of GPU capacity)",
                "GPU allocation ratio (%)", 0, 130), results, true);
    }

    /** The same curves from 80 % arrival on, where the policies part (the full range squeezes them into one line). */
    public static String allocationTailSvg(List<PolicySummary> results) {
        return chart(new Axes("GPU allocation ratio from 80 % arrival on", "arrived workload (% of GPU capacity)",
                "GPU allocation ratio (%)", 80, 130), results, true);
    }

    public static String fragmentationSvg(List<PolicySummary> results) {
        return chart(new Axes("FGD fragmentation rate vs arrived workload", "arrived workload (% of GPU capacity)",
                "fragmented share of free GPU (%)", 0, 100), results, false);
    }

    static String chart(Axes axes, List<PolicySummary> results, boolean allocation) {
        List<String> names = new ArrayList<>();
        List<double[]> curves = new ArrayList<>();
        for (PolicySummary r : results) {
            names.add(r.policy());
            curves.add(allocation ? r.allocation() : r.fragRate());
        }
        return lines(axes, names, curves);
    }

    /** The protocol A page: protocol, legend, table with the published figures and seed spread, both charts. */
    public static String html(String trace, List<Long> seeds, List<PolicySummary> results) {
        StringBuilder b = head("ACE simulate " + trace);
        b.append("<h1>Protocol A: ").append(esc(trace)).append("</h1>");
        b.append("<p>The FGD reproduction (Weng et al., USENIX ATC'23, as the authors' simulator runs it): the 1,213 GPU nodes of the "
                + "Alibaba openb cluster; the pod list shuffled with each seed and topped up by sampling until the requested GPU reaches "
                + "130 % of capacity; pods arrive one at a time, never leave, and a pod that does not fit fails for good. Every policy "
                + "sees the same arrivals. Seeds: ").append(seeds).append(".</p>");
        b.append("<dl><dt>alloc@N</dt><dd>GPU allocation ratio (% of all GPU milli allocated) when the arrived workload (GPU "
                + "requested by pods so far, placed or failed) reaches N % of capacity; mean over seeds.</dd>"
                + "<dt>published</dt><dd>the paper's alloc@130 (mean of 10 seeds), where the paper has the policy.</dd>"
                + "<dt>sd</dt><dd>standard deviation of alloc@130 over the seeds: a difference smaller than this is noise.</dd>"
                + "<dt>frag@N</dt><dd>FGD's fragmentation rate: share (%) of the free GPU milli that the trace's popular pod shapes "
                + "cannot use, at N % arrival.</dd>"
                + "<dt>p50/p99/max µs</dt><dd>time per placement decision inside the simulator, all decisions of all seeds.</dd>"
                + "<dt>rows</dt><dd><b>ace</b> is the webhook's engine and configuration; <i>-kube</i> rows add kube-scheduler's "
                + "default scores and random ties; <i>ace-nofrag</i> and <i>ace-neutral</i> are ACE without its fragmentation term and "
                + "with a neutral demand prior; <i>ace-frag-equal</i> weighs TP capacity and fragmentation on one scale (1,000 per GPU) "
                + "instead of TP capacity first.</dd></dl>");
        b.append("<table><tr><th>policy</th>");
        for (int p : PolicySummary.ALLOCATION_POINTS) b.append("<th>alloc@").append(p).append("</th>");
        b.append("<th>published</th><th>sd</th>");
        for (int p : PolicySummary.FRAG_POINTS) b.append("<th>frag@").append(p).append("</th>");
        b.append("<th>p50 µs</th><th>p99 µs</th><th>max µs</th></tr>");
        for (PolicySummary r : results) {
            b.append(r.policy().equals("ace") ? "<tr class=\"ace\"><th>" : "<tr><th>").append(esc(r.policy())).append("</th>");
            for (int p : PolicySummary.ALLOCATION_POINTS) b.append("<td>").append(f(r.allocationAt(p))).append("</td>");
            Double pub = Published.allocation130(trace, r.policy());
            b.append("<td>").append(pub == null ? "" : f(pub)).append("</td><td>").append(f(r.seedSpread130())).append("</td>");
            for (int p : PolicySummary.FRAG_POINTS) b.append("<td>").append(f(r.fragRateAt(p))).append("</td>");
            b.append("<td>").append(f(r.p50Micros())).append("</td><td>").append(f(r.p99Micros())).append("</td><td>")
                    .append(f(r.maxMicros())).append("</td></tr>");
        }
        b.append("</table>").append(allocationTailSvg(results)).append(allocationSvg(results)).append(fragmentationSvg(results))
                .append("</body></html>\n");
        return b.toString();
    }

    static StringBuilder head(String title) {
        return new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>").append(esc(title))
                .append("</title><style>body{font-family:sans-serif;margin:2em;max-width:1250px}table{border-collapse:collapse;margin:1em 0;font-size:12px}"
                        + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}tr.ace{background:#fde8e8}"
                        + "dt{font-weight:bold;float:left;clear:left;width:9em}dd{margin:0 0 .3em 10em}svg{display:block;margin:1em 0}"
                        + "</style></head><body>");
    }

    /** One polyline per curve, curve[x] plotted at x for x in [max(x0, 1), x1]. */
    public static String lines(Axes a, List<String> names, List<double[]> curves) {
        double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
        for (double[] v : curves) {
            for (int x = Math.max(a.x0(), 1); x <= Math.min(a.x1(), v.length - 1); x++) {
                lo = Math.min(lo, v[x]);
                hi = Math.max(hi, v[x]);
            }
        }
        if (lo > hi) { lo = 0; hi = 100; }
        double ystep = niceStep(hi - lo);
        double y0 = Math.floor(lo / ystep) * ystep, y1 = Math.max(y0 + ystep, Math.ceil(hi / ystep) * ystep);
        int w = 860, h = 440, left = 64, right = 170, top = 34, bottom = 52;
        double sx = (w - left - right) / (double) Math.max(1, a.x1() - a.x0()), sy = (h - top - bottom) / (y1 - y0);
        int xstep = Math.max(1, (int) niceStep(a.x1() - a.x0()));
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">", w, h));
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>", left, esc(a.title())));
        for (int x = a.x0(); x <= a.x1(); x += xstep) {
            double px = left + (x - a.x0()) * sx;
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>", px, top, px, h - bottom));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>", px, h - bottom + 14, x));
        }
        for (double y = y0; y <= y1 + 1e-9; y += ystep) {
            double py = h - bottom - (y - y0) * sy;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", left, py, w - right, py));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", left - 4, py + 4, tick(y, ystep)));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", (left + w - right) / 2, h - 14, esc(a.xLabel())));
        b.append(String.format(Locale.ROOT, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">%s</text>", (top + h - bottom) / 2, esc(a.yLabel())));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>",
                w - right + 8, top, right - 14, 16 * curves.size() + 10));
        for (int i = 0; i < curves.size(); i++) {
            double[] v = curves.get(i);
            boolean ace = names.get(i).equals("ace");
            String colour = ace ? "#d62728" : COLOURS[i % COLOURS.length];
            String dash = ace ? "" : DASHES[(i / 2) % DASHES.length];
            String style = String.format(Locale.ROOT, "stroke=\"%s\" stroke-width=\"%s\"%s", colour, ace ? "3" : "1.5",
                    dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"");
            StringBuilder pts = new StringBuilder();
            for (int x = Math.max(a.x0(), 1); x <= Math.min(a.x1(), v.length - 1); x++) {
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + (x - a.x0()) * sx, h - bottom - (v[x] - y0) * sy));
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" %s points=\"%s\"/>", style, pts.toString().trim()));
            int ly = top + 16 * (i + 1);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>", w - right + 14, ly - 4, w - right + 40, ly - 4, style));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\"%s>%s</text>", w - right + 46, ly, ace ? " font-weight=\"bold\"" : "", esc(names.get(i))));
        }
        return b.append("</svg>\n").toString();
    }

    private static double niceStep(double range) {
        double raw = Math.max(range, 1e-9) / 8;
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[]{1, 2, 2.5, 5, 10}) if (m * mag >= raw) return m * mag;
        return 10 * mag;
    }

    private static String tick(double y, double step) {
        return step >= 1 ? String.format(Locale.ROOT, "%.0f", y) : String.format(Locale.ROOT, "%.1f", y);
    }

    static String f(double v) { return String.format(Locale.ROOT, "%.2f", v); }

    static String esc(String s) { return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"); }
}
