package dev.ace.binpacker.cli;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Entry point: {@code serve} (default) starts the webhook; every other command is plain code that
 * runs and exits without starting the HTTP server.
 */
@QuarkusMain
public final class Main {
    private static final Map<String, Supplier<Command>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("topology", TopologyCommand::new);
        COMMANDS.put("agent", AgentCommand::new);
        COMMANDS.put("explain", ExplainCommand::new);
        COMMANDS.put("simulate", SimulateCommand::new);
    }

    private Main() {}

    public static void main(String... args) {
        String name = args.length == 0 ? "serve" : args[0];
        if (name.startsWith("-") || name.equals("serve")) {
            String[] rest = name.equals("serve") && args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
            ServeOptions.apply(rest);
            Quarkus.run(rest);
            return;
        }
        if (name.equals("help") || name.equals("--help")) {
            usage();
            return;
        }
        Supplier<Command> c = COMMANDS.get(name);
        if (c == null) {
            System.err.println("unknown command '" + name + "'");
            usage();
            System.exit(2);
            return;
        }
        int code;
        try {
            code = c.get().run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err);
        } catch (Exception e) {
            System.err.println("error: " + e.getMessage());
            code = 1;
        }
        System.out.flush();
        System.exit(code);
    }

    private static void usage() {
        System.err.println("usage: java -jar target/quarkus-app/quarkus-run.jar <command> [options]");
        System.err.println("commands: serve (default), " + String.join(", ", COMMANDS.keySet()));
    }
}
