package dev.ace.binpacker.topology;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The cell tokens of {@code nvidia-smi topo -m}, shared by the parser and the catalog's literal matrices. */
final class LinkTokens {
    private static final Pattern NV = Pattern.compile("NV(\\d{1,3})");

    private LinkTokens() {}

    /** The link a cell token names, or null when the token is not a {@code topo -m} link. */
    static Link parse(String token) {
        Matcher m = NV.matcher(token);
        if (m.matches()) {
            int bonds = Integer.parseInt(m.group(1));
            return bonds < 1 ? null : Link.nvlink(bonds);
        }
        LinkKind kind = LinkKind.ofToken(token);
        return kind == null ? null : Link.of(kind);
    }

    /** Builds a square link matrix from rows of tokens; used for catalog boards copied from real output. */
    static Link[][] matrix(String... rows) {
        Link[][] links = new Link[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            String[] cells = rows[i].trim().split("\\s+");
            links[i] = new Link[cells.length];
            for (int j = 0; j < cells.length; j++) {
                Link l = parse(cells[j]);
                if (l == null) throw new IllegalArgumentException("bad token " + cells[j] + " in row " + i);
                links[i][j] = l;
            }
        }
        return links;
    }
}
