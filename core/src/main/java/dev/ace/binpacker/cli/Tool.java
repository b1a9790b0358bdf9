package dev.ace.binpacker.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * How every ACE command runs, whichever jar holds it: help on {@code help}, {@code -h} or {@code --help}, a
 * {@link CliException} printed with the command's name (and its usage line on a usage error), any other failure
 * reported as unreadable input, and the documented exit codes (0, 1 input, 2 usage).
 */
public final class Tool {
    private Tool() {}

    public static boolean isHelpWord(String a) { return a.equals("help") || a.equals("--help") || a.equals("-h"); }

    /** True when {@code -h} or {@code --help} is anywhere among the arguments. */
    public static boolean asked(String[] args) {
        for (String a : args) if (a.equals("--help") || a.equals("-h")) return true;
        return false;
    }

    /**
     * The main of a jar that runs one command ({@code simulate}, {@code agent}): the command's own name may come first
     * ({@code java -jar ace-sim.jar simulate --trace ...}), as through {@code bin/ace}. Returns the exit code.
     */
    public static int runOnly(CommandHelp help, Supplier<Command> command, String[] args, PrintStream out, PrintStream err) {
        String[] rest = args.length > 0 && args[0].equals(help.name()) ? Arrays.copyOfRange(args, 1, args.length) : args;
        if ((rest.length > 0 && isHelpWord(rest[0])) || asked(rest)) {
            out.println(help.text());
            return 0;
        }
        return execute(help.name(), help.usage(), command, rest, out, err);
    }

    /** Runs {@code command} on the arguments after its name, turning failures into messages and exit codes. */
    public static int execute(String name, String usage, Supplier<Command> command, String[] rest, PrintStream out, PrintStream err) {
        try {
            return command.get().run(rest, out, err);
        } catch (CliException e) {
            err.println(name + ": " + e.getMessage());
            if (e.exitCode() == CliException.USAGE) err.println(usage);
            return e.exitCode();
        } catch (Exception e) {
            err.println(name + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            return CliException.INPUT;
        }
    }
}
