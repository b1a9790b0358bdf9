package dev.ace.binpacker.admission;

import java.util.function.Supplier;

/** A value computed on first use and then kept: one admission asks for its dry decision at most once. Not thread-safe. */
final class Once<T> implements Supplier<T> {
    private Supplier<T> compute;
    private T value;

    Once(Supplier<T> compute) { this.compute = compute; }

    @Override
    public T get() {
        if (compute != null) {
            value = compute.get();
            compute = null;
        }
        return value;
    }
}
