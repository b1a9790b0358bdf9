package dev.ace.binpacker.workload;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A container's image, command line and environment, flattened for flag lookups. Arguments that
 * hold a whole shell script ({@code sh -c "vllm serve m --tp 4"}) are split into words too, since
 * that is how most Helm charts start servers.
 */
public final class CommandLine {
    private final String image;
    private final List<String> tokens;
    private final Map<String, String> env;

    private CommandLine(String image, List<String> tokens, Map<String, String> env) {
        this.image = image;
        this.tokens = tokens;
        this.env = env;
    }

    public static CommandLine of(Container c) {
        List<String> tokens = new ArrayList<>();
        addAll(tokens, c.getCommand());
        addAll(tokens, c.getArgs());
        Map<String, String> env = new java.util.HashMap<>();
        if (c.getEnv() != null) {
            for (EnvVar e : c.getEnv()) {
                if (e.getName() != null && e.getValue() != null) env.put(e.getName(), e.getValue());
            }
        }
        String image = c.getImage() == null ? "" : c.getImage().toLowerCase(Locale.ROOT);
        return new CommandLine(image, List.copyOf(tokens), Map.copyOf(env));
    }

    private static void addAll(List<String> out, List<String> words) {
        if (words == null) return;
        for (String w : words) {
            if (w == null) continue;
            if (w.indexOf(' ') >= 0 || w.indexOf('\n') >= 0 || w.indexOf('\t') >= 0) {
                for (String part : w.split("[\\s;&|]+")) {
                    String t = strip(part);
                    if (!t.isEmpty()) out.add(t);
                }
            } else {
                out.add(w);
            }
        }
    }

    private static String strip(String s) {
        String t = s;
        while (!t.isEmpty() && (t.charAt(0) == '"' || t.charAt(0) == '\'' || t.charAt(0) == '\\')) t = t.substring(1);
        while (!t.isEmpty() && (t.endsWith("\"") || t.endsWith("'") || t.endsWith("\\"))) t = t.substring(0, t.length() - 1);
        return t;
    }

    public String image() { return image; }

    public List<String> tokens() { return tokens; }

    public String env(String name) { return env.get(name); }

    /** The integer after any of {@code flags} ({@code --flag 4} or {@code --flag=4}); the last one wins, as with argparse. */
    public OptionalInt intFlag(Set<String> flags) throws NumberFormatException {
        OptionalInt found = OptionalInt.empty();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            String value = null;
            int eq = t.indexOf('=');
            if (eq > 0 && flags.contains(t.substring(0, eq))) {
                value = t.substring(eq + 1);
            } else if (flags.contains(t) && i + 1 < tokens.size()) {
                value = tokens.get(i + 1);
            }
            if (value != null) {
                try {
                    found = OptionalInt.of(Integer.parseInt(strip(value).trim()));
                } catch (NumberFormatException e) {
                    // "--tp $(TP)" and friends: not a literal, so not evidence
                }
            }
        }
        return found;
    }

    /** The string after a flag, or null. */
    public String flagValue(String flag) {
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            if (t.startsWith(flag + "=")) return t.substring(flag.length() + 1);
            if (t.equals(flag) && i + 1 < tokens.size()) return tokens.get(i + 1);
        }
        return null;
    }

    public boolean hasToken(String token) { return tokens.contains(token); }

    /** True when the image or any word contains one of the fragments (lower case). */
    public boolean mentions(String... fragments) {
        for (String f : fragments) {
            if (image.contains(f)) return true;
            for (String t : tokens) {
                if (t.toLowerCase(Locale.ROOT).contains(f)) return true;
            }
        }
        return false;
    }
}
