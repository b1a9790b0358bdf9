package dev.ace.binpacker.cli;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * Entry point: {@code serve} (default) starts the webhook; every other command, and every help
 * request, is plain code that runs and exits without starting the HTTP server.
 */
@QuarkusMain
public final class Main {
    private Main() {}

    public static void main(String... args) {
        if (isServe(args) && !Tool.asked(args)) {
            String[] rest = args.length > 0 && args[0].equals("serve") ? Arrays.copyOfRange(args, 1, args.length) : args;
            try {
                ServeOptions.apply(rest);
            } catch (CliException e) {
                System.err.println("serve: " + e.getMessage());
                System.err.println(Help.SERVE.usage());
                System.exit(e.exitCode());
                return;
            }
            Quarkus.run();
            return;
        }
        int code = run(args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /** Everything but starting the server: help, usage errors, and the plain commands. Returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || Tool.isHelpWord(args[0])) {
            if (args.length > 1 && !Tool.isHelpWord(args[1])) return Help.command(args[1], out, err);
            Help.overview(out);
            return 0;
        }
        String name = isServe(args) ? "serve" : args[0];
        Help.Entry entry = Help.find(name);
        if (entry == null) {
            err.println("unknown command '" + name + "'");
            err.println("commands: " + String.join(", ", Help.names()) + "   (help COMMAND for its options)");
            return CliException.USAGE;
        }
        if (Tool.asked(args)) {
            out.println(entry.help());
            return 0;
        }
        if (entry.command() == null) {
            // serve is started by main() through Quarkus, never from here.
            err.println(name + ": starts the webhook; run it as a command, not from code");
            return CliException.USAGE;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return Tool.execute(name, entry.usage(), entry.command(), rest, out, err);
    }

    /** The value after a flag, or a usage error naming the flag. */
    static String value(String[] args, int i, String flag) throws CliException {
        if (i >= args.length || (args[i].startsWith("-") && !args[i].equals("-"))) throw CliException.usage(flag + " needs a value");
        return args[i];
    }

    /** No command, {@code serve}, or options straight away ({@code --nodes x}) start the server. */
    private static boolean isServe(String[] args) {
        if (args.length == 0) return true;
        return args[0].equals("serve") || (args[0].startsWith("-") && !Tool.isHelpWord(args[0]));
    }
}
