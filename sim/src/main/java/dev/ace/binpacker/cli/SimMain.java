package dev.ace.binpacker.cli;

/**
 * The simulator's jar ({@code java -jar sim/target/ace-sim.jar simulate ...}, or {@code bin/ace simulate ...}): one
 * command, apart from the webhook so that OR-Tools and its natives stay out of the webhook's image.
 */
public final class SimMain {
    private SimMain() {}

    public static void main(String... args) {
        int code = Tool.runOnly(SimulateCommand.HELP, SimulateCommand::new, args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }
}
