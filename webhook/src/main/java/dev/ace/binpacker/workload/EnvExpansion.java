package dev.ace.binpacker.workload;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kubelet's expansion of {@code $(VAR)} in a container's command and args from the container's
 * own literal {@code env} values ({@code $$} escapes a dollar; an unknown name stays as written), so
 * that {@code --nnodes $(LWS_GROUP_SIZE)} reads as the number the process will see. Values from
 * {@code valueFrom} are unknown at admission and stay unexpanded. Returns a copy; the pod is untouched.
 *
 * <p>Bounded, since a tenant writes every byte of it: one pass over each string (a {@code $(} without
 * its {@code )} ends the scan, an unknown name is copied whole, as the kubelet does), at most
 * {@link CommandLine#MAX_ENV} variables, and no string grows past {@link CommandLine#MAX_CHARS}, the
 * most the command line reader looks at (otherwise {@code B=$(A)$(A)}, {@code C=$(B)$(B)}... doubles
 * with every variable).
 */
public final class EnvExpansion {
    private EnvExpansion() {}

    public static Container expand(Container c) {
        if (c.getEnv() == null || c.getEnv().isEmpty()) return c;
        Map<String, String> env = new HashMap<>();
        int n = 0;
        for (EnvVar e : c.getEnv()) {
            if (n++ == CommandLine.MAX_ENV) break;
            if (e.getName() != null && e.getValue() != null) env.put(e.getName(), expand(e.getValue(), env));
        }
        List<String> command = expand(c.getCommand(), env);
        List<String> args = expand(c.getArgs(), env);
        if (command == c.getCommand() && args == c.getArgs()) return c;
        Container copy = new io.fabric8.kubernetes.api.model.ContainerBuilder(c).build();
        copy.setCommand(command);
        copy.setArgs(args);
        return copy;
    }

    private static List<String> expand(List<String> words, Map<String, String> env) {
        if (words == null || words.stream().noneMatch(w -> w != null && w.contains("$("))) return words;
        List<String> out = new ArrayList<>(words.size());
        for (String w : words) out.add(w == null ? null : expand(w, env));
        return out;
    }

    static String expand(String s, Map<String, String> env) {
        if (s.indexOf('$') < 0) return s.length() > CommandLine.MAX_CHARS ? s.substring(0, CommandLine.MAX_CHARS) : s;
        StringBuilder b = new StringBuilder(Math.min(s.length(), CommandLine.MAX_CHARS));
        for (int i = 0; i < s.length() && b.length() < CommandLine.MAX_CHARS; i++) {
            char ch = s.charAt(i);
            if (ch != '$' || i + 1 >= s.length()) {
                b.append(ch);
            } else if (s.charAt(i + 1) == '$') {
                b.append('$');
                i++;
            } else if (s.charAt(i + 1) == '(') {
                int close = s.indexOf(')', i + 2);
                if (close < 0) { // no closing paren anywhere after: the rest is literal
                    b.append(s, i, s.length());
                    break;
                }
                String value = env.get(s.substring(i + 2, close));
                if (value != null) b.append(value);
                else b.append(s, i, close + 1); // unknown: kept as written, and the scan goes on after it
                i = close;
            } else {
                b.append(ch);
            }
        }
        return b.length() > CommandLine.MAX_CHARS ? b.substring(0, CommandLine.MAX_CHARS) : b.toString();
    }
}
