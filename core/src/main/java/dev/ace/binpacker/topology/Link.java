package dev.ace.binpacker.topology;

/**
 * One cell of a link matrix: the kind of path and, for NVLink, the number of bonded links.
 * A pair joined by NVLink may also share a PCIe path; {@code pcie} keeps that when it is known
 * (it is not printed by {@code topo -m} for NVLink pairs, so it is usually {@code null} there).
 */
public record Link(LinkKind kind, int bonds) {
    public static final Link SELF = new Link(LinkKind.SELF, 0);

    public Link {
        if (kind == null) throw new IllegalArgumentException("link kind is required");
        if (kind == LinkKind.NVLINK && bonds < 1) throw new IllegalArgumentException("an NVLink needs at least one bond");
        if (kind != LinkKind.NVLINK && bonds != 0) throw new IllegalArgumentException(kind + " has no NVLink bonds");
    }

    public static Link nvlink(int bonds) { return new Link(LinkKind.NVLINK, bonds); }

    public static Link of(LinkKind kind) { return new Link(kind, 0); }

    public boolean isNvlink() { return kind == LinkKind.NVLINK; }

    /** The token {@code nvidia-smi topo -m} prints for this link. */
    public String token() {
        return switch (kind) {
            case SELF -> "X";
            case NVLINK -> "NV" + bonds;
            default -> kind.name();
        };
    }

    @Override
    public String toString() { return token(); }
}
