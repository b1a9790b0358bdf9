package dev.ace.binpacker.placement.demand;

import java.util.Objects;

/**
 * What to buy: nodes of one type in one pool, sized for cliques of {@code cliqueSize} GPUs; for a group on trays
 * of a multi-node NVLink domain, {@code domainLabel} names the label all its nodes must share one value of.
 */
public record Shape(String pool, String type, int cliqueSize, String domainLabel) {
    public Shape {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(type, "type");
        if (cliqueSize < 1) throw new IllegalArgumentException("clique size must be >= 1, not " + cliqueSize);
    }
}
