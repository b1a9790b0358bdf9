package dev.ace.binpacker.sim;

import java.util.List;
import java.util.Locale;

/** Line charts drawn as inline SVG (no scripts, no CDN) and the HTML page that holds them. */
public final class SvgReport {
    private static final String[] COLOURS = {"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
        "#e377c2", "#17becf", "#bcbd22", "#aec7e8", "#d62728", "#000000"};

    private SvgReport() {}

    public static String allocationSvg(List<PolicySummary> results) {
        return chart("GPU allocation ratio (%) vs arrived workload (% of GPU capacity)", results, true, 0, 130, 0, 100);
    }

    public static String fragmentationSvg(List<PolicySummary> results) {
        return chart("FGD fragmentation rate (% of free GPU) vs arrived workload (%)", results, false, 0, 100, 0, 100);
    }

    public static String html(String trace, List<Long> seeds, List<PolicySummary> results) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ACE simulate ")
                .append(esc(trace)).append("</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}</style></head><body>");
        b.append("<h1>").append(esc(trace)).append("</h1><p>seeds ").append(seeds).append("</p><table><tr><th>policy</th>");
        for (int p : PolicySummary.ALLOCATION_POINTS) b.append("<th>alloc@").append(p).append("</th>");
        for (int p : PolicySummary.FRAG_POINTS) b.append("<th>frag@").append(p).append("</th>");
        b.append("<th>p50 µs</th><th>p99 µs</th><th>max µs</th></tr>");
        for (PolicySummary r : results) {
            b.append("<tr><th>").append(esc(r.policy())).append("</th>");
            for (int p : PolicySummary.ALLOCATION_POINTS) b.append("<td>").append(f(r.allocationAt(p))).append("</td>");
            for (int p : PolicySummary.FRAG_POINTS) b.append("<td>").append(f(r.fragRateAt(p))).append("</td>");
            b.append("<td>").append(f(r.p50Micros())).append("</td><td>").append(f(r.p99Micros())).append("</td><td>")
                    .append(f(r.maxMicros())).append("</td></tr>");
        }
        b.append("</table>").append(allocationSvg(results)).append(fragmentationSvg(results)).append("</body></html>\n");
        return b.toString();
    }

    static String chart(String title, List<PolicySummary> results, boolean allocation, int x0, int x1, int y0, int y1) {
        List<String> names = new java.util.ArrayList<>();
        List<double[]> curves = new java.util.ArrayList<>();
        for (PolicySummary r : results) {
            names.add(r.policy());
            curves.add(allocation ? r.allocation() : r.fragRate());
        }
        return lines(title, names, curves, x0, x1, y0, y1);
    }

    /** One polyline per curve, curve[x] plotted at x for x in [max(x0, 1), x1]; ACE drawn thick and red. */
    public static String lines(String title, List<String> names, List<double[]> curves, int x0, int x1, int y0, int y1) {
        int w = 760, h = 420, left = 50, right = 150, top = 30, bottom = 40;
        double sx = (w - left - right) / (double) (x1 - x0), sy = (h - top - bottom) / (double) (y1 - y0);
        int step = Math.max(10, (x1 - x0) / 13 / 10 * 10);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">", w, h));
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\">%s</text>", left, esc(title)));
        for (int x = x0; x <= x1; x += step) {
            double px = left + (x - x0) * sx;
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>", px, top, px, h - bottom));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>", px, h - bottom + 14, x));
        }
        for (int y = y0; y <= y1; y += 10) {
            double py = h - bottom - (y - y0) * sy;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", left, py, w - right, py));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>", left - 4, py + 4, y));
        }
        for (int i = 0; i < curves.size(); i++) {
            double[] v = curves.get(i);
            boolean ace = names.get(i).equals("ace");
            String colour = ace ? "#d62728" : COLOURS[i % COLOURS.length];
            StringBuilder pts = new StringBuilder();
            for (int x = Math.max(x0, 1); x <= Math.min(x1, v.length - 1); x++) {
                double y = Math.max(y0, Math.min(y1, v[x]));
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + (x - x0) * sx, h - bottom - (y - y0) * sy));
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"%s\"/>",
                    colour, ace ? "2.5" : "1.3", pts.toString().trim()));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>", w - right + 10, top + 14 * (i + 1), colour, esc(names.get(i))));
        }
        return b.append("</svg>\n").toString();
    }

    private static String f(double v) { return String.format(Locale.ROOT, "%.2f", v); }

    private static String esc(String s) { return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"); }
}
