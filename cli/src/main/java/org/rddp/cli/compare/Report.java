package org.rddp.cli.compare;

import java.util.Base64;
import java.util.List;

/**
 * {@code rddp compare}'s results page: one self-contained HTML file (the charts inside it as PNG data, no script, no
 * file or address it needs besides itself) with the conditions, the charts and the tables as the console prints them,
 * so that a comparison can be handed to someone else as it is.
 */
final class Report {
    private Report() {
    }

    /** A chart on the page. */
    record Figure(String title, byte[] png) {
    }

    /** The page. */
    static String html(String conditions, String tables, List<Figure> figures) {
        StringBuilder page = new StringBuilder(1 << 16);
        page.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<title>rddp compare</title>\n<style>\n")
                .append("body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #202020; }\n")
                .append("p.conditions { color: #404040; }\n")
                .append("figure { margin: 1.5em 0; }\nimg { max-width: 100%; border: 1px solid #d0d0d0; }\n")
                .append("pre { font-size: 12px; background: #f6f6f6; padding: 1em; overflow-x: auto; }\n")
                .append("</style>\n</head>\n<body>\n<h1>rddp compare</h1>\n")
                .append("<p class=\"conditions\">").append(escape(conditions)).append("</p>\n");
        for (Figure figure : figures) {
            page.append("<figure>\n<img alt=\"").append(escape(figure.title())).append("\" width=\"")
                    .append(Chart.WIDTH).append("\" height=\"").append(Chart.HEIGHT)
                    .append("\" src=\"data:image/png;base64,").append(Base64.getEncoder().encodeToString(figure.png()))
                    .append("\">\n<figcaption>").append(escape(figure.title())).append("</figcaption>\n</figure>\n");
        }
        page.append("<h2>Tables</h2>\n<pre>").append(escape(tables)).append("</pre>\n")
                .append("<p>Every figure, with each run's value, is in <code>compare.json</code> beside this page.")
                .append("</p>\n</body>\n</html>\n");
        return page.toString();
    }

    /** {@code text} with the characters HTML gives a meaning written as references. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
