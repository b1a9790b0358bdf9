package dev.ace.binpacker.realapi;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Every process the suite started, killed by one JVM shutdown hook whatever happens to the tests. */
final class Suite {
    private static final List<Daemon> DAEMONS = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Suite::killAll, "realapi-shutdown"));
    }

    private Suite() {}

    static void track(Daemon d) {
        if (!DAEMONS.contains(d)) DAEMONS.add(d);
    }

    static void killAll() {
        for (Daemon d : DAEMONS) d.kill();
    }
}
