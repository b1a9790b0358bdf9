package dev.ace.binpacker.cli;

import dev.ace.binpacker.cluster.ClusterMode;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Turns {@code serve} flags into configuration system properties before Quarkus starts. Unknown
 * flags are an error: Quarkus would otherwise ignore them and start in a mode the user did not ask for.
 */
final class ServeOptions {
    private ServeOptions() {}

    static void apply(String[] args) throws CliException {
        String mode = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--nodes")) {
                System.setProperty("ace.standalone.nodes", existing(Main.value(args, ++i, a), a));
            } else if (a.startsWith("--nodes=")) {
                System.setProperty("ace.standalone.nodes", existing(a.substring("--nodes=".length()), "--nodes"));
            } else if (a.equals("--kubeconfig")) {
                System.setProperty(ClusterMode.KUBECONFIG_PROPERTY, existing(Main.value(args, ++i, a), a));
                mode = one(mode, "cluster", a);
            } else if (a.equals("--cluster")) {
                mode = one(mode, "cluster", a);
            } else if (a.equals("--standalone")) {
                mode = one(mode, "standalone", a);
            } else {
                throw CliException.usage("unknown option '" + a + "'");
            }
        }
        if (mode != null) System.setProperty("ace.mode", mode);
    }

    private static String existing(String file, String flag) throws CliException {
        if (!Files.isRegularFile(Path.of(file))) throw CliException.input(flag + " " + file + ": no such file");
        return file;
    }

    private static String one(String before, String now, String flag) throws CliException {
        if (before != null && !before.equals(now)) throw CliException.usage(flag + " contradicts an earlier option: --standalone or --cluster, not both");
        return now;
    }
}
