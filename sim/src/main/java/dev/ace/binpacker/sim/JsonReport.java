package dev.ace.binpacker.sim;

import java.util.List;
import java.util.Locale;

/** The JSON document of BENCHMARK.md "Output", written by hand (the sim package stays JDK-only). */
public final class JsonReport {
    private JsonReport() {}

    public static String protocolA(String trace, List<Long> seeds, List<PolicySummary> results) {
        StringBuilder b = new StringBuilder();
        b.append("{\"trace\":").append(str(trace)).append(",\"seeds\":").append(seeds.toString().replace(" ", ""))
                .append(",\"results\":[");
        for (int i = 0; i < results.size(); i++) {
            PolicySummary r = results.get(i);
            if (i > 0) b.append(',');
            b.append("\n  {\"policy\":").append(str(r.policy())).append(",\"allocationAt\":{");
            points(b, PolicySummary.ALLOCATION_POINTS, r.allocation());
            b.append("},\"fragRateAt\":{");
            points(b, PolicySummary.FRAG_POINTS, r.fragRate());
            b.append("},\"allocation130BySeed\":[");
            for (int k = 0; k < r.allocation130BySeed().length; k++) b.append(k == 0 ? "" : ",").append(num(r.allocation130BySeed()[k]));
            b.append("],\"allocation130Sd\":").append(num(r.seedSpread130()));
            Published.Figure pub = Published.at130(trace, r.policy());
            if (pub != null) b.append(",\"published130\":{\"mean\":").append(num(pub.mean())).append(",\"sd\":").append(num(pub.sd())).append('}');
            b.append(",\"placed\":").append(r.placed()).append(",\"failed\":").append(r.failed());
            b.append(",\"decisionMicros\":{\"p50\":").append(num(r.p50Micros())).append(",\"p99\":").append(num(r.p99Micros()))
                    .append(",\"max\":").append(num(r.maxMicros())).append("}}");
        }
        return b.append("\n]}\n").toString();
    }

    private static void points(StringBuilder b, int[] at, double[] curve) {
        for (int k = 0; k < at.length; k++) {
            if (k > 0) b.append(',');
            b.append('"').append(at[k]).append("\":").append(num(curve[at[k]]));
        }
    }

    static String num(double v) { return String.format(Locale.ROOT, "%.2f", v); }

    static String str(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
