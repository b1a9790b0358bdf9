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
 */
public final class EnvExpansion {
    private EnvExpansion() {}

    public static Container expand(Container c) {
        if (c.getEnv() == null || c.getEnv().isEmpty()) return c;
        Map<String, String> env = new HashMap<>();
        for (EnvVar e : c.getEnv()) if (e.getName() != null && e.getValue() != null) env.put(e.getName(), expand(e.getValue(), env));
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
        if (s.indexOf('$') < 0) return s;
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch != '$' || i + 1 >= s.length()) {
                b.append(ch);
            } else if (s.charAt(i + 1) == '$') {
                b.append('$');
                i++;
            } else if (s.charAt(i + 1) == '(') {
                int close = s.indexOf(')', i + 2);
                String name = close < 0 ? null : s.substring(i + 2, close);
                if (name != null && env.containsKey(name)) {
                    b.append(env.get(name));
                    i = close;
                } else {
                    b.append(ch);
                }
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
