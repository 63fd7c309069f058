package org.rddp.cli.perftest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rddp.cli.perftest.Perftest.Test;

/** perftest's result lines, and the same results as JSON. */
public final class PerfReport {
    /** perftest's bandwidth header (MB = 2^20 octets). */
    static final String BANDWIDTH_HEADER =
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    /** perftest's latency header. */
    static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
            + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PerfReport() {
    }

    /** One result as perftest prints it. */
    static String row(PerfResult result) {
        return switch (result) {
            case PerfResult.Scale scale -> row(scale.bandwidth());
            case PerfResult.Bandwidth bw -> String.format(Locale.ROOT,
                    " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", bw.bytes(), bw.iterations(),
                    bw.peakMbps(), bw.averageMbps(), bw.messageRateMpps());
            case PerfResult.Latency lat -> String.format(Locale.ROOT,
                    " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f "
                            + "\t\t%-7.2f", lat.bytes(), lat.iterations(), lat.minUsec(), lat.maxUsec(),
                    lat.typicalUsec(), lat.averageUsec(), lat.stdevUsec(), lat.p99Usec(), lat.p999Usec());
        };
    }

    /** The results of one run as a JSON document. */
    static String json(Test test, String role, String transport, List<PerfResult> results) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("test", test.command());
        document.put("role", role);
        document.put("transport", transport);
        document.put("units", test.bandwidth ? Map.of("bandwidth", "MB/sec (2^20 octets)", "messageRate", "Mpps")
                : Map.of("latency", "usec"));
        document.put("results", results);
        try {
            return JSON.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
