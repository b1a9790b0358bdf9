package dev.ace.binpacker.cli;

/**
 * The node agent's jar and image ({@code java -jar ace-agent.jar agent ...}; the DaemonSet's arguments start with
 * {@code agent}): plain Java with the fabric8 client and grpc-java, no Quarkus, no simulator.
 */
public final class AgentMain {
    private AgentMain() {}

    public static void main(String... args) {
        int code = Tool.runOnly(AgentCommand.HELP, AgentCommand::new, args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }
}
