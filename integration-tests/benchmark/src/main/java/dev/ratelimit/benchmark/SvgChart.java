package dev.ratelimit.benchmark;

import java.util.List;
import java.util.Locale;

/**
 * A horizontal grouped bar chart as a self-contained SVG (no scripts, no fonts to load), so the
 * benchmark can draw its own figures without a plotting library.
 */
final class SvgChart {

    private static final String[] COLORS = { "#1f6fb2", "#f28e2b", "#59a14f", "#b07aa1" };
    private static final int LABEL_WIDTH = 230, PLOT_WIDTH = 560, RIGHT = 110, BAR = 14, GAP = 4, GROUP_GAP = 12;

    private SvgChart() {
    }

    /**
     * @param groups one label per row group (e.g. a contender)
     * @param series one name per bar in a group (e.g. a key set)
     * @param values {@code values[group][series]}; negative: not measured
     * @param format how a value is printed after its bar, e.g. {@code "%,.0f"}
     */
    static String bars(String title, String subtitle, List<String> groups, List<String> series, double[][] values,
            String format, String unit) {
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                max = Math.max(max, v);
            }
        }
        max = niceCeiling(max);
        int groupHeight = series.size() * (BAR + GAP) - GAP;
        int top = 70;
        int height = top + groups.size() * (groupHeight + GROUP_GAP) + 50;
        int width = LABEL_WIDTH + PLOT_WIDTH + RIGHT;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n",
                width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"40\" fill=\"#555\">%s</text>%n", escape(subtitle)));
        // legend
        int lx = LABEL_WIDTH;
        for (int s = 0; s < series.size(); s++) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"50\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"60\">%s</text>%n", lx, COLORS[s % COLORS.length], lx + 16, escape(series.get(s))));
            lx += 30 + 7 * series.get(s).length();
        }
        // grid
        int plotBottom = height - 40;
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            int x = LABEL_WIDTH + (int) Math.round(PLOT_WIDTH * i / 4.0);
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n",
                    x, top - 4, x, plotBottom, x, plotBottom + 16, escape(String.format(Locale.ROOT, format, v))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n",
                LABEL_WIDTH + PLOT_WIDTH / 2, plotBottom + 32, escape(unit)));
        int y = top;
        for (int g = 0; g < groups.size(); g++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LABEL_WIDTH - 8, y + groupHeight / 2 + 4, escape(groups.get(g))));
            for (int s = 0; s < series.size(); s++) {
                double v = values[g][s];
                int by = y + s * (BAR + GAP);
                if (v >= 0) {
                    int w = Math.max(1, (int) Math.round(PLOT_WIDTH * v / max));
                    svg.append(String.format(Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                                    + "<text x=\"%d\" y=\"%d\" fill=\"#333\">%s</text>%n",
                            LABEL_WIDTH, by, w, BAR, COLORS[s % COLORS.length], LABEL_WIDTH + w + 4, by + BAR - 3,
                            escape(String.format(Locale.ROOT, format, v))));
                }
            }
            y += groupHeight + GROUP_GAP;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 }) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
