package dev.ace.binpacker.sim;

import java.util.List;

/** One way of sharing protocol C's pool of GPUs among small pods. */
public interface Slicer {
    /** Starts the pod now if it fits. */
    boolean place(SlicingTrace.Pod pod, double now);

    void release(String id);

    /** Called every {@link ProtocolC#TICK_SECONDS} with the pods waiting; true when capacity changed. */
    default boolean tick(double now, List<SlicingTrace.Pod> waiting) { return false; }

    /** Layout changes begun, for the report (0 where layouts do not change). */
    default int layoutChanges() { return 0; }
}
